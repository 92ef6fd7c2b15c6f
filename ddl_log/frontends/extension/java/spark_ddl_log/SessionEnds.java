package spark_ddl_log;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerEvent;
import org.apache.spark.sql.SparkSession;

/**
 * When a server's client session ends, the Python side is told which Spark session it was, and rolls back that
 * session's open DDL transaction. A Thrift server's session ends when its client closes its connection or drops it
 * (Hive closes the session either way) or idles past Hive's timeout; a Spark Connect session when its client releases
 * it ({@code spark.stop()}) or it expires. This listener hears the servers' events on Spark's listener bus.
 *
 * <p>The servers' events name their own session ids, not the Spark session: the two are joined by the statement that
 * opened the transaction ({@link #watch}). The Thrift server runs each statement under a job group named by the
 * statement's id, Spark Connect each operation under a job tag of its own (both set on the thread before Spark parses
 * the statement); each posts the statement's start event with that name and its session's id. The bus delivers a
 * session's events in order, so its end comes after that start.
 */
public final class SessionEnds extends SparkListener {

  private static final String GROUP = "spark.jobGroup.id";
  private static final String CONNECT_TAG = "SparkConnect_OperationTag";
  private static final String THRIFT = "org.apache.spark.sql.hive.thriftserver.ui.SparkListenerThriftServer";
  private static final String CONNECT = "org.apache.spark.sql.connect.service.SparkListenerConnect";
  private static final int KEPT = 4096;

  /** What a server event says: a statement started ({@code statement} and {@code session} its members' names), a
   * statement closed, or a session ended ({@code server} keeps the two servers' session ids apart). */
  private record Event(String kind, String statement, String session, String server) {}

  private static final Map<String, Event> EVENTS = Map.of(
      THRIFT + "OperationStart", new Event("start", "id", "sessionId", "thrift"),
      THRIFT + "OperationClosed", new Event("closed", "id", null, "thrift"),
      THRIFT + "SessionClosed", new Event("ended", null, "sessionId", "thrift"),
      CONNECT + "OperationStarted", new Event("start", "jobTag", "sessionId", "connect"),
      CONNECT + "OperationClosed", new Event("closed", "jobTag", null, "connect"),
      CONNECT + "SessionClosed", new Event("ended", null, "sessionId", "connect"));

  private static SparkContext installedOn;
  private static SessionEnds current;

  /** Statement name to server session, of statements started and not closed yet. */
  private final Map<String, String> started = bounded();
  /** Statement name to Spark session id: watched before the bus delivered the statement's start. */
  private final Map<String, String> waiting = bounded();
  /** Server session to Spark session id: the sessions whose end the Python side hears of. */
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
   * came from ends, the Python side is told. Nothing for a statement no server runs (no job group or tag of one). */
  public static void watch(SparkSession session) {
    SessionEnds listener;
    synchronized (SessionEnds.class) {
      listener = current;
    }
    String statement = statementOf(session.sparkContext());
    if (listener != null && statement != null) {
      listener.half(statement, null, Sessions.id(session));
    }
  }

  private static String statementOf(SparkContext context) {
    String group = context.getLocalProperty(GROUP);
    if (group != null) {
      return group;
    }
    for (String tag : scala.jdk.javaapi.CollectionConverters.asJava(context.getJobTags())) {
      if (tag.startsWith(CONNECT_TAG)) {
        return tag;
      }
    }
    return null;
  }

  @Override
  public void onOtherEvent(SparkListenerEvent event) {
    Event said = EVENTS.get(event.getClass().getName());
    if (said == null) {
      return;
    }
    String session = said.session() == null ? null : said.server() + " " + text(event, said.session());
    switch (said.kind()) {
      case "start":
        half(text(event, said.statement()), session, null);
        break;
      case "closed":
        closed(text(event, said.statement()));
        break;
      default:
        ended(session);
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
