package spark_ddl_log;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.sql.SparkSession;

/**
 * When a Thrift server's client session ends (the client closed its connection or dropped it: Hive closes the
 * session either way; or it stayed idle past Hive's timeout), the Python side is told which Spark session it was, and
 * rolls back that session's open DDL transaction. This listener hears the server's events on Spark's listener bus.
 *
 * <p>The server's events name its own session id, not the Spark session: the two are joined by the statement that
 * opened the transaction ({@link #watch}). The server runs each statement under a job group named by the statement's
 * id (set on the thread before Spark parses the statement), and posts the statement's start event with that id and
 * its session's id; the bus delivers a session's events in order, so its close comes after that start.
 */
public final class SessionEnds extends SparkListener {

  private static final String GROUP = "spark.jobGroup.id";
  private static final String EVENTS = "org.apache.spark.sql.hive.thriftserver.ui.SparkListenerThriftServer";
  private static final int KEPT = 4096;
  private static SparkContext installedOn;
  private static SessionEnds current;

  /** Statement id to server session id, of statements started and not closed yet. */
  private final Map<String, String> started = bounded();
  /** Statement id to Spark session id: watched before the bus delivered the statement's start. */
  private final Map<String, String> waiting = bounded();
  /** Server session id to Spark session id: the sessions whose end the Python side hears of. */
  private final Map<String, String> watched = new HashMap<>();

  /** Listen on {@code session}'s context (once per context). */
  public static synchronized void install(SparkSession session) {
    SparkContext context = session.sparkContext();
    if (installedOn != context) {
      current = new SessionEnds();
      context.addSparkListener(current);
      installedOn = context;
    }
  }

  /** The statement the calling thread runs for {@code session} opened its transaction: when the server session it
   * came from ends, the Python side is told. Nothing for a statement no Thrift server runs (no job group of it). */
  public static void watch(SparkSession session) {
    SessionEnds listener;
    synchronized (SessionEnds.class) {
      listener = current;
    }
    String statement = session.sparkContext().getLocalProperty(GROUP);
    if (listener != null && statement != null) {
      listener.half(statement, null, Sessions.id(session));
    }
  }

  @Override
  public void onOtherEvent(SparkListenerEvent event) {
    String name = event.getClass().getName();
    if (!name.startsWith(EVENTS)) {
      return;
    }
    switch (name.substring(EVENTS.length())) {
      case "OperationStart":
        half(text(event, "id"), text(event, "sessionId"), null);
        break;
      case "OperationClosed":
        closed(text(event, "id"));
        break;
      case "SessionClosed":
        ended(text(event, "sessionId"));
        break;
      default:
        break;
    }
  }

  /** One half of a statement's pair (its server session from the bus, or its Spark session from {@link #watch}):
   * with the other half there, the server session is watched; else this half waits for the other. */
  private synchronized void half(String statement, String serverSession, String sparkSession) {
    String server = serverSession != null ? serverSession : started.remove(statement);
    String spark = sparkSession != null ? sparkSession : waiting.remove(statement);
    if (server != null && spark != null) {
      watched.put(server, spark);
    } else if (server != null) {
      started.put(statement, server);
    } else {
      waiting.put(statement, spark);
    }
  }

  private synchronized void closed(String statement) {
    started.remove(statement);
  }

  private void ended(String serverSession) {
    String sparkSession;
    synchronized (this) {
      sparkSession = watched.remove(serverSession);
    }
    if (sparkSession != null) {
      Bridge.sessionClosed(sparkSession);
    }
  }

  private static String text(Object event, String member) {
    return String.valueOf(Reflect.call(event, member));
  }

  private static <K, V> Map<K, V> bounded() {
    return new LinkedHashMap<K, V>() {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > KEPT;
      }
    };
  }
}
