package spark_ddl_log;

/**
 * The cause of a routed statement's Spark exception: the project's typed error, by name and message. {@code id}
 * finds the Python error object itself ({@code ddl_log.statement_error(exc)}) while this process keeps it.
 */
public final class StatementError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String errorType;
  private final long errorId;

  StatementError(String errorType, String message, long errorId) {
    super(errorType + ": " + message, null, false, false);
    this.errorType = errorType;
    this.errorId = errorId;
  }

  public String getErrorType() {
    return errorType;
  }

  public long getErrorId() {
    return errorId;
  }
}
