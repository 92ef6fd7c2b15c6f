package spark_ddl_log;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the current version of each table the DDL log engine of this JVM installed lives (its location as the
 * metastore records it), told by the engine right after each install: what {@link FreshRelations} checks the
 * sessions' cached relations against. Work tables are not told. Bounded: forgotten whole past 100,000 tables (a check
 * then does nothing until the next install of a table).
 */
public final class Installed {

  private static final int LIMIT = 100_000;
  private static final ConcurrentHashMap<String, String> LOCATIONS = new ConcurrentHashMap<>();

  private Installed() {}

  /** The engine installed a version of {@code db.table} at {@code location}. */
  public static void location(String db, String table, String location) {
    if (LOCATIONS.size() >= LIMIT) {
      LOCATIONS.clear();
    }
    LOCATIONS.put(key(db, table), location);
  }

  /** The location last installed for {@code db.table}, or null. */
  static String location(String db, String table) {
    return LOCATIONS.isEmpty() ? null : LOCATIONS.get(key(db, table));
  }

  /** The table is no longer where this JVM put it (another driver changed it, or it is gone). */
  static void forget(String db, String table, String location) {
    LOCATIONS.remove(key(db, table), location);
  }

  static boolean none() {
    return LOCATIONS.isEmpty();
  }

  private static String key(String db, String table) {
    return db.toLowerCase(Locale.ROOT) + '\u0000' + table.toLowerCase(Locale.ROOT);
  }
}
