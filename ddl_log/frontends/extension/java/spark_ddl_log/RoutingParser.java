package spark_ddl_log;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;

/**
 * The session's parser: Spark's own (the delegate), except that {@code parsePlan} of a statement the Python side
 * routes returns the statement's marker instead ({@link Plans#statement}), which {@link StatementCalls} runs. A
 * dynamic proxy of {@link ParserInterface}, so that the methods Spark adds to that Scala trait in later versions reach
 * the delegate without this class being compiled again.
 *
 * <p>Nothing runs while parsing: a routed statement runs when its plan is analysed (what {@code spark.sql} does at
 * once); a statement Spark cannot parse, or one the Python side leaves to Spark, is parsed by Spark itself and fails
 * or runs exactly as on a session without the extension.
 */
final class RoutingParser implements InvocationHandler {

  private final SparkSession session;
  private final ParserInterface delegate;

  private RoutingParser(SparkSession session, ParserInterface delegate) {
    this.session = session;
    this.delegate = delegate;
  }

  static ParserInterface wrap(SparkSession session, ParserInterface delegate) {
    return (ParserInterface) Proxy.newProxyInstance(RoutingParser.class.getClassLoader(),
        new Class<?>[] {ParserInterface.class}, new RoutingParser(session, delegate));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      switch (method.getName()) {
        case "equals":
          return proxy == args[0];
        case "hashCode":
          return System.identityHashCode(proxy);
        default:
          return "spark-ddl-log parser over " + delegate;
      }
    }
    if (PLAN_METHODS.contains(method.getName()) && args != null && args.length >= 1 && args[0] instanceof String) {
      try {
        return parsePlan((String) args[0], method, args);
      } catch (RuntimeException | Error | ParseException declared) {
        throw declared;
      } catch (Exception undeclared) {
        // Spark 4.1+'s parser raises the AnalysisException UNBOUND_SQL_PARAMETER (a marker without a value), which
        // the interface does not declare: thrown here it would reach the caller as the Proxy's
        // UndeclaredThrowableException. It is raised as it is when the plan is analysed, right after parsing in
        // spark.sql.
        return Plans.statement(StatementProcedure.failing(session, (String) args[0], undeclared));
      }
    }
    return delegated(method, args);
  }

  /** What {@code spark.sql} asks of the parser: {@code parsePlan} (Spark 4.0), {@code parsePlanWithParameters} (Spark
   * 4.1 and later, with or without parameters). */
  private static final java.util.Set<String> PLAN_METHODS = java.util.Set.of("parsePlan", "parsePlanWithParameters");

  private Object delegated(Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(delegate, args);
    } catch (InvocationTargetException error) {
      throw error.getCause();
    }
  }

  /** A refusal found while parsing (no engine to ask) is raised when the statement runs, not here: parsing stays
   * free of effects for callers that only parse (and a Proxy may throw no exception the interface does not
   * declare). */
  private Object parsePlan(String written, Method method, Object[] args) throws Throwable {
    if (!Bridge.watching(session)) {
      return delegated(method, args);
    }
    String text;
    try {
      text = Parameters.substituted(written, args.length > 1 ? args[1] : null);
    } catch (Parameters.VariableInValue refused) {
      if (!Candidates.isCandidate(written)) {
        return delegated(method, args);
      }
      return Plans.statement(StatementProcedure.failing(session, written, Failures.variableInValue()));
    }
    if (text == null || !Candidates.isCandidate(text)) {
      return delegated(method, args);
    }
    long token;
    try {
      token = Bridge.route(session, text);
    } catch (Exception refused) { // not attached, or the Python side is gone: the statement fails when it runs
      return Plans.statement(StatementProcedure.failing(session, text, refused));
    }
    if (token < 0) {
      LogicalPlan plan = (LogicalPlan) delegated(method, args);
      plan.setTagValue(Plans.PASSED, Boolean.TRUE);
      return plan;
    }
    LogicalPlan marker = Plans.statement(new StatementProcedure(session, token, text));
    return Parameters.boundWhileAnalysing(args.length > 1 ? args[1] : null)
        ? BoundMarkers.parsed(session, delegate, text, marker) : marker;
  }
}
