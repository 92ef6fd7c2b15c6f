package spark_ddl_log;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * What a routed statement returns to {@code spark.sql}: no columns for DDL (as Spark's own commands), rows for the
 * project's queries (DESCRIBE HISTORY, SHOW TABLES DROPPED). Columns are strings, longs, ints, doubles or booleans.
 */
final class Results implements LocalScan {

  private final StructType schema;
  private final InternalRow[] rows;

  private Results(StructType schema, InternalRow[] rows) {
    this.schema = schema;
    this.rows = rows;
  }

  static Results of(JsonNode answer) {
    String ddl = answer.path("schema").asText("");
    StructType schema = ddl.isEmpty() ? new StructType() : StructType.fromDDL(ddl);
    StructField[] fields = schema.fields();
    List<InternalRow> rows = new ArrayList<>();
    for (JsonNode row : answer.path("rows")) {
      Object[] values = new Object[fields.length];
      for (int i = 0; i < fields.length; i++) {
        values[i] = value(row.get(i), fields[i].dataType());
      }
      rows.add(new GenericInternalRow(values));
    }
    return new Results(schema, rows.toArray(new InternalRow[0]));
  }

  private static Object value(JsonNode node, DataType type) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (type instanceof LongType) {
      return node.asLong();
    }
    if (type instanceof IntegerType) {
      return node.asInt();
    }
    if (type instanceof DoubleType) {
      return node.asDouble();
    }
    if (type instanceof BooleanType) {
      return node.asBoolean();
    }
    return UTF8String.fromString(node.isTextual() ? node.asText() : node.toString());
  }

  @Override
  public InternalRow[] rows() {
    return rows;
  }

  @Override
  public StructType readSchema() {
    return schema;
  }

  @Override
  public String description() {
    return "spark-ddl-log statement result";
  }
}
