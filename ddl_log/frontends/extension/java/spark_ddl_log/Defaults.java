package spark_ddl_log;

import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.util.ResolveDefaultColumns;
import org.apache.spark.sql.types.StructField;

/**
 * A column's DEFAULT folded to the constant Spark stores for the rows written before it ({@code EXISTS_DEFAULT}), as
 * Spark's own statements fold it on every line: the {@code CURRENT_DEFAULT} analysed by {@code ResolveDefaultColumns}
 * (which refuses a DEFAULT the type cannot take, with Spark's reason), then, when it is constant, evaluated into a
 * literal as Spark's constant folding does (4.0's analysis folds already; 4.3's leaves {@code CAST(0 AS BIGINT)} for
 * its ALTER to fold). On the JVM side because a literal's value must keep its exact JVM type, which Py4J's boxing
 * does not.
 */
public final class Defaults {

  private Defaults() {}

  /** The {@code EXISTS_DEFAULT} SQL of {@code field}'s {@code CURRENT_DEFAULT}, for a statement of {@code type}. */
  public static String existsDefault(StructField field, String statementType) {
    Expression analyzed = ResolveDefaultColumns.analyze(
        field, statementType, ResolveDefaultColumns.CURRENT_DEFAULT_COLUMN_METADATA_KEY());
    if (analyzed.foldable()) {
      return Literal.create(analyzed.eval(null), analyzed.dataType()).sql();
    }
    return analyzed.sql();
  }
}
