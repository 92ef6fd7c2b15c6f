package spark_ddl_log;

import java.lang.reflect.InvocationTargetException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;

/**
 * The v1 commands a session's DataFrame writers and catalog API make (after Spark's own post-hoc rules turned them
 * into commands, as Hudi's post-analysis rule sees them), handed to the Python engine, which runs the matching
 * statement (CTAS, INSERT INTO, INSERT OVERWRITE, CREATE TABLE, ALTER TABLE RECOVER PARTITIONS) atomically or leaves
 * the command to Spark. Left alone: the commands of statements the engine runs itself or that it left to Spark
 * (tagged by the parser), and those planned while another command runs (Spark's CTAS inserts through one).
 */
final class WriteRouter extends Rule<LogicalPlan> {

  private static final List<String> COMMANDS = List.of(
      "CreateDataSourceTableAsSelectCommand", "CreateHiveTableAsSelectCommand",
      "OptimizedCreateHiveTableAsSelectCommand", "InsertIntoHadoopFsRelationCommand", "InsertIntoHiveTable",
      "InsertIntoDataSourceCommand",
      "CreateDataSourceTableCommand", "CreateTableCommand", "RepairTableCommand",
      "SaveAsV1TableCommand"); // Spark 4.1+: a JVM saveAsTable of a v1 table (SPARK-52451), Spark Connect's included

  private final SparkSession session;

  WriteRouter(SparkSession session) {
    this.session = session;
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    String command = plan.getClass().getSimpleName();
    if (!COMMANDS.contains(command) || plan.getTagValue(Plans.PASSED).isDefined() || !Bridge.watching(session)
        || Stack.insideCommand()) {
      return plan;
    }
    Map<String, Object> request = describe(command, plan);
    if (request == null) {
      return plan; // a write to a path, not a table
    }
    if ("SaveAsV1TableCommand".equals(command) && "append".equals(request.get("kind"))) {
      request.put("query", appended(session, Reflect.call(plan, "tableDesc"), request.get("query")));
    }
    Object query = request.remove("query");
    Object dataset = query == null ? null
        : org.apache.spark.sql.classic.Dataset.ofRows((org.apache.spark.sql.classic.SparkSession) session,
            (LogicalPlan) query);
    List<String> table = tableParts(request.get("table"));
    return Bridge.write(session, Bridge.json(request), dataset) ? Plans.ranByEngine(command, table) : plan;
  }

  /**
   * The rows of a JVM {@code saveAsTable} append to a table that is there (Spark 4.1+'s {@code SaveAsV1TableCommand},
   * which checks them only when it runs), put through Spark's own {@code PreprocessTableCreation} as its append runs
   * them: the writer's format, partitioning, bucketing and column count checked against the table (Spark's own
   * errors), the columns taken by name in the table's order. Spark 4.0's writer plans the append as a
   * {@code CreateTable} that this rule ran on before this one sees it.
   */
  private static Object appended(SparkSession session, Object tableDesc, Object query) {
    try {
      Object catalog = Reflect.call(Reflect.call(session, "sessionState"), "catalog");
      Object identifier = Reflect.call(tableDesc, "identifier");
      Object exists = catalog.getClass().getMethod("tableExists", identifier.getClass()).invoke(catalog, identifier);
      if (!Boolean.TRUE.equals(exists)) {
        return query;
      }
      // named as Spark's own append names it in its errors: spark_catalog.<db>.<table>
      Object database = Reflect.option(Reflect.call(identifier, "database"));
      Object named = identifier.getClass().getConstructor(String.class, scala.Option.class, scala.Option.class)
          .newInstance(Reflect.call(identifier, "table"),
          scala.Option.apply(database == null ? Reflect.call(catalog, "getCurrentDatabase") : database),
          scala.Option.apply("spark_catalog"));
      Object described = Reflect.rebuilt((scala.Product) tableDesc, Map.of("identifier", named));
      Class<?> createTable = Class.forName("org.apache.spark.sql.execution.datasources.CreateTable");
      Object append = createTable.getConstructors()[0].newInstance(described, SaveMode.Append,
          scala.Option.apply(query));
      Class<?> rule = Class.forName("org.apache.spark.sql.execution.datasources.PreprocessTableCreation");
      Object preprocess = rule.getConstructors()[0].newInstance(catalog);
      Object checked = rule.getMethod("apply", LogicalPlan.class).invoke(preprocess, append);
      Object adjusted = Reflect.option(Reflect.call(checked, "query"));
      return adjusted == null ? query : adjusted;
    } catch (InvocationTargetException error) {
      throw WriteRouter.<RuntimeException>rethrown(error.getCause()); // Spark's own AnalysisException, unwrapped
    } catch (ReflectiveOperationException error) {
      throw new IllegalStateException("cannot check a saveAsTable append on this Spark", error);
    }
  }

  /** {@code error} thrown as it is (Scala's AnalysisException is a checked exception to Java). */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException rethrown(Throwable error) throws T {
    throw (T) error;
  }

  /** The table's database (when named) and name, as {@code NoopCommand} shows them. */
  private static List<String> tableParts(Object table) {
    Map<?, ?> described = (Map<?, ?>) table;
    Object db = described.get("db");
    String name = String.valueOf(described.get("name"));
    return db == null ? List.of(name) : List.of(String.valueOf(db), name);
  }

  private static Map<String, Object> describe(String command, LogicalPlan plan) {
    Map<String, Object> request = new LinkedHashMap<>();
    request.put("command", command);
    switch (command) {
      case "CreateDataSourceTableAsSelectCommand":
        return created(request, Reflect.call(plan, "table"), plan);
      case "CreateHiveTableAsSelectCommand":
      case "OptimizedCreateHiveTableAsSelectCommand":
      case "SaveAsV1TableCommand":
        return created(request, Reflect.call(plan, "tableDesc"), plan);
      case "InsertIntoHadoopFsRelationCommand": {
        Object table = Reflect.option(Reflect.call(plan, "catalogTable"));
        if (table == null) {
          return null;
        }
        request.put("table", Tables.describe(table));
        request.put("kind", "insert");
        request.put("overwrite", "Overwrite".equals(String.valueOf(Reflect.call(plan, "mode"))));
        request.put("partition", Reflect.map(Reflect.call(plan, "staticPartitions")));
        request.put("dynamic", Reflect.call(plan, "dynamicPartitionOverwrite"));
        request.put("if_partition_not_exists", Reflect.call(plan, "ifPartitionNotExists"));
        request.put("query", Reflect.call(plan, "query"));
        return request;
      }
      case "InsertIntoDataSourceCommand": { // a table of a non-file source (an InsertableRelation)
        Object table = Reflect.option(Reflect.call(Reflect.call(plan, "logicalRelation"), "catalogTable"));
        if (table == null) {
          return null;
        }
        request.put("table", Tables.describe(table));
        request.put("kind", "insert");
        request.put("overwrite", Reflect.call(plan, "overwrite"));
        request.put("partition", Map.of());
        request.put("dynamic", false);
        request.put("if_partition_not_exists", false);
        request.put("query", Reflect.call(plan, "query"));
        return request;
      }
      case "InsertIntoHiveTable":
        request.put("table", Tables.describe(Reflect.call(plan, "table")));
        request.put("kind", "insert");
        request.put("overwrite", Reflect.call(plan, "overwrite"));
        request.put("partition", Reflect.map(Reflect.call(plan, "partition")));
        request.put("dynamic", false);
        request.put("if_partition_not_exists", Reflect.call(plan, "ifPartitionNotExists"));
        request.put("query", Reflect.call(plan, "query"));
        return request;
      case "CreateDataSourceTableCommand":
      case "CreateTableCommand":
        request.put("table", Tables.describe(Reflect.call(plan, "table")));
        request.put("kind", "create_table");
        request.put("if_not_exists", Reflect.call(plan, "ignoreIfExists"));
        return request;
      default: { // RepairTableCommand
        Object name = Reflect.call(plan, "tableName");
        Map<String, Object> table = new LinkedHashMap<>();
        table.put("db", Reflect.option(Reflect.call(name, "database")));
        table.put("name", Reflect.call(name, "table"));
        request.put("table", table);
        request.put("kind", "repair");
        request.put("add", Reflect.call(plan, "enableAddPartitions"));
        request.put("drop", Reflect.call(plan, "enableDropPartitions"));
        return request;
      }
    }
  }

  /** A create-as-select command: by its save mode, CTAS, CTAS IF NOT EXISTS, a replace, or an append. */
  private static Map<String, Object> created(Map<String, Object> request, Object table, LogicalPlan plan) {
    String mode = String.valueOf(Reflect.call(plan, "mode"));
    request.put("table", Tables.describe(table));
    request.put("kind", switch (mode) {
      case "Append" -> "append";
      case "Ignore" -> "create_if_not_exists";
      case "Overwrite" -> "replace";
      default -> "create";
    });
    request.put("query", Reflect.call(plan, "query"));
    return request;
  }
}
