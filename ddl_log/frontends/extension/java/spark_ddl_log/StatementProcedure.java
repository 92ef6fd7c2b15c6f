package spark_ddl_log;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * One routed statement: run by the Python engine of the session's driver when Spark analyses its plan
 * ({@link StatementCalls}). It runs once: analysing the same plan again returns the first result (a parsed statement
 * is one statement). A procedure too, so that its result shows it as Spark shows a call it ran.
 */
final class StatementProcedure implements UnboundProcedure, BoundProcedure {

  /** A statement read when it runs (its text known only then: {@link BoundMarkers}). */
  static final long READ_AT_RUN = -1;

  private final SparkSession session;
  private final long token;
  private final String text;
  private final Exception refusal;
  private Results result;

  StatementProcedure(SparkSession session, long token, String text) {
    this(session, token, text, null);
  }

  private StatementProcedure(SparkSession session, long token, String text, Exception refusal) {
    this.session = session;
    this.token = token;
    this.text = text;
    this.refusal = refusal;
  }

  /** A statement that fails with {@code refusal} when it runs. */
  static StatementProcedure failing(SparkSession session, String text, Exception refusal) {
    return new StatementProcedure(session, -1, text, refusal);
  }

  String text() {
    return text;
  }

  @Override
  public String name() {
    return "statement";
  }

  @Override
  public String description() {
    return "a statement run by the spark-ddl-log engine";
  }

  @Override
  public BoundProcedure bind(StructType inputType) {
    return this;
  }

  @Override
  public ProcedureParameter[] parameters() {
    return new ProcedureParameter[] {ProcedureParameter.in("statement", DataTypes.StringType).build()};
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  /** Run the statement (the first time; later calls return the first result) or raise its refusal. */
  synchronized Results result() {
    if (refusal != null) {
      throw Failures.raise(refusal);
    }
    if (result == null) {
      result = Bridge.run(session, token, text);
    }
    return result;
  }

  /** Spark's own way in, were Spark to invoke the call shown in the result (never: it is not executable). */
  @Override
  public Iterator<Scan> call(InternalRow input) {
    return List.<Scan>of(result()).iterator();
  }

  @Override
  public String toString() {
    return "spark_ddl_log.statement";
  }
}
