package spark_ddl_log;

import java.util.function.Function;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * The class named in {@code spark.sql.extensions}: puts the DDL log under every session Spark builds with it.
 *
 * <ul>
 *   <li>a hint-resolution rule ({@link FreshRelations}): a cached relation of a table the engine has replaced since
 *       it was built is dropped before the query resolves the table (and a resolution rule,
 *       {@link FreshRelations.Resolved}, on Spark 4.0, whose Hive analyzer runs no extension's hint rules);
 *   <li>the parser ({@link RoutingParser}): a statement the project routes becomes a call of the Python engine,
 *       which a post-hoc resolution rule ({@link StatementCalls}) runs while Spark analyses it;
 *   <li>a post-hoc resolution rule ({@link WriteRouter}): the v1 write and create commands of DataFrame writers and
 *       the catalog API go to the Python engine;
 *   <li>a post-hoc resolution rule ({@link WorkTablesHidden}): SQL listings leave the log's own objects out; a
 *       planner strategy ({@link WorkTablesHidden.Planned}) does so for the catalog API's, which keep their plan;
 *   <li>a check rule ({@link WriteGuard}): Spark 4.0's {@code saveAsTable} in overwrite mode, which drops the table
 *       before any plan exists, is refused for JVM callers (PySpark callers are routed in Python).
 * </ul>
 */
public final class DdlLogExtension extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    extensions.injectHintResolutionRule(perSession(FreshRelations::new));
    extensions.injectResolutionRule(perSession(FreshRelations.Resolved::new));
    extensions.injectParser(new AbstractFunction2<SparkSession, ParserInterface, ParserInterface>() {
      @Override
      public ParserInterface apply(SparkSession session, ParserInterface delegate) {
        return RoutingParser.wrap(session, delegate);
      }
    });
    extensions.injectPostHocResolutionRule(perSession(session -> new StatementCalls()));
    extensions.injectPostHocResolutionRule(perSession(WriteRouter::new));
    extensions.injectPostHocResolutionRule(perSession(WorkTablesHidden::new));
    extensions.injectPlannerStrategy(perSession(WorkTablesHidden.Planned::new));
    extensions.injectCheckRule(perSession(WriteGuard::new));
    return BoxedUnit.UNIT;
  }

  /** What Spark's {@code inject*} calls take: a Scala function making one part per session. */
  private static <T> AbstractFunction1<SparkSession, T> perSession(Function<SparkSession, T> make) {
    return new AbstractFunction1<SparkSession, T>() {
      @Override
      public T apply(SparkSession session) {
        return make.apply(session);
      }
    };
  }
}
