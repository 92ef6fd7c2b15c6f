package spark_ddl_log;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogUtils;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The current version of each table the DDL log engine of this JVM installed: its location as the metastore records
 * it and its Spark schema, told by the engine right after each install: what {@link FreshRelations} checks the
 * sessions' cached relations against. Work tables are not told. Bounded: forgotten whole past 100,000 tables (a check
 * then does nothing until the next install of a table).
 *
 * <p>Why the schema too: the metastore reads a definition back in several queries, and under read-committed
 * isolation (embedded Derby, Hive's default) a read that overlaps an install can return the new location with the
 * old schema; a relation built from it reads the new files with the old types, at the installed location.
 */
public final class Installed {

  private static final int LIMIT = 100_000;
  private static final ConcurrentHashMap<String, Version> VERSIONS = new ConcurrentHashMap<>();

  private Installed() {}

  /**
   * The engine installed a version of {@code db.table} at {@code location} whose Spark schema is {@code schema}
   * (its JSON, as the table's {@code spark.sql.sources.schema} property holds it; null when it has none).
   */
  public static void location(String db, String table, String location, String schema) {
    if (VERSIONS.size() >= LIMIT) {
      VERSIONS.clear();
    }
    VERSIONS.put(key(db, table), new Version(location, schema));
  }

  /** The version last installed for {@code db.table}, or null. */
  static Version version(String db, String table) {
    return VERSIONS.isEmpty() ? null : VERSIONS.get(key(db, table));
  }

  /** The table is no longer as this JVM installed it (another driver changed it, or it is gone). */
  static void forget(String db, String table, Version version) {
    VERSIONS.remove(key(db, table), version);
  }

  static boolean none() {
    return VERSIONS.isEmpty();
  }

  private static String key(String db, String table) {
    return db.toLowerCase(Locale.ROOT) + '\u0000' + table.toLowerCase(Locale.ROOT);
  }

  /** Whether two definitions read the same files the same way: the same location and schema. */
  static boolean alike(CatalogTable one, CatalogTable other) {
    return sameLocation(one, CatalogUtils.URIToString(other.location())) && sameSchema(one.schema(), other.schema());
  }

  static boolean sameLocation(CatalogTable table, String location) {
    return strip(CatalogUtils.URIToString(table.location())).equals(strip(location));
  }

  /** The same columns (names compared as Spark does, case aside) of the same types (nullability aside). */
  static boolean sameSchema(StructType one, StructType other) {
    if (one.fields().length != other.fields().length) {
      return false;
    }
    Map<String, DataType> types = new HashMap<>();
    for (StructField field : other.fields()) {
      types.put(field.name().toLowerCase(Locale.ROOT), field.dataType());
    }
    for (StructField field : one.fields()) {
      DataType type = types.get(field.name().toLowerCase(Locale.ROOT));
      if (type == null || !DataType.equalsIgnoreCaseAndNullability(field.dataType(), type)) {
        return false;
      }
    }
    return true;
  }

  private static String strip(String location) {
    return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
  }

  /** One installed version: where it lives and, where the record holds one Spark can read, its Spark schema. */
  static final class Version {

    private final String location;
    private final StructType schema;

    Version(String location, String schemaJson) {
      this.location = location;
      this.schema = parsed(schemaJson);
    }

    /** Whether a relation built from {@code table} reads this version: its location, and its schema if known. */
    boolean readBy(CatalogTable table) {
      return sameLocation(table, location) && (schema == null || sameSchema(schema, table.schema()));
    }

    private static StructType parsed(String json) {
      if (json == null) {
        return null;
      }
      try {
        DataType type = DataType.fromJson(json);
        return type instanceof StructType ? (StructType) type : null;
      } catch (RuntimeException unreadable) { // a schema Spark cannot read: the location alone decides
        return null;
      }
    }
  }
}
