package spark_ddl_log;

import java.util.HashMap;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import scala.Option;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * Spark 4.0's {@code DataFrameWriter.saveAsTable} in overwrite mode drops an existing table and then creates it,
 * before any plan exists (so no rule sees a statement to make atomic). Its last step before the drop is to read the
 * table (to refuse overwriting a table the data reads); this check sees that read on an attached session and
 * refuses the call there, before anything is dropped. PySpark's {@code saveAsTable} never gets here on an attached
 * session: the Python call itself runs through the DDL log.
 */
final class WriteGuard extends AbstractFunction1<LogicalPlan, BoxedUnit> {

  private final SparkSession session;

  WriteGuard(SparkSession session) {
    this.session = session;
  }

  @Override
  public BoxedUnit apply(LogicalPlan plan) {
    if (plan instanceof SubqueryAlias && Bridge.watching(session) && Stack.insideSaveAsTable()) {
      String table = ((SubqueryAlias) plan).identifier().toString();
      HashMap<String, String> parameters = new HashMap<>();
      parameters.put("tableName", table);
      parameters.put("operation", "saveAsTable in overwrite mode from the JVM");
      throw Failures.raise(new AnalysisException("[UNSUPPORTED_FEATURE.TABLE_OPERATION] The feature is not supported: Table "
          + table + " does not support saveAsTable in overwrite mode from the JVM on a session attached to "
          + "spark-ddl-log: Spark 4.0 drops the table before it creates the new one, so a failure in between "
          + "loses it; nothing was dropped. Use CREATE OR REPLACE TABLE ... AS SELECT, "
          + "df.writeTo(t).createOrReplace() from PySpark, or saveAsTable from PySpark (routed atomically)",
          Option.empty(), Option.empty(), Option.empty(), Option.apply("UNSUPPORTED_FEATURE.TABLE_OPERATION"),
          Plans.scalaMap(parameters), new QueryContext[0]));
    }
    return BoxedUnit.UNIT;
  }
}
