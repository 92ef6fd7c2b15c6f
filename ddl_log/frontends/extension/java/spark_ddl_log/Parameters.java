package spark_ddl_log;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.internal.VariableSubstitution;
import scala.Tuple2;

/**
 * The text a statement with parameter markers ({@code spark.sql(text, args)}) is, read as Spark reads it: Spark
 * 4.1+'s parser substitutes the session's variables ({@code ${name}}), then writes the values into the text before
 * it parses ({@code ParameterHandler.substituteParameters}, unless
 * {@code spark.sql.legacy.parameterSubstitution.constantsOnly} keeps them for the analyzer), so the engine reads, runs
 * and binlogs the same text with both written in. Where Spark binds markers while analysing (Spark 4.0, the legacy
 * setting), {@link BoundMarkers} writes the values in once Spark's analyzer has bound them.
 */
final class Parameters {

  private static final Object HANDLER = handler();
  private static final Method SUBSTITUTE = method(HANDLER, "substituteParameters", 2);
  private static final Method LEGACY = method(SQLConf.get(), "legacyParameterSubstitutionConstantsOnly", 0);

  private Parameters() {}

  /**
   * {@code text} with the values of {@code context} (a {@code ParameterContext}, or null) written in as Spark's parser
   * writes them; {@code text} itself where there are none or Spark does not write them in; null where Spark refuses
   * them (an unbound marker): Spark's own parse then raises its error.
   *
   * @throws VariableInValue a value holds {@code ${}: the engine's own Spark statements would substitute it as a
   *     variable, which Spark, having substituted variables before writing the values in, does not
   */
  static String substituted(String text, Object context) throws VariableInValue {
    if (context == null || SUBSTITUTE == null || LEGACY == null || legacy() || empty(context)) {
      return text;
    }
    String written;
    try {
      String variablesIn = new VariableSubstitution().substitute(text);
      written = (String) ((Tuple2<?, ?>) SUBSTITUTE.invoke(HANDLER, variablesIn, context))._1();
    } catch (InvocationTargetException refused) {
      return null;
    } catch (IllegalAccessException | ClassCastException error) {
      throw new IllegalStateException("Spark's ParameterHandler is not as this extension knows it", error);
    }
    if (substitutesAgain(written)) {
      throw new VariableInValue();
    }
    return written;
  }

  /**
   * Whether {@code written}, a statement with parameter values written in, holds {@code ${} where the session
   * substitutes variables: the engine's own Spark statements would read a value's {@code ${} as a variable, which
   * Spark, having substituted variables before writing the values in, does not.
   */
  static boolean substitutesAgain(String written) {
    return written.contains("${") && SQLConf.get().variableSubstituteEnabled();
  }

  /**
   * Whether Spark binds the markers of a statement parsed with {@code context} while it analyses the plan
   * ({@link BoundMarkers}) rather than writing their values into the text first ({@link #substituted}): Spark 4.0,
   * the legacy setting, or no values given.
   */
  static boolean boundWhileAnalysing(Object context) {
    return context == null || SUBSTITUTE == null || LEGACY == null || legacy() || empty(context);
  }

  /** A parameter value holds {@code ${}, which the engine cannot keep from being read as a variable. */
  static final class VariableInValue extends Exception {
    private static final long serialVersionUID = 1L;
  }

  /** Whether {@code context} has no values (Spark 4.1+ asks {@code parsePlanWithParameters} with or without). */
  private static boolean empty(Object context) {
    for (String name : new String[] {"params", "args"}) {
      Method values = method(context, name, 0);
      if (values != null) {
        try {
          return ((scala.collection.Iterable<?>) values.invoke(context)).isEmpty();
        } catch (IllegalAccessException | InvocationTargetException | ClassCastException error) {
          throw new IllegalStateException("Spark's ParameterContext is not as this extension knows it", error);
        }
      }
    }
    return false;
  }

  private static boolean legacy() {
    try {
      return Boolean.TRUE.equals(LEGACY.invoke(SQLConf.get()));
    } catch (IllegalAccessException | InvocationTargetException error) {
      throw new IllegalStateException("SQLConf is not as this extension knows it", error);
    }
  }

  private static Object handler() {
    try {
      return Class.forName("org.apache.spark.sql.catalyst.parser.ParameterHandler$").getField("MODULE$").get(null);
    } catch (ReflectiveOperationException absent) { // Spark 4.0
      return null;
    }
  }

  private static Method method(Object target, String name, int parameters) {
    if (target == null) {
      return null;
    }
    for (Method method : target.getClass().getMethods()) {
      if (method.getName().equals(name) && method.getParameterCount() == parameters) {
        return method;
      }
    }
    return null;
  }
}
