package spark_ddl_log;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.ResolvedProcedure;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.plans.logical.Call;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.NoopCommand;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.types.DataTypes;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Every Spark plan node this extension makes, in one place (their constructors are Scala case classes, the part of
 * Spark's API most likely to change between minor versions): a routed statement is a stored-procedure {@link Call}
 * (Spark 4.0's {@code InvokeProcedures} runs it while the statement is analysed, as {@code spark.sql} runs a
 * command at once), a command the engine ran is Spark's own {@link NoopCommand} (a command, so that Spark marks the
 * write as executed where it waits for that: Spark Connect's write handling fails a plan that never reached
 * execution).
 */
final class Plans {

  /** Marks a plan parsed from text the Python side left to Spark: the write rules leave its commands alone. */
  static final TreeNodeTag<Object> PASSED = new TreeNodeTag<>("spark_ddl_log.passed");

  private static final Identifier STATEMENT = Identifier.of(new String[] {"spark_ddl_log"}, "statement");

  private Plans() {}

  static LogicalPlan statementCall(StatementProcedure procedure, String text) {
    LogicalPlan resolved = new ResolvedProcedure(Procedures.CATALOG, STATEMENT, procedure);
    Expression statement = Literal.create(text, DataTypes.StringType);
    return new Call(resolved, scalaSeq(List.of(statement)), true);
  }

  /** What is left of a command the engine ran: Spark's no-op command, naming the command and its table. */
  static LogicalPlan ranByEngine(String command, List<String> table) {
    return new NoopCommand("spark_ddl_log ran " + command, scalaSeq(table));
  }

  static <T> scala.collection.immutable.Seq<T> scalaSeq(List<T> items) {
    return CollectionConverters.asScala(items).toList();
  }

  static scala.collection.immutable.Map<String, String> scalaMap(Map<String, String> map) {
    return scala.collection.immutable.Map.from(CollectionConverters.asScala(map));
  }
}
