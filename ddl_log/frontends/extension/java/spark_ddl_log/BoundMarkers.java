package spark_ddl_log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.Parameter;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAlias;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.internal.VariableSubstitution;
import scala.Option;
import scala.runtime.AbstractFunction1;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;

/**
 * A routed statement whose parameter markers ({@code spark.sql(text, args)}) Spark binds while it analyses the plan,
 * after the parser handed the statement over: Spark 4.0, Spark 4.1+ with
 * {@code spark.sql.legacy.parameterSubstitution.constantsOnly}, or a statement given no values. Spark's analyzer
 * binds the markers of the plan it parsed; a routed statement's plan is the extension's marker, so the markers
 * Spark's own parser finds in the text are put above it as a projection of them ({@link #parsed}): Spark's
 * {@code BindParameters} binds them there (its own checks of the values included), and {@link StatementCalls} writes
 * the bound values into the text at the markers' places ({@link #ran}), as Spark 4.1+'s parser does: the engine runs
 * and binlogs that text. A marker left without a value stays in the plan, and Spark's analysis raises its own
 * {@code UNBOUND_SQL_PARAMETER}, nothing run.
 */
final class BoundMarkers {

  /** Marks the projection of a routed statement's markers (its {@link Statement}). */
  private static final TreeNodeTag<Object> MARKERS = new TreeNodeTag<>("spark_ddl_log.markers");

  private BoundMarkers() {}

  /**
   * {@code marker} (the plan of the routed {@code text}) under the projection of the text's parameter markers, as
   * Spark's own parser finds them (outside literals, comments and quoted names); {@code marker} itself where the
   * text has none, or Spark cannot parse it.
   */
  static LogicalPlan parsed(SparkSession session, ParserInterface delegate, String text, LogicalPlan marker) {
    if (!mayHoldMarkers(text)) {
      return marker;
    }
    TreeMap<Integer, Parameter> found = new TreeMap<>();
    try {
      collect(delegate.parsePlan(text), found);
    } catch (Exception unparsed) { // the project's own statements, or a refusal Spark raises itself when it runs
      return marker;
    }
    if (found.isEmpty()) {
      return marker;
    }
    List<NamedExpression> values = new ArrayList<>();
    int[] spans = new int[found.size() * 2];
    int i = 0;
    for (Map.Entry<Integer, Parameter> parameter : found.entrySet()) {
      Option<Object> stop = ((Expression) parameter.getValue()).origin().stopIndex();
      if (parameter.getKey() < 0 || stop.isEmpty()) {
        return marker; // a marker without its place in the text: nothing to write the value into
      }
      spans[i++] = parameter.getKey();
      spans[i++] = (Integer) stop.get();
      values.add(new UnresolvedAlias((Expression) parameter.getValue(), Option.empty()));
    }
    // the parser read the text with the session's variables substituted: the markers' places are in that text
    String read = new VariableSubstitution().substitute(text);
    LogicalPlan projection = new Project(Plans.scalaSeq(values), marker);
    projection.setTagValue(MARKERS, new Statement(session, read, spans));
    return projection;
  }

  /** A {@code ?}, or a {@code :} before a name's first letter: the text may hold a marker, which Spark's parse
   * (about a millisecond) decides; a time in a literal ({@code '12:30'}) costs no parse. */
  private static boolean mayHoldMarkers(String text) {
    if (text.indexOf('?') >= 0) {
      return true;
    }
    for (int at = text.indexOf(':'); at >= 0; at = text.indexOf(':', at + 1)) {
      int next = at + 1;
      while (next < text.length() && Character.isWhitespace(text.charAt(next))) {
        next++; // the parser reads ':' and the name as two tokens
      }
      if (next < text.length() && (Character.isLetter(text.charAt(next)) || text.charAt(next) == '_'
          || text.charAt(next) == '`')) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code plan} is the projection {@link #parsed} put over a routed statement. */
  static boolean holds(LogicalPlan plan) {
    return plan.getTagValue(MARKERS).isDefined();
  }

  /**
   * What the statement under {@code plan} (a projection {@link #parsed} made) ran to, its markers' values written
   * into its text; {@code plan} as it is while a marker has no value (Spark's analysis then refuses it).
   */
  static LogicalPlan ran(LogicalPlan plan) {
    return ((Statement) plan.getTagValue(MARKERS).get()).ran((Project) plan);
  }

  private static void collect(LogicalPlan plan, TreeMap<Integer, Parameter> found) {
    plan.foreach(new AbstractFunction1<LogicalPlan, BoxedUnit>() {
      @Override
      public BoxedUnit apply(LogicalPlan node) {
        node.expressions().foreach(new AbstractFunction1<Expression, BoxedUnit>() {
          @Override
          public BoxedUnit apply(Expression expression) {
            collect(expression, found);
            return BoxedUnit.UNIT;
          }
        });
        for (Object inner : CollectionConverters.asJava(node.innerChildren())) {
          if (inner instanceof LogicalPlan) {
            collect((LogicalPlan) inner, found);
          }
        }
        return BoxedUnit.UNIT;
      }
    });
  }

  private static void collect(Expression expression, TreeMap<Integer, Parameter> found) {
    expression.foreach(new AbstractFunction1<Expression, BoxedUnit>() {
      @Override
      public BoxedUnit apply(Expression node) {
        if (node instanceof Parameter) {
          Option<Object> start = node.origin().startIndex();
          found.put(start.isDefined() ? (Integer) start.get() : -1 - found.size(), (Parameter) node);
        } else if (node instanceof SubqueryExpression) {
          collect(((SubqueryExpression) node).plan(), found);
        }
        return BoxedUnit.UNIT;
      }
    });
  }

  /** One routed statement with markers: the text as the parser read it, the markers' places, its one run. */
  private static final class Statement {
    private final SparkSession session;
    private final String text;
    private final int[] spans;
    private LogicalPlan ran;

    Statement(SparkSession session, String text, int[] spans) {
      this.session = session;
      this.text = text;
      this.spans = spans;
    }

    /** Runs once: analysing the same plan again returns the first run (a parsed statement is one statement). */
    synchronized LogicalPlan ran(Project projection) {
      if (ran != null) {
        return ran;
      }
      List<Expression> values = new ArrayList<>();
      for (NamedExpression value : CollectionConverters.asJava(projection.projectList())) {
        values.add(value instanceof Alias ? ((Alias) value).child() : (Expression) value);
      }
      for (Expression value : values) {
        if (!value.resolved() || value instanceof UnresolvedAlias) {
          return projection; // a marker without a value: Spark's UNBOUND_SQL_PARAMETER
        }
      }
      String written = written(values);
      if (Parameters.substitutesAgain(written)) {
        throw Failures.raise(Failures.variableInValue());
      }
      // read again with the values in (the parser's reading had the markers): the engine runs that text
      StatementProcedure statement = new StatementProcedure(session, StatementProcedure.READ_AT_RUN, written);
      ran = Plans.ran(statement, statement.result());
      return ran;
    }

    /** The text with each marker replaced by its value's SQL, as Spark 4.1+'s parser writes values in. */
    private String written(List<Expression> values) {
      StringBuilder out = new StringBuilder(text);
      for (int i = values.size() - 1; i >= 0; i--) {
        out.replace(spans[2 * i], spans[2 * i + 1] + 1, values.get(i).sql());
      }
      return out.toString();
    }
  }
}
