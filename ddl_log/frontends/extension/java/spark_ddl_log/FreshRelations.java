package spark_ddl_log;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.QualifiedTableName;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.catalyst.catalog.UnresolvedCatalogRelation;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import scala.Option;
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
 * cached relation whose location or schema is not the one the engine installed ({@link Installed}) goes (a schema of
 * the old version at the new location is what a metastore read torn by the install returns). The check costs a
 * look at the query's table names; only a mismatch asks the metastore (the engine of another driver may have
 * replaced the table since: then the cached relation is current and the note is forgotten).
 *
 * <p>Spark 4.0's Hive session state leaves the extensions' hint-resolution rules out of its analyzer (4.1+ runs
 * them): there {@link Resolved}, a resolution rule, finds the old version's relation right after Spark's
 * {@code FindDataSourceTable} took it from the cache, in the same pass, before anything above it is bound to its
 * columns, and puts back the unresolved relation of the current definition for the next pass to build.
 */
final class FreshRelations extends Rule<LogicalPlan> {

  private static final String SESSION_CATALOG = "spark_catalog";

  /** What {@link #current} answers for a table that no longer has a definition. */
  private static final Object GONE = new Object();

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
    String table = parts.last();
    if (!inSessionCatalog(parts)) {
      return;
    }
    String db = parts.size() == 1 ? catalog.getCurrentDatabase() : parts.apply(parts.size() - 2);
    if (Installed.version(db, table) == null) {
      return;
    }
    QualifiedTableName key = new QualifiedTableName(SESSION_CATALOG, db.toLowerCase(java.util.Locale.ROOT),
        table.toLowerCase(java.util.Locale.ROOT));
    if (current(catalog, key, tableOf(catalog.getCachedTable(key))) != null) {
      catalog.invalidateCachedTable(key);
    }
  }

  /** Whether {@code parts} name a table of Spark's session catalog: by its name first, or as the current one. */
  private boolean inSessionCatalog(Seq<String> parts) {
    if (parts.size() == 3) {
      return SESSION_CATALOG.equalsIgnoreCase(parts.head());
    }
    return parts.size() < 3
        && SESSION_CATALOG.equals(session.sessionState().catalogManager().currentCatalog().name());
  }

  /**
   * Null where a relation built from {@code cached} (null: none cached) may be read: none cached, or it reads the
   * version installed last, or the table's current definition (the note forgotten then); else the table's current
   * definition ({@link #GONE} when it has none), and the relation is not to be read.
   */
  private static Object current(SessionCatalog catalog, QualifiedTableName key, CatalogTable cached) {
    Installed.Version installed = Installed.version(key.database(), key.name());
    if (cached == null || installed == null || installed.readBy(cached)) {
      return null;
    }
    CatalogTable current;
    try {
      current = catalog.getTableMetadata(new TableIdentifier(key.name(), Option.apply(key.database())));
    } catch (Exception gone) { // dropped since, or no longer readable: nothing of it to keep
      Installed.forget(key.database(), key.name(), installed);
      return GONE;
    }
    if (Installed.alike(cached, current)) {
      Installed.forget(key.database(), key.name(), installed); // another driver changed it: the relation is current
      return null;
    }
    return current;
  }

  /**
   * Spark 4.0's fallback (see the class comment): a resolution rule, idle where the session's analyzer runs the
   * extensions' hint rules (its class declares {@code hintResolutionRules}). It puts a relation back only while
   * nothing in the query refers to the relation's columns yet (Spark's pass took it from the cache just before):
   * a replace committed while the query is being analysed leaves the query reading what it resolved, as in Spark,
   * never with columns bound to a relation that is gone. A relation counts as just taken from the cache when it is
   * not analysed yet or is the instance the cache holds: Spark marks the cached instance analysed with the first
   * query that reads it, so a relation a reader thread stored was skipped by a check of the mark alone (found by a
   * staged torn read on Spark 4.0.1).
   */
  static final class Resolved extends Rule<LogicalPlan> {

    private final SparkSession session;
    private volatile Boolean idle;

    Resolved(SparkSession session) {
      this.session = session;
    }

    @Override
    public LogicalPlan apply(LogicalPlan plan) {
      return Installed.none() || idle() ? plan : fresh(plan, plan);
    }

    private boolean idle() {
      Boolean known = idle;
      if (known == null) {
        known = false;
        for (java.lang.reflect.Method method : session.sessionState().analyzer().getClass().getDeclaredMethods()) {
          known |= method.getName().equals("hintResolutionRules");
        }
        idle = known;
      }
      return known;
    }

    /** Whether a node of the query refers to a column of {@code relation}. */
    private boolean referred(LogicalPlan plan, LogicalRelation relation) {
      if (plan != relation && plan.references().intersect(relation.outputSet()).nonEmpty()) {
        return true;
      }
      for (Iterator<LogicalPlan> it = plan.children().iterator(); it.hasNext(); ) {
        if (referred(it.next(), relation)) {
          return true;
        }
      }
      return false;
    }

    private LogicalPlan fresh(LogicalPlan plan, LogicalPlan root) {
      if (plan instanceof LogicalRelation) {
        return relation((LogicalRelation) plan, root);
      }
      if (plan.children().isEmpty()) {
        return plan;
      }
      java.util.List<LogicalPlan> children = new java.util.ArrayList<>();
      boolean changed = false;
      for (Iterator<LogicalPlan> it = plan.children().iterator(); it.hasNext(); ) {
        LogicalPlan child = it.next();
        LogicalPlan checked = fresh(child, root);
        changed |= checked != child;
        children.add(checked);
      }
      return changed ? plan.withNewChildren(Plans.scalaSeq(children)) : plan;
    }

    private LogicalPlan relation(LogicalRelation relation, LogicalPlan root) {
      if (relation.isStreaming() || relation.catalogTable().isEmpty()) {
        return relation;
      }
      CatalogTable table = relation.catalogTable().get();
      if (table.identifier().database().isEmpty()) {
        return relation;
      }
      SessionCatalog catalog = session.sessionState().catalog();
      QualifiedTableName key = new QualifiedTableName(SESSION_CATALOG, table.database(), table.identifier().table());
      if (relation.analyzed() && relation != catalog.getCachedTable(key)) {
        return relation; // part of a query analysed before (a DataFrame's plan), not taken from the cache now
      }
      Object current = current(catalog, key, table);
      if (current == null) {
        return relation;
      }
      catalog.invalidateCachedTable(key);
      if (current == GONE || referred(root, relation)) {
        return relation; // the query reads what it resolved, as Spark's own does; the next one reads the current
      }
      return new UnresolvedCatalogRelation((CatalogTable) current, CaseInsensitiveStringMap.empty(), false);
    }
  }

  /** The catalog table a cached relation was built from, or null (none cached, or not a relation of one). */
  private static CatalogTable tableOf(LogicalPlan cached) {
    if (cached == null) {
      return null;
    }
    try {
      Object table = Reflect.option(Reflect.call(cached, "catalogTable"));
      return table instanceof CatalogTable ? (CatalogTable) table : null;
    } catch (IllegalStateException notARelation) {
      return null;
    }
  }
}
