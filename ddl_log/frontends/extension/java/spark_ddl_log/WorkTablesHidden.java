package spark_ddl_log;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;

/**
 * The log's own objects left out of what a session lists: {@code SHOW TABLES}, {@code SHOW TABLE EXTENDED} and
 * {@code SHOW VIEWS} show no name with the reserved prefix {@code ddllog_} (a statement's or an open transaction's
 * work table, a DataFrame's source view), names no user can give. Spark runs such a listing at once anyway (a
 * command); here it is run while the statement is analysed, with Spark's own command, and the statement becomes its
 * rows without the log's (a local relation: no Spark job, as for the command). Left alone: the engine's own listings
 * (it must see its work tables), a session the log does not watch, a listing whose LIKE pattern itself names the
 * prefix (asked for on purpose, as an operator looking for leftovers does), and the catalog API's {@code listTables},
 * which reads the listing's plan back (it lists them: docs/limitations.md).
 */
final class WorkTablesHidden extends Rule<LogicalPlan> {

  static final String PREFIX = "ddllog_";

  /** The listing plans (per Spark version, analysed) and the column that holds each row's object name. */
  private static final Map<String, String> LISTINGS = Map.of(
      "ShowTables", "tableName", "ShowTablesCommand", "tableName", "ShowTablesExtended", "tableName",
      "ShowViews", "viewName", "ShowViewsCommand", "viewName");

  private final SparkSession session;

  WorkTablesHidden(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    String column = LISTINGS.get(plan.getClass().getSimpleName());
    if (column == null || !Bridge.watching(session) || asksForPrefix(plan) || Stack.insideCatalogApi()) {
      return plan;
    }
    int index = plan.schema().getFieldIndex(column).getOrElse(() -> -1);
    if (index < 0) {
      return plan;
    }
    Row[] rows;
    Bridge.enterInternal();  // the listing as Spark runs it: this rule leaves it alone
    try {
      rows = (Row[]) org.apache.spark.sql.classic.Dataset.ofRows(
          (org.apache.spark.sql.classic.SparkSession) session, plan).collect();
    } finally {
      Bridge.exitInternal();
    }
    List<Row> listed = new ArrayList<>();
    for (Row row : rows) {
      if (row.isNullAt(index) || !row.getString(index).toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
        listed.add(row);
      }
    }
    return LocalRelation.fromExternalRows(plan.output(), Plans.scalaSeq(listed));
  }

  /** Whether the listing's LIKE pattern names the reserved prefix. */
  private static boolean asksForPrefix(LogicalPlan plan) {
    for (String member : new String[] {"pattern", "tableIdentifierPattern"}) {
      try {
        Object pattern = Reflect.option(plan.getClass().getMethod(member).invoke(plan));
        return pattern != null && String.valueOf(pattern).toLowerCase(Locale.ROOT).contains(PREFIX);
      } catch (ReflectiveOperationException error) {
        // this plan names its pattern otherwise
      }
    }
    return false;
  }
}
