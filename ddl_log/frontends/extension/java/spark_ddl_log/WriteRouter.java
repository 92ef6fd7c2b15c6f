package spark_ddl_log;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    Object query = request.remove("query");
    Object dataset = query == null ? null
        : org.apache.spark.sql.classic.Dataset.ofRows((org.apache.spark.sql.classic.SparkSession) session,
            (LogicalPlan) query);
    List<String> table = tableParts(request.get("table"));
    return Bridge.write(session, Bridge.json(request), dataset) ? Plans.ranByEngine(command, table) : plan;
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
