package spark_ddl_log;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.QueryContext;
import org.apache.spark.SparkThrowableHelper;
import org.apache.spark.sql.AnalysisException;
import scala.Option;

/**
 * The Spark exceptions routed statements fail with: an {@link AnalysisException} carrying Spark's error condition
 * where the project's error names one, the project's typed error as its cause ({@link StatementError}); and the
 * refusals when there is no Python engine to run a statement on (never a fallback to Spark's own statement).
 */
final class Failures {

  static final String ATTACH_HINT = "this session has the spark-ddl-log extension (spark.sql.extensions) but no "
      + "DDL log engine is attached in its driver: call ddl_log.attach(spark) in the PySpark driver that owns it, "
      + "or SET spark.ddlLog.enabled=false to run Spark's own, non-atomic statements in this session";

  private Failures() {}

  /** Throw {@code error} from code that declares no checked exception (Spark's exceptions are Scala's: unchecked
   * on the JVM, checked only in javac's eyes). */
  static RuntimeException raise(Throwable error) {
    Failures.<RuntimeException>sneaky(error);
    return new IllegalStateException(error);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> void sneaky(Throwable error) throws E {
    throw (E) error;
  }

  /** The exception {@link #statementFailed} makes, for the Python side to raise itself (a PySpark writer call it
   * routes): the same Spark type and condition as {@code spark.sql} raises, with the typed error as its cause. */
  public static AnalysisException forPython(String errorJson) throws java.io.IOException {
    return statementFailed(new com.fasterxml.jackson.databind.ObjectMapper().readTree(errorJson).get("error"));
  }

  static AnalysisException notAttached() {
    return analysis("[spark-ddl-log] the statement was not run: " + ATTACH_HINT, null, new HashMap<>(), null);
  }

  static AnalysisException variableInValue() {
    return analysis("[spark-ddl-log] the statement was not run: a parameter value holds '${', which the DDL log "
        + "engine's own Spark statements would read as a variable (Spark substitutes variables before it writes the "
        + "values in): write that value into the text, or SET spark.sql.variable.substitute=false", null,
        new HashMap<>(), null);
  }

  static AnalysisException pythonGone(Throwable cause) {
    String home = Bridge.attachedHome();
    return analysis("[spark-ddl-log] the statement was not run to its end: the DDL log engine"
        + (home.isEmpty() ? "" : " of " + home) + " in the Python driver did not answer (" + firstLine(cause)
        + "); whatever it started is undone or finished by recovery when the home is opened again", null,
        new HashMap<>(), cause);
  }

  static AnalysisException statementFailed(JsonNode error) {
    String type = error.path("type").asText("Error");
    String message = error.path("message").asText("");
    String condition = error.path("condition").isTextual() ? error.get("condition").asText() : null;
    if (condition != null && !SparkThrowableHelper.isValidErrorClass(condition)) {
      condition = null;
    }
    Map<String, String> parameters = new HashMap<>();
    JsonNode given = error.path("parameters");
    for (Map.Entry<String, JsonNode> entry : given.properties()) {
      parameters.put(entry.getKey(), entry.getValue().asText());
    }
    StatementError cause = new StatementError(type, message, error.path("id").asLong(-1));
    String shown = (condition == null ? "" : "[" + condition + "] ") + message;
    return analysis(shown, condition, parameters, cause);
  }

  private static AnalysisException analysis(String message, String condition, Map<String, String> parameters,
                                            Throwable cause) {
    return new AnalysisException(message, Option.empty(), Option.empty(), Option.apply(cause),
        Option.apply(condition), Plans.scalaMap(parameters), new QueryContext[0]);
  }

  private static String firstLine(Throwable error) {
    String text = String.valueOf(error.getMessage());
    int end = text.indexOf('\n');
    return error.getClass().getSimpleName() + ": " + (end < 0 ? text : text.substring(0, end));
  }
}
