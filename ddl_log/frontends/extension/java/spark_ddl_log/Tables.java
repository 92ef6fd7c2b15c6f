package spark_ddl_log;

import java.util.LinkedHashMap;
import java.util.Map;

/** A Spark {@code CatalogTable} as the Python side reads it (the parts a CREATE TABLE statement says). */
final class Tables {

  private Tables() {}

  static Map<String, Object> describe(Object table) {
    Object identifier = Reflect.call(table, "identifier");
    Object storage = Reflect.call(table, "storage");
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("db", Reflect.option(Reflect.call(identifier, "database")));
    out.put("name", Reflect.call(identifier, "table"));
    out.put("type", String.valueOf(Reflect.call(Reflect.call(table, "tableType"), "name")));
    out.put("provider", Reflect.option(Reflect.call(table, "provider")));
    out.put("schema", String.valueOf(Reflect.call(Reflect.call(table, "schema"), "toDDL")));
    out.put("partition_columns", Reflect.strings(Reflect.call(table, "partitionColumnNames")));
    Object bucket = Reflect.option(Reflect.call(table, "bucketSpec"));
    if (bucket != null) {
      Map<String, Object> spec = new LinkedHashMap<>();
      spec.put("buckets", Reflect.call(bucket, "numBuckets"));
      spec.put("columns", Reflect.strings(Reflect.call(bucket, "bucketColumnNames")));
      spec.put("sort", Reflect.strings(Reflect.call(bucket, "sortColumnNames")));
      out.put("bucket", spec);
    }
    Object location = Reflect.option(Reflect.call(storage, "locationUri"));
    out.put("location", location == null ? null : location.toString());
    out.put("options", Reflect.map(Reflect.call(storage, "properties")));
    out.put("serde", Reflect.option(Reflect.call(storage, "serde")));
    out.put("input_format", Reflect.option(Reflect.call(storage, "inputFormat")));
    out.put("output_format", Reflect.option(Reflect.call(storage, "outputFormat")));
    out.put("properties", Reflect.map(Reflect.call(table, "properties")));
    out.put("comment", Reflect.option(Reflect.call(table, "comment")));
    return out;
  }
}
