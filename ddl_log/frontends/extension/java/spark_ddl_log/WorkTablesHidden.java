package spark_ddl_log;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.SparkStrategy;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.runtime.AbstractFunction0;

/**
 * The log's own objects left out of what a session lists: {@code SHOW TABLES}, {@code SHOW TABLE EXTENDED} and
 * {@code SHOW VIEWS} show no name with the reserved prefix {@code ddllog_} (a statement's or an open transaction's
 * work table, a DataFrame's source view), names no user can give. Spark runs such a listing at once anyway (a
 * command); here it is run while the statement is analysed, with Spark's own command, and the statement becomes its
 * rows without the log's (a local relation: no Spark job, as for the command). Left alone: the engine's own listings
 * (it must see its work tables), a session the log does not watch, a listing whose LIKE pattern itself names the
 * prefix (asked for on purpose, as an operator looking for leftovers does). The catalog API's {@code listTables}
 * (Scala, Java, PySpark, a Spark Connect client's) reads the listing's plan back from the analysed statement: there the
 * listing stays as it is, and {@link Planned} plans it as these rows.
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
    if (!LISTINGS.containsKey(plan.getClass().getSimpleName()) || Stack.insideCatalogApi()) {
      return plan;  // the catalog API's listing keeps its plan (Planned filters it)
    }
    LogicalPlan visible = visibleRows(session, plan);
    return visible == null ? plan : visible;
  }

  /** {@code plan}'s rows without the log's, run now (null: not a listing the log hides on this session). */
  static LogicalPlan visibleRows(SparkSession session, LogicalPlan plan) {
    String column = LISTINGS.get(plan.getClass().getSimpleName());
    if (column == null || !Bridge.watching(session) || asksForPrefix(plan)) {
      return null;
    }
    int index = plan.schema().getFieldIndex(column).getOrElse(() -> -1);
    if (index < 0) {
      return null;
    }
    InternalRow[] rows;
    Bridge.enterInternal();  // the listing as Spark plans and runs it: the rule and Planned leave it alone
    try {
      SparkPlan command = session.sessionState().planner().plan(plan).next();
      rows = ((org.apache.spark.sql.classic.SparkSession) session).withActive(new AbstractFunction0<InternalRow[]>() {
        @Override
        public InternalRow[] apply() {
          return command.executeCollect();  // a command's rows, no job (as Spark runs it)
        }
      });
    } finally {
      Bridge.exitInternal();
    }
    List<InternalRow> listed = new ArrayList<>();
    for (InternalRow row : rows) {
      if (row.isNullAt(index) || !row.getUTF8String(index).toString().toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
        listed.add(row.copy());
      }
    }
    return new LocalRelation(plan.output(), Plans.scalaSeq(listed), false, Option.empty());
  }

  /**
   * The listings the rule leaves (the catalog API's), planned as their rows without the log's: an injected planner
   * strategy, tried before Spark's own, when the API runs the listing.
   */
  static final class Planned extends SparkStrategy {

    private static final Seq<SparkPlan> NOT_HERE = Plans.scalaSeq(List.of());  // Spark's own strategies plan it

    private final SparkSession session;

    Planned(SparkSession session) {
      this.session = session;
    }

    @Override
    public Seq<SparkPlan> apply(LogicalPlan plan) {
      LogicalPlan visible = visibleRows(session, plan);
      return visible == null ? NOT_HERE : Plans.scalaSeq(List.of(planLater(visible)));
    }
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
