package spark_ddl_log;

/** What the calling thread is in the middle of, read from its stack (only on the rare plans that ask). */
final class Stack {

  private static final String COMMAND = "org.apache.spark.sql.execution.command.ExecutedCommandExec";
  private static final String WRITING = "org.apache.spark.sql.execution.command.DataWritingCommandExec";
  private static final String WRITER = "org.apache.spark.sql.classic.DataFrameWriter";

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
}
