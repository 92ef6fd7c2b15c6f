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
 * One routed statement: run by the Python engine of the session's driver when Spark analyses its call. It runs
 * once: analysing the same plan again returns the first result (a parsed statement is one statement).
 */
final class StatementProcedure implements UnboundProcedure, BoundProcedure {

  private final SparkSession session;
  private final long token;
  private final Exception refusal;
  private Results result;

  StatementProcedure(SparkSession session, long token) {
    this(session, token, null);
  }

  private StatementProcedure(SparkSession session, long token, Exception refusal) {
    this.session = session;
    this.token = token;
    this.refusal = refusal;
  }

  /** A statement that fails with {@code refusal} when it runs. */
  static StatementProcedure failing(SparkSession session, Exception refusal) {
    return new StatementProcedure(session, -1, refusal);
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

  @Override
  public synchronized Iterator<Scan> call(InternalRow input) {
    if (refusal != null) {
      throw Failures.raise(refusal);
    }
    if (result == null) {
      result = Bridge.run(session, token, input.getUTF8String(0).toString());
    }
    return List.<Scan>of(result).iterator();
  }

  @Override
  public String toString() {
    return "spark_ddl_log.statement";
  }
}
