package spark_ddl_log;

import java.lang.reflect.Constructor;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.ResolvedProcedure;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.plans.logical.Call;
import org.apache.spark.sql.catalyst.plans.logical.CommandResult;
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.NoopCommand;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.execution.LocalTableScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.DataTypes;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Every Spark plan node this extension makes, in one place (their constructors are Scala case classes, the part of
 * Spark's API most likely to change between minor versions).
 * <ul>
 *   <li>A routed statement parses to an empty {@link LocalRelation} marked with its {@link StatementProcedure}: a
 *       leaf that Spark's analyzer passes through in well under a millisecond, where a stored-procedure
 *       {@link Call} cost 3 to 6 ms of analysis (its rules, and Spark's whole optimizer run over it by
 *       {@code InvokeProcedures}; measured). {@link StatementCalls} runs it while the statement is analysed (as
 *       {@code spark.sql} runs a command at once) and puts Spark's {@link CommandResult} of it in its place, what
 *       Spark 4.1+'s own {@code InvokeProcedures} makes of a call: the command shown is the call
 *       {@code spark_ddl_log.statement(<text>)} (never analysed, never registered as a catalog), and Spark Connect
 *       sees a command that ran.</li>
 *   <li>A command the engine ran is Spark's own {@link NoopCommand} (a command, so that Spark marks the write as
 *       executed where it waits for that: Spark Connect's write handling fails a plan that never reached
 *       execution).</li>
 * </ul>
 */
final class Plans {

  /** Marks a plan parsed from text the Python side left to Spark: the write rules leave its commands alone. */
  static final TreeNodeTag<Object> PASSED = new TreeNodeTag<>("spark_ddl_log.passed");

  /** Marks the plan of a routed statement (its {@link StatementProcedure}). */
  private static final TreeNodeTag<Object> ROUTED = new TreeNodeTag<>("spark_ddl_log.statement");

  private static final Identifier STATEMENT = Identifier.of(new String[] {"spark_ddl_log"}, "statement");

  private Plans() {}

  /** The plan of a routed statement: an empty local relation marked with it, for {@link StatementCalls}. */
  static LogicalPlan statement(StatementProcedure procedure) {
    LogicalPlan marker = new LocalRelation(scalaSeq(List.of()), scalaSeq(List.of()), false, Option.empty());
    marker.setTagValue(ROUTED, procedure);
    return marker;
  }

  /** The routed statement {@code plan} is the marker of ({@link #statement}), or null. */
  static StatementProcedure routed(LogicalPlan plan) {
    Option<Object> procedure = plan.getTagValue(ROUTED);
    return procedure.isDefined() ? (StatementProcedure) procedure.get() : null;
  }

  /** What Spark makes of a stored-procedure call it ran: its result rows, the call
   * {@code spark_ddl_log.statement(<text>)} shown as the command. */
  @SuppressWarnings("unchecked")
  static LogicalPlan ran(StatementProcedure procedure, Results result) {
    Seq<Attribute> output = (Seq<Attribute>) (Seq<?>) DataTypeUtils.toAttributes(result.readSchema());
    Seq<InternalRow> rows = scalaSeq(Arrays.asList(result.rows()));
    LogicalPlan resolved = new ResolvedProcedure(Procedures.CATALOG, STATEMENT, procedure);
    Expression text = Literal.create(procedure.text(), DataTypes.StringType);
    LogicalPlan call = new Call(resolved, scalaSeq(List.of(text)), false);
    return new CommandResult(output, call, localScan(output, rows), rows);
  }

  /** Spark's {@code LocalTableScanExec} of {@code rows}: three fields in Spark 4.0, four from 4.1 (the last given
   * its default, as Spark's own calls leave it). */
  private static SparkPlan localScan(Seq<Attribute> output, Seq<InternalRow> rows) {
    Object[] values = LOCAL_SCAN_DEFAULTS.clone();
    values[0] = output;
    values[1] = rows;
    try {
      return (SparkPlan) LOCAL_SCAN.newInstance(values);
    } catch (ReflectiveOperationException error) {
      throw new IllegalStateException("LocalTableScanExec is not as this extension knows it on this Spark", error);
    }
  }

  private static final Constructor<?> LOCAL_SCAN = LocalTableScanExec.class.getConstructors()[0];

  /** The constructor's arguments but the output and the rows: no stream, then Spark's defaults (found once). */
  private static final Object[] LOCAL_SCAN_DEFAULTS = localScanDefaults();

  private static Object[] localScanDefaults() {
    Object[] values = new Object[LOCAL_SCAN.getParameterCount()];
    values[2] = Option.empty();
    try {
      Object companion = Class.forName(LocalTableScanExec.class.getName() + "$").getField("MODULE$").get(null);
      for (int i = 3; i < values.length; i++) {
        values[i] = companion.getClass().getMethod("$lessinit$greater$default$" + (i + 1)).invoke(companion);
      }
    } catch (ReflectiveOperationException error) {
      throw new IllegalStateException("LocalTableScanExec is not as this extension knows it on this Spark", error);
    }
    return values;
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
