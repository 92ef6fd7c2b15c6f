package spark_ddl_log;

import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.ProcedureCatalog;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The procedure catalog a routed statement's call names. It is never registered as a Spark catalog (no
 * {@code spark.sql.catalog.*} setting, absent from SHOW CATALOGS, nothing a user can CALL): the parser builds the
 * resolved call itself.
 */
final class Procedures implements ProcedureCatalog {

  static final Procedures CATALOG = new Procedures();

  private Procedures() {}

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {}

  @Override
  public String name() {
    return "spark_ddl_log";
  }

  @Override
  public UnboundProcedure loadProcedure(Identifier ident) {
    throw new UnsupportedOperationException("spark-ddl-log procedures are not for CALL");
  }

  /** Spark 4.1 and later ask a procedure catalog to list its procedures (no {@code @Override}: 4.0 does not). */
  public Identifier[] listProcedures(String[] namespace) {
    return new Identifier[0];
  }

  @Override
  public String toString() {
    return "spark_ddl_log";
  }
}
