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

  @Override
  public String toString() {
    return "spark_ddl_log";
  }
}
