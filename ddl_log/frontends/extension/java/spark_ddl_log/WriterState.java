package spark_ddl_log;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;

/**
 * The settings of a PySpark writer's JVM object, for the calls Spark gives no plan a rule could see (4.0's
 * {@code saveAsTable} in overwrite mode, which drops first; {@code writeTo(t).replace()} and its kin, refused for v1
 * tables before any rule runs): the Python side runs them through the DDL log itself. Read from the writers' private
 * fields, by name (Spark has no getters for them).
 */
public final class WriterState {

  private WriterState() {}

  /** A {@code DataFrameWriter}: format, save mode, options, partitioning, bucketing, clustering. */
  public static String ofWriter(Object writer) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("source", Reflect.field(writer, "source"));
    out.put("mode", String.valueOf(Reflect.field(writer, "curmode")));
    out.put("options", Reflect.map(Reflect.call(Reflect.field(writer, "extraOptions"), "originalMap")));
    out.put("partition_by", Reflect.strings(Reflect.field(writer, "partitioningColumns")));
    out.put("bucket_by", Reflect.strings(Reflect.field(writer, "bucketColumnNames")));
    out.put("buckets", Reflect.option(Reflect.field(writer, "numBuckets")));
    out.put("sort_by", Reflect.strings(Reflect.field(writer, "sortColumnNames")));
    out.put("cluster_by", Reflect.strings(Reflect.field(writer, "clusteringColumns")));
    return Bridge.json(out);
  }

  /** A {@code DataFrameWriterV2}: table name parts, provider, options, table properties, partitioning. */
  public static String ofWriterV2(Object writer) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("table", Reflect.strings(Reflect.field(writer, "tableName")));
    out.put("provider", Reflect.option(Reflect.field(writer, "provider")));
    out.put("options", Reflect.map(Reflect.field(writer, "options")));
    out.put("properties", Reflect.map(Reflect.field(writer, "properties")));
    List<Map<String, Object>> transforms = new ArrayList<>();
    Object partitioning = Reflect.option(Reflect.field(writer, "partitioning"));
    if (partitioning != null) {
      for (scala.collection.Iterator<?> it = ((scala.collection.Iterable<?>) partitioning).iterator(); it.hasNext(); ) {
        transforms.add(transform((Transform) it.next()));
      }
    }
    out.put("partitioning", transforms);
    Object clustering = Reflect.option(Reflect.field(writer, "clustering"));
    out.put("clustering", clustering == null ? null : transform((Transform) clustering));
    return Bridge.json(out);
  }

  private static Map<String, Object> transform(Transform transform) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("name", transform.name());
    List<String> columns = new ArrayList<>();
    for (NamedReference reference : transform.references()) {
      columns.add(String.join(".", Arrays.asList(reference.fieldNames())));
    }
    out.put("columns", columns);
    out.put("describe", transform.describe());
    return out;
  }
}
