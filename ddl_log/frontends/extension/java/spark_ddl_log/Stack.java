package spark_ddl_log;

/** What the calling thread is in the middle of, read from its stack (only on the rare plans that ask). */
final class Stack {

  private static final String COMMAND = "org.apache.spark.sql.execution.command.ExecutedCommandExec";
  private static final String WRITING = "org.apache.spark.sql.execution.command.DataWritingCommandExec";
  private static final String WRITER = "org.apache.spark.sql.classic.DataFrameWriter";
  private static final java.util.Set<String> CATALOG_API = java.util.Set.of(
      "org.apache.spark.sql.classic.Catalog", "org.apache.spark.sql.internal.CatalogImpl");

  private Stack() {}

  /** A plan made while a command runs belongs to that command (Spark's CTAS inserts through a plan of its own). */
  static boolean insideCommand() {
    return StackWalker.getInstance().walk(frames -> frames.anyMatch(
        frame -> COMMAND.equals(frame.getClassName()) || WRITING.equals(frame.getClassName())));
  }

  /** Inside {@code DataFrameWriter.saveAsTable}, and not inside a command it runs. */
  static boolean insideSaveAsTable() {
    return StackWalker.getInstance().walk(frames -> frames
        .filter(frame -> WRITER.equals(frame.getClassName()) && "saveAsTable".equals(frame.getMethodName())
            || COMMAND.equals(frame.getClassName()) || WRITING.equals(frame.getClassName()))
        .findFirst()
        .map(frame -> WRITER.equals(frame.getClassName()))
        .orElse(false));
  }

  /** Inside the catalog API ({@code spark.catalog}, which reads its listing plans back), per Spark version. */
  static boolean insideCatalogApi() {
    return StackWalker.getInstance().walk(frames -> frames.anyMatch(
        frame -> CATALOG_API.contains(frame.getClassName())));
  }
}
