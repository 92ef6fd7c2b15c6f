package spark_ddl_log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.apache.spark.sql.SparkSession;

/**
 * The one way between the JVM hooks and the Python engine of this driver: the registered {@link PythonHandler}
 * (one per JVM: a PySpark driver attaches its Spark to one DDL log home), and the per-thread mark of work the
 * engine itself does, which must run as Spark runs it.
 *
 * <p>The mark: PySpark pins each Python thread to one JVM thread (Py4J's ClientServer), and a callback into Python
 * made by a JVM thread is answered on a connection whose calls back into the JVM run on that same JVM thread. So the
 * depth counter below, raised around every call into Python, covers every statement the engine runs for it. Engine
 * work Python starts on its own (opening a home, recovery, the Python API on an attached engine) raises it through
 * {@link #enterInternal} on its thread first.
 */
public final class Bridge {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);
  private static volatile PythonHandler handler;
  private static volatile String home = "";

  private Bridge() {}

  /** Register the Python side of this driver (replacing an earlier one of the same process). */
  public static synchronized void attach(PythonHandler python, String attachedHome) {
    handler = python;
    home = attachedHome;
  }

  /** Forget the Python side: routed statements fail (never run as Spark's own) until the next attach. */
  public static synchronized void detach() {
    handler = null;
    home = "";
  }

  public static String attachedHome() {
    return handler == null ? "" : home;
  }

  /** The calling thread works for the engine: its statements run as Spark runs them until {@link #exitInternal}. */
  public static void enterInternal() {
    DEPTH.get()[0]++;
  }

  public static void exitInternal() {
    int[] depth = DEPTH.get();
    depth[0] = Math.max(0, depth[0] - 1);
  }

  /** Whether the calling thread works for the engine now. */
  public static boolean internal() {
    return DEPTH.get()[0] > 0;
  }

  /** Whether the engine should see what {@code session} does on this thread now. */
  static boolean watching(SparkSession session) {
    return !internal() && Sessions.enabled(session);
  }

  static long route(SparkSession session, String text) {
    JsonNode answer = call(handler -> handler.route(session, Sessions.id(session), text,
        Sessions.allowNonAtomic(session)));
    return answer.has("pass") ? -1 : answer.get("token").asLong();
  }

  static Results run(SparkSession session, long token, String text) {
    JsonNode answer = call(handler -> handler.run(session, Sessions.id(session), token, text,
        Sessions.allowNonAtomic(session)));
    return Results.of(answer);
  }

  /** True: the engine ran it; false: Spark runs the command as it is (the Python side said so). */
  static boolean write(SparkSession session, String request, Object dataset) {
    JsonNode answer = call(handler -> handler.write(session, Sessions.id(session), request, dataset,
        Sessions.allowNonAtomic(session)));
    return !answer.has("pass");
  }

  /** Tell the Python side that the session {@code sessionId} is gone (its open transaction is rolled back); with
   * no Python side (detached, or gone) there is nothing to tell: its recovery undoes what was open. */
  static void sessionClosed(String sessionId) {
    if (handler == null) {
      return;
    }
    try {
      call(handler -> handler.closed(sessionId));
    } catch (Exception gone) { // a listener never throws: the bus would only log it
      return;
    }
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (IOException error) {
      throw new IllegalStateException(error);
    }
  }

  private interface Call {
    String on(PythonHandler handler);
  }

  private static JsonNode call(Call call) {
    PythonHandler python = handler;
    if (python == null) {
      throw Failures.raise(Failures.notAttached());
    }
    int[] depth = DEPTH.get();
    depth[0]++;
    String answer;
    try {
      answer = call.on(python);
    } catch (RuntimeException error) { // Py4J: the Python side is gone or its callback broke
      throw Failures.raise(Failures.pythonGone(error));
    } finally {
      depth[0]--;
    }
    if (answer == null) {
      throw Failures.raise(Failures.pythonGone(new IllegalStateException("the Python handler returned nothing")));
    }
    JsonNode node;
    try {
      node = JSON.readTree(answer);
    } catch (IOException error) {
      throw Failures.raise(Failures.pythonGone(error));
    }
    if (node.has("error")) {
      throw Failures.raise(Failures.statementFailed(node.get("error")));
    }
    return node;
  }
}
