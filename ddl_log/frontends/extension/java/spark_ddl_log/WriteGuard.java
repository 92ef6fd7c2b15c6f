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
 * Two JVM writer calls that would replace a table of the session catalog not atomically, refused on an attached
 * session before anything is dropped (PySpark's own calls never get here: they run through the DDL log in Python).
 * <ul>
 *   <li>Spark 4.0's {@code DataFrameWriter.saveAsTable} in overwrite mode drops an existing table and then creates
 *   it before any plan exists; its last step before the drop is to read the table (to refuse overwriting a table the
 *   data reads): this check sees that read and refuses the call. From Spark 4.1 the call is a plan
 *   ({@code SaveAsV1TableCommand}) that {@link WriteRouter} runs atomically instead.</li>
 *   <li>Spark 4.1+'s {@code writeTo(t).replace()/createOrReplace()} of such a table (Spark 4.0 refuses them
 *       itself).</li>
 * </ul>
 */
final class WriteGuard extends AbstractFunction1<LogicalPlan, BoxedUnit> {

  /** Spark 4.1+ plans a JVM saveAsTable as this command (SPARK-52451), which {@link WriteRouter} routes. */
  private static final boolean SAVE_AS_TABLE_PLANNED = loads(
      "org.apache.spark.sql.execution.command.SaveAsV1TableCommand");

  private final SparkSession session;

  WriteGuard(SparkSession session) {
    this.session = session;
  }

  @Override
  public BoxedUnit apply(LogicalPlan plan) {
    if (replacesSessionTable(plan) && Bridge.watching(session)) {
      throw refusal(String.valueOf(Reflect.call(Reflect.call(plan, "name"), "identifier")),
          "REPLACE TABLE AS SELECT", "REPLACE TABLE AS SELECT from the JVM writer",
          "Spark 4.1+ runs it on the session catalog as a drop and a create, so a failure in between loses the table",
          "df.writeTo(t).createOrReplace() from PySpark (routed atomically)");
    }
    if (!SAVE_AS_TABLE_PLANNED && plan instanceof SubqueryAlias && Bridge.watching(session)
        && Stack.insideSaveAsTable()) {
      throw refusal(((SubqueryAlias) plan).identifier().toString(), "saveAsTable in overwrite mode from the JVM",
          "saveAsTable in overwrite mode from the JVM",
          "Spark 4.0 drops the table before it creates the new one, so a failure in between loses it",
          "df.writeTo(t).createOrReplace() from PySpark, or saveAsTable from PySpark (routed atomically)");
    }
    return BoxedUnit.UNIT;
  }

  /** Spark's {@code UNSUPPORTED_FEATURE.TABLE_OPERATION} for {@code operation} on {@code table}, saying why and what
   * instead. */
  private static RuntimeException refusal(String table, String operation, String what, String why, String instead) {
    HashMap<String, String> parameters = new HashMap<>();
    parameters.put("tableName", table);
    parameters.put("operation", operation);
    return Failures.raise(new AnalysisException("[UNSUPPORTED_FEATURE.TABLE_OPERATION] The feature is not supported: "
        + "Table " + table + " does not support " + what + " on a session attached to spark-ddl-log: " + why
        + "; nothing was dropped. Use CREATE OR REPLACE TABLE ... AS SELECT, or " + instead,
        Option.empty(), Option.empty(), Option.empty(), Option.apply("UNSUPPORTED_FEATURE.TABLE_OPERATION"),
        Plans.scalaMap(parameters), new QueryContext[0]));
  }

  /**
   * A v2 {@code ReplaceTableAsSelect} ({@code writeTo(t).replace()/createOrReplace()} from the JVM, a Spark Connect
   * client's included) of a table of Spark's own session catalog: Spark 4.0 refuses it for v1 tables; Spark 4.1+ runs
   * it, not atomically. A statement the parser left to Spark ({@code allow_non_atomic}) passes.
   */
  private static boolean loads(String name) {
    try {
      Class.forName(name, false, WriteGuard.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException error) {
      return false;
    }
  }

  private static boolean replacesSessionTable(LogicalPlan plan) {
    if (!"ReplaceTableAsSelect".equals(plan.getClass().getSimpleName()) || plan.getTagValue(Plans.PASSED).isDefined()) {
      return false;
    }
    Object catalog = Reflect.call(Reflect.call(plan, "name"), "catalog");
    return "V2SessionCatalog".equals(catalog.getClass().getSimpleName()); // Spark's own, not Delta's or Iceberg's
  }
}
