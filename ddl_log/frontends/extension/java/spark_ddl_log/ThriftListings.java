package spark_ddl_log;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Locale;
import org.apache.hive.service.cli.FetchOrientation;
import org.apache.hive.service.cli.HiveSQLException;
import org.apache.hive.service.cli.OperationState;
import org.apache.hive.service.cli.RowSet;
import org.apache.hive.service.cli.RowSetFactory;
import org.apache.hive.service.cli.TableSchema;
import org.apache.hive.service.cli.operation.MetadataOperation;
import org.apache.hive.service.cli.operation.Operation;
import org.apache.hive.service.cli.operation.OperationManager;
import org.apache.hive.service.cli.session.HiveSession;
import org.apache.hive.service.cli.session.SessionManager;
import org.apache.hive.service.rpc.thrift.TRowSet;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.hive.thriftserver.SparkGetColumnsOperation;
import org.apache.spark.sql.hive.thriftserver.SparkGetTablesOperation;
import org.apache.spark.sql.hive.thriftserver.SparkSQLSessionManager;
import org.apache.spark.sql.hive.thriftserver.server.SparkSQLOperationManager;

/**
 * The JDBC/ODBC metadata calls {@code getTables} and {@code getColumns} of a Thrift server the project starts, without
 * the log's own objects: they read the session catalog directly (no plan a rule could change), so the server's
 * operation manager is replaced, once after it starts and before it answers, by one that makes these two operations
 * as Spark makes them and leaves the rows of names with the reserved prefix out (on a session the log watches, and
 * unless the call's table pattern names the prefix, as {@code SHOW TABLES LIKE 'ddllog_*'} does). Every other
 * operation is Spark's own: the replacement shares the operations and sessions maps of the manager it replaces.
 */
public final class ThriftListings {

  private static final int TABLE_NAME = 2;  // TABLE_NAME's column in both results (JDBC's DatabaseMetaData)

  private ThriftListings() {}

  /** Put the hiding operation manager under {@code server} (a started HiveThriftServer2). */
  public static void install(Object server) {
    SessionManager sessions = (SessionManager) Reflect.call(Reflect.field(server, "cliService"), "getSessionManager");
    SparkSQLOperationManager spark = (SparkSQLOperationManager) sessions.getOperationManager();
    Hiding hiding = new Hiding();
    set(hiding, OperationManager.class, "handleToOperation", spark.handleToOperation());  // one map, two fields
    set(hiding, SparkSQLOperationManager.class, "handleToOperation", spark.handleToOperation());
    set(hiding, SparkSQLOperationManager.class, "sessionToContexts", spark.sessionToContexts());
    set(sessions, SparkSQLSessionManager.class, "sparkSqlOperationManager", hiding);
    set(sessions, SessionManager.class, "operationManager", hiding);
  }

  private static void set(Object target, Class<?> owner, String name, Object value) {
    try {
      Field field = owner.getDeclaredField(name);
      field.setAccessible(true);
      field.set(target, value);
    } catch (ReflectiveOperationException error) {
      throw new IllegalStateException(owner.getName() + " has no field " + name + " on this Spark", error);
    }
  }

  /** Whether a metadata call on {@code session} for {@code pattern} leaves the log's objects out. */
  static boolean hides(SparkSession session, String pattern) {
    return Bridge.watching(session)
        && (pattern == null || !pattern.toLowerCase(Locale.ROOT).contains(WorkTablesHidden.PREFIX));
  }

  /** Spark's operation manager, but for the two metadata operations it makes. */
  static final class Hiding extends SparkSQLOperationManager {

    @Override
    public synchronized MetadataOperation newGetTablesOperation(
        HiveSession parent, String catalog, String schema, String table, List<String> types) {
      SparkSession session = session(parent);
      if (!hides(session, table)) {
        return super.newGetTablesOperation(parent, catalog, schema, table, types);
      }
      return registered(new Tables(session, parent, catalog, schema, table, types));
    }

    @Override
    public synchronized org.apache.hive.service.cli.operation.GetColumnsOperation newGetColumnsOperation(
        HiveSession parent, String catalog, String schema, String table, String column) {
      SparkSession session = session(parent);
      if (!hides(session, table)) {
        return super.newGetColumnsOperation(parent, catalog, schema, table, column);
      }
      return registered(new Columns(session, parent, catalog, schema, table, column));
    }

    private SparkSession session(HiveSession parent) {
      SparkSession session = sessionToContexts().get(parent.getSessionHandle());
      if (session == null) {
        throw new IllegalArgumentException("requirement failed: Session handle: " + parent.getSessionHandle()
            + " has not been initialized or had already closed.");
      }
      return session;
    }

    private <T extends Operation> T registered(T operation) {
      handleToOperation().put(operation.getHandle(), operation);
      return operation;
    }
  }

  /**
   * The rows an operation serves: Spark's, without those whose table name has the reserved prefix, paged as Hive's
   * metadata operations page their own row set. (Each operation class extends its own Spark class, so they share
   * this and not a superclass.)
   */
  static final class Shown {

    private RowSet rows;

    void keep(RowSet all, Operation operation) {
      try {
        rows = RowSetFactory.create(
            new TableSchema(operation.getResultSetSchema()), operation.getProtocolVersion(), false);
      } catch (HiveSQLException error) {
        throw new IllegalStateException(error);
      }
      for (Object[] row : all) {
        Object name = row[TABLE_NAME];
        if (name == null || !name.toString().toLowerCase(Locale.ROOT).startsWith(WorkTablesHidden.PREFIX)) {
          rows.addRow(row);
        }
      }
    }

    TRowSet next(FetchOrientation orientation, long maxRows) {
      if (orientation.equals(FetchOrientation.FETCH_FIRST)) {
        rows.setStartOffset(0);
      }
      return rows.extractSubset((int) maxRows).toTRowSet();
    }
  }

  /** {@code getTables} as Spark answers it, served from the shown rows. */
  static final class Tables extends SparkGetTablesOperation {

    private final Shown shown = new Shown();

    Tables(SparkSession session, HiveSession parent, String catalog, String schema, String table, List<String> types) {
      super(session, parent, catalog, schema, table, types);
    }

    @Override
    public void runInternal() {
      super.runInternal();
      shown.keep(rowSet, this);
    }

    @Override
    public TRowSet getNextRowSet(FetchOrientation orientation, long maxRows) throws HiveSQLException {
      assertState(OperationState.FINISHED);
      validateDefaultFetchOrientation(orientation);
      return shown.next(orientation, maxRows);
    }
  }

  /** {@code getColumns} as Spark answers it, served from the shown rows. */
  static final class Columns extends SparkGetColumnsOperation {

    private final Shown shown = new Shown();

    Columns(SparkSession session, HiveSession parent, String catalog, String schema, String table, String column) {
      super(session, parent, catalog, schema, table, column);
    }

    @Override
    public void runInternal() {
      super.runInternal();
      shown.keep(rowSet, this);
    }

    @Override
    public TRowSet getNextRowSet(FetchOrientation orientation, long maxRows) throws HiveSQLException {
      assertState(OperationState.FINISHED);
      validateDefaultFetchOrientation(orientation);
      return shown.next(orientation, maxRows);
    }
  }
}
