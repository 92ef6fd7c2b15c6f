package spark_ddl_log;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.QualifiedTableName;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogUtils;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.collection.Iterator;
import scala.collection.immutable.Seq;

/**
 * A session's cached relation of a table that the engine of this JVM has replaced since the relation was built is
 * dropped before the query resolves the table (a hint-resolution rule: the first analyzer batch, before Spark's
 * {@code FindDataSourceTable} looks the relation up), so the query builds the current version's.
 *
 * <p>Why: Spark looks a data source table's relation up in the session's cache, and on a miss builds it from the
 * definition the query read and stores it. A reader thread that read the old definition just before a replace
 * installed the new one can store the old version's relation after the replace dropped the entry, and the session's
 * later queries would read that old version until its next refresh; a session other than the writer's keeps its
 * relation of the old version in plain Spark too (and fails with FILE_NOT_EXIST once the old files are gone). Here a
 * cached relation whose location is not the one the engine installed ({@link Installed}) goes. The check costs a
 * look at the query's table names; only a mismatch asks the metastore (the engine of another driver may have
 * replaced the table since: then the cached relation is current and the note is forgotten).
 */
final class FreshRelations extends Rule<LogicalPlan> {

  private static final String SESSION_CATALOG = "spark_catalog";

  private final SparkSession session;

  FreshRelations(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    if (!Installed.none()) {
      visit(plan);
    }
    return plan;
  }

  private void visit(LogicalPlan plan) {
    if (plan instanceof UnresolvedRelation) {
      check(((UnresolvedRelation) plan).multipartIdentifier());
    }
    for (Iterator<LogicalPlan> it = plan.children().iterator(); it.hasNext(); ) {
      visit(it.next());
    }
    for (Iterator<LogicalPlan> it = plan.subqueries().iterator(); it.hasNext(); ) {
      visit(it.next());
    }
  }

  private void check(Seq<String> parts) {
    SessionCatalog catalog = session.sessionState().catalog();
    String db;
    String table = parts.last();
    switch (parts.size()) {
      case 1:
        if (!SESSION_CATALOG.equals(session.sessionState().catalogManager().currentCatalog().name())) {
          return;
        }
        db = catalog.getCurrentDatabase();
        break;
      case 2:
        if (!SESSION_CATALOG.equals(session.sessionState().catalogManager().currentCatalog().name())) {
          return;
        }
        db = parts.head();
        break;
      case 3:
        if (!SESSION_CATALOG.equalsIgnoreCase(parts.head())) {
          return;
        }
        db = parts.apply(1);
        break;
      default:
        return;
    }
    String installed = Installed.location(db, table);
    if (installed == null) {
      return;
    }
    QualifiedTableName key = new QualifiedTableName(SESSION_CATALOG, db.toLowerCase(java.util.Locale.ROOT),
        table.toLowerCase(java.util.Locale.ROOT));
    String cached = locationOf(catalog.getCachedTable(key));
    if (cached == null || same(cached, installed)) {
      return;
    }
    String current;
    try {
      current = CatalogUtils.URIToString(catalog.externalCatalog().getTable(key.database(), key.name()).location());
    } catch (Exception gone) { // dropped since, or no longer readable: nothing of it to keep
      Installed.forget(db, table, installed);
      catalog.invalidateCachedTable(key);
      return;
    }
    if (same(cached, current)) {
      Installed.forget(db, table, installed); // another driver replaced it since: the cached relation is current
    } else {
      catalog.invalidateCachedTable(key);
    }
  }

  /** The location of a cached relation's table, or null (none cached, or not a relation of a catalog table). */
  private static String locationOf(LogicalPlan cached) {
    if (cached == null) {
      return null;
    }
    try {
      Object table = Reflect.option(Reflect.call(cached, "catalogTable"));
      return table instanceof CatalogTable ? CatalogUtils.URIToString(((CatalogTable) table).location()) : null;
    } catch (IllegalStateException notARelation) {
      return null;
    }
  }

  private static boolean same(String one, String other) {
    return strip(one).equals(strip(other));
  }

  private static String strip(String location) {
    return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
  }
}
