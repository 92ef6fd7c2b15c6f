package spark_ddl_log;

/**
 * What the Python side implements (a Py4J proxy registered by {@code ddl_log.attach}). Every answer is one JSON
 * object; a failure is {@code {"error": {...}}} (see {@link Failures}), never an exception across the bridge.
 */
public interface PythonHandler {

  /** Whether the engine runs {@code text}: {@code {"pass": true}} (Spark parses it) or {@code {"token": n}}. */
  String route(Object session, String sessionId, String text, boolean allowNonAtomic);

  /** Run a statement {@link #route} kept ({@code token}, or -1: read {@code text} again): its result rows. */
  String run(Object session, String sessionId, long token, String text, boolean allowNonAtomic);

  /** Run a DataFrame writer's or the catalog API's command ({@code request}, its query as {@code dataset}). */
  String write(Object session, String sessionId, String request, Object dataset, boolean allowNonAtomic);

  /** The session {@code sessionId} is gone (a Thrift server's client disconnected): its open transaction ends. */
  String closed(String sessionId);
}
