package spark_ddl_log;

import org.apache.spark.sql.SparkSession;

/** What a session says about the DDL log: its settings (read per statement: they are runtime settings). */
final class Sessions {

  /** {@code false}: this session runs Spark's own statements (an explicit choice, like allow_non_atomic). */
  static final String ENABLED = "spark.ddlLog.enabled";
  /** {@code true}: a statement the log cannot make atomic runs as Spark runs it instead of being refused. */
  static final String ALLOW_NON_ATOMIC = "spark.ddlLog.allowNonAtomic";

  private Sessions() {}

  static boolean enabled(SparkSession session) {
    return !"false".equalsIgnoreCase(session.conf().get(ENABLED, "true").trim());
  }

  static boolean allowNonAtomic(SparkSession session) {
    return "true".equalsIgnoreCase(session.conf().get(ALLOW_NON_ATOMIC, "false").trim());
  }

  /** The session's identity across calls (the Python side keeps one Python session object per id). */
  static String id(SparkSession session) {
    if (session instanceof org.apache.spark.sql.classic.SparkSession) {
      return ((org.apache.spark.sql.classic.SparkSession) session).sessionUUID();
    }
    return Integer.toHexString(System.identityHashCode(session));
  }
}
