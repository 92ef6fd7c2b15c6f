package spark_ddl_log;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.util.CharVarcharUtils;
import org.apache.spark.sql.execution.command.CreateDataSourceTableAsSelectCommand;
import org.apache.spark.sql.execution.command.CreateDataSourceTableCommand;
import org.apache.spark.sql.execution.datasources.DataSource;
import org.apache.spark.sql.execution.datasources.FileFormat;
import org.apache.spark.sql.execution.datasources.v2.FileDataSourceV2;
import org.apache.spark.sql.hive.HiveExternalCatalog;
import org.apache.spark.sql.hive.client.HiveClient;
import org.apache.spark.sql.hive.client.HiveClientImpl;
import org.apache.spark.sql.sources.BaseRelation;
import org.apache.spark.sql.types.StructType;
import scala.Option;

/**
 * A new table written by Spark's own CTAS with no metastore call of Spark's: the analysed
 * {@code CreateDataSourceTableAsSelectCommand} writes its rows at its table's default directory (its own
 * {@code saveDataIntoTable}, as its {@code run} does), and the metastore record Spark's Hive catalog would create of
 * the table is made by that catalog over a client that records the record instead of sending it
 * ({@link Recording}), converted by Spark's own {@code toHiveTable}. The engine then creates the table from that
 * record under its own name, at that directory, in one metastore call (the replace's direct create: no work table).
 */
public final class VersionCreates {

  private VersionCreates() {}

  /**
   * The directory {@code plan} writes at if it is a CTAS this can take: a managed data source table at its default
   * directory, nothing there yet, neither partitioned nor bucketed, on a session that does not update table
   * statistics after a write (Spark's CTAS then alters the table once more); else null (the engine builds it under
   * its work table).
   */
  public static String takes(SparkSession session, LogicalPlan plan) {
    CatalogTable table;
    if (plan instanceof CreateDataSourceTableAsSelectCommand && SAVE != null) {
      table = ((CreateDataSourceTableAsSelectCommand) plan).table();
    } else if (plan instanceof CreateDataSourceTableCommand && fileSourceWithColumns(session, plan)) {
      table = ((CreateDataSourceTableCommand) plan).table();
    } else {
      return null;
    }
    if (!table.tableType().equals(CatalogTableType.MANAGED()) || table.storage().locationUri().isDefined()
        || !table.partitionColumnNames().isEmpty() || table.bucketSpec().isDefined() || table.provider().isEmpty()
        || session.sessionState().conf().autoSizeUpdateEnabled()) {
      return null;
    }
    URI location = session.sessionState().catalog().defaultTablePath(table.identifier());
    Path path = new Path(location);
    try {
      return path.getFileSystem(session.sessionState().newHadoopConf()).exists(path) ? null : location.toString();
    } catch (java.io.IOException unknown) {
      return null;
    }
  }

  /**
   * Run {@code plan} (a CTAS {@link #takes} took) as far as its rows: written at {@code directory} (what
   * {@link #takes} answered), no table created. Returns the record Spark would create first, as a thrift
   * {@code Table} at that directory, and the table it describes (for {@link #fallbackRecord}).
   */
  public static Object[] written(SparkSession session, LogicalPlan plan, String directory)
      throws ReflectiveOperationException {
    if (plan instanceof CreateDataSourceTableCommand) {
      return defined(session, ((CreateDataSourceTableCommand) plan).table(), URI.create(directory));
    }
    CreateDataSourceTableAsSelectCommand command = (CreateDataSourceTableAsSelectCommand) plan;
    CatalogTable table = command.table();
    URI location = URI.create(directory);
    BaseRelation result = (BaseRelation) invoked(SAVE, command, saveArguments(session, command, table, location));
    StructType schema = CharVarcharUtils.getRawSchema(withoutInternalMetadata(result.schema()),
        session.sessionState().conf());
    CatalogStorageFormat storage = (CatalogStorageFormat) Reflect.rebuilt(table.storage(),
        Map.of("locationUri", Option.apply(location)));
    CatalogTable created = (CatalogTable) Reflect.rebuilt(table, Map.of("storage", storage, "schema", schema,
        "createVersion", org.apache.spark.package$.MODULE$.SPARK_VERSION()));
    return new Object[] {record(session, created, 0), created};
  }

  /**
   * A CREATE TABLE of columns as its command's {@code run} makes it, with no metastore call: the data source resolved
   * over the given schema (what validates the definition and gives the schema Spark stores), the record made at
   * {@code location}; the metastore makes the directory when the engine creates the table.
   */
  private static Object[] defined(SparkSession session, CatalogTable table, URI location)
      throws ReflectiveOperationException {
    String db = table.identifier().database().isDefined() ? table.identifier().database().get()
        : session.sessionState().catalog().getCurrentDatabase();
    CatalogTable withDefaults = (CatalogTable) Reflect.rebuilt(table, Map.of(
        "identifier", Reflect.rebuilt(table.identifier(), Map.of("database", Option.apply(db))),
        "tracksPartitionsInCatalog", session.sessionState().conf().manageFilesourcePartitions()));
    StructType schema = resolved(session, table, withDefaults).schema();
    CatalogStorageFormat storage = (CatalogStorageFormat) Reflect.rebuilt(table.storage(),
        Map.of("locationUri", Option.apply(location)));
    CatalogTable created = (CatalogTable) Reflect.rebuilt(table, Map.of("storage", storage, "schema", schema,
        "tracksPartitionsInCatalog", false, "createVersion", org.apache.spark.package$.MODULE$.SPARK_VERSION()));
    return new Object[] {record(session, created, 0), created};
  }

  /** Whether {@code plan} creates a table of a file source over the columns it gives (an unpartitioned one's data
   * source then stores those columns as its schema; another source may infer or connect). */
  private static boolean fileSourceWithColumns(SparkSession session, LogicalPlan plan) {
    CreateDataSourceTableCommand command = (CreateDataSourceTableCommand) plan;
    CatalogTable table = command.table();
    if (command.ignoreIfExists() || table.schema().isEmpty() || table.provider().isEmpty()) {
      return false;
    }
    try {
      // a file source's V2 class falls back to its FileFormat for a catalog table, as Spark's DataSource does
      Class<?> source = DataSource.lookupDataSource(table.provider().get(), session.sessionState().conf());
      return FileFormat.class.isAssignableFrom(source) || FileDataSourceV2.class.isAssignableFrom(source);
    } catch (RuntimeException unknown) {
      return false; // Spark's own create gives its error
    }
  }

  /** Spark's {@code DataSource(...).resolveRelation(checkFilesExist = false)} of the command's table (its
   * arguments differ between Spark lines: the defaulted ones are taken as Spark defaults them). */
  private static BaseRelation resolved(SparkSession session, CatalogTable table, CatalogTable withDefaults)
      throws ReflectiveOperationException {
    Method apply = longest(DataSource.class, "apply");
    Object[] arguments = new Object[apply.getParameterCount()];
    for (int index = 2; index < arguments.length; index++) {
      arguments[index] = DataSource.class.getMethod("apply$default$" + (index + 1)).invoke(null);
    }
    arguments[0] = session;
    arguments[1] = table.provider().get();
    arguments[3] = Option.apply(table.schema());
    arguments[4] = table.partitionColumnNames();
    arguments[5] = table.bucketSpec();
    arguments[6] = table.storage().properties();
    arguments[7] = Option.apply(withDefaults);
    DataSource source = (DataSource) invoked(apply, null, arguments);
    Method resolve = longest(DataSource.class, "resolveRelation");
    Object[] flags = new Object[resolve.getParameterCount()];
    flags[0] = false;
    for (int index = 1; index < flags.length; index++) {
      flags[index] = DataSource.class.getMethod("resolveRelation$default$" + (index + 1)).invoke(source);
    }
    return (BaseRelation) invoked(resolve, source, flags);
  }

  private static Method longest(Class<?> type, String name) {
    Method found = null;
    for (Method method : type.getMethods()) {
      if (method.getName().equals(name) && (found == null || method.getParameterCount() > found.getParameterCount())) {
        found = method;
      }
    }
    if (found == null) {
      throw new IllegalStateException("Spark's " + type.getSimpleName() + " has no " + name);
    }
    return found;
  }

  /**
   * The record Spark's Hive catalog falls back to where the metastore refuses its first for {@code table} (a
   * Hive-compatible form it cannot store), or null where it has none: the engine then gives the metastore's refusal.
   */
  public static Object fallbackRecord(SparkSession session, Object table) {
    return record(session, (CatalogTable) table, 1);
  }

  /** The {@code attempt}-th record Spark's Hive catalog sends to create {@code table} (0: its first; 1: after the
   * metastore refused the first), at the table's directory; null where it sends no such record. */
  private static Object record(SparkSession session, CatalogTable table, int attempt) {
    Recording catalog = new Recording(session, attempt);
    try {
      catalog.createTable(table, false);
    } catch (RuntimeException noSecond) {
      return null;
    }
    if (catalog.recorded == null) {
      return null;
    }
    try {
      org.apache.hadoop.hive.metastore.api.Table record = HiveClientImpl.toHiveTable(catalog.recorded,
          Option.apply(UserGroupInformation.getCurrentUser().getShortUserName())).getTTable();
      // Hive's record of a managed data source table names no directory: the metastore would give the name's
      record.getSd().setLocation(table.storage().locationUri().get().toString());
      return record;
    } catch (java.io.IOException noUser) {
      throw new IllegalStateException(noUser);
    }
  }

  /**
   * Spark's Hive catalog over a client that keeps the {@code attempt}-th table it is asked to create instead of
   * creating it (and refuses the ones before), answering that the database exists and the table does not.
   */
  private static final class Recording extends HiveExternalCatalog {
    private final HiveClient recorder;
    private CatalogTable recorded;
    private int creates;

    Recording(SparkSession session, int attempt) {
      super(session.sparkContext().conf(), session.sparkContext().hadoopConfiguration());
      recorder = (HiveClient) Proxy.newProxyInstance(Recording.class.getClassLoader(),
          new Class<?>[] {HiveClient.class}, (proxy, method, args) -> {
            switch (method.getName()) {
              case "databaseExists":
                return true;
              case "tableExists":
                return false;
              case "createTable":
                if (creates++ < attempt) {
                  throw new IllegalStateException("refused, as the metastore may refuse it");
                }
                recorded = (CatalogTable) args[0];
                return null;
              default:
                throw new UnsupportedOperationException("the recording client has no " + method.getName());
            }
          });
    }

    @Override
    public HiveClient client() {
      return recorder;
    }
  }

  /** The command's private {@code saveDataIntoTable} (five arguments on Spark 4.0; a sixth, defaulted, later). */
  private static final Method SAVE = declared("saveDataIntoTable");

  private static Object[] saveArguments(SparkSession session, CreateDataSourceTableAsSelectCommand command,
      CatalogTable table, URI location) throws ReflectiveOperationException {
    Object[] arguments = new Object[SAVE.getParameterCount()];
    arguments[0] = session;
    arguments[1] = table;
    arguments[2] = Option.apply(location);
    arguments[3] = SaveMode.Overwrite;
    arguments[4] = false; // the table does not exist: no catalog table handed to the data source
    for (int index = 5; index < arguments.length; index++) {
      Method defaulted = CreateDataSourceTableAsSelectCommand.class.getDeclaredMethod(
          "saveDataIntoTable$default$" + (index + 1));
      defaulted.setAccessible(true);
      arguments[index] = defaulted.invoke(command);
    }
    return arguments;
  }

  /** Spark's {@code removeInternalMetadata} of {@code schema} (one argument on Spark 4.0, a defaulted second later),
   * which its CTAS applies to the written relation's schema. */
  private static StructType withoutInternalMetadata(StructType schema) throws ReflectiveOperationException {
    Object utilities = org.apache.spark.sql.catalyst.util.package$.MODULE$;
    for (Method method : utilities.getClass().getMethods()) {
      if (method.getName().equals("removeInternalMetadata")) {
        Object[] arguments = new Object[method.getParameterCount()];
        arguments[0] = schema;
        for (int index = 1; index < arguments.length; index++) {
          arguments[index] = utilities.getClass().getMethod("removeInternalMetadata$default$" + (index + 1))
              .invoke(utilities);
        }
        return (StructType) method.invoke(utilities, arguments);
      }
    }
    return schema;
  }

  private static Method declared(String name) {
    for (Method method : CreateDataSourceTableAsSelectCommand.class.getDeclaredMethods()) {
      if (method.getName().equals(name)) {
        method.setAccessible(true);
        return method;
      }
    }
    return null;
  }

  private static Object invoked(Method method, Object target, Object[] arguments) throws ReflectiveOperationException {
    try {
      return method.invoke(target, arguments);
    } catch (InvocationTargetException failed) {
      throw Failures.raise(failed.getCause());
    }
  }
}
