package spark_ddl_log;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.spark.sql.internal.SQLConf;
import scala.Tuple2;

/**
 * The text a statement with parameter markers ({@code spark.sql(text, args)}) is, read as Spark reads it: Spark
 * 4.1+'s parser writes the values into the text before it parses ({@code ParameterHandler.substituteParameters},
 * unless {@code spark.sql.legacy.parameterSubstitution.constantsOnly} keeps them for the analyzer), so the engine
 * reads, runs and binlogs the same text with the values written in. Spark 4.0 binds markers while analysing, after
 * the parser has handed the statement over: there the text stays as written (README's limits).
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
   */
  static String substituted(String text, Object context) {
    if (context == null || SUBSTITUTE == null || LEGACY == null || legacy()) {
      return text;
    }
    try {
      return (String) ((Tuple2<?, ?>) SUBSTITUTE.invoke(HANDLER, text, context))._1();
    } catch (InvocationTargetException refused) {
      return null;
    } catch (IllegalAccessException | ClassCastException error) {
      throw new IllegalStateException("Spark's ParameterHandler is not as this extension knows it", error);
    }
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
