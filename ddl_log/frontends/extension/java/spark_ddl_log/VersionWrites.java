package spark_ddl_log;

import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand;
import scala.Option;

/**
 * A new table version written straight into its own directory, with no work table in the metastore: Spark's
 * analysed {@code INSERT INTO t ...} of a file-based table (the rows cast, ordered and named as t takes them) made
 * to write at another directory and to leave every table alone. The engine then installs the version at that
 * directory in one metastore call (the replace's "write" path).
 */
public final class VersionWrites {

  private VersionWrites() {}

  /**
   * {@code plan} (an analysed {@code InsertIntoHadoopFsRelationCommand} appending to an unbucketed table,
   * unpartitioned or partitioned: its rows land in {@code <location>/<column>=<value>/...}, a static value's column
   * too, since the analysed query carries that value as a column) writing at {@code location} instead, with no
   * catalog table (no metastore call, no statistics or partitions updated, not even the empty partition a static
   * spec names, no table refreshed) and no file index, marked analysed; null for any other plan, or a command
   * without those fields (the engine builds the version under a work table). Built field by field by name, so a
   * field added by another Spark minor is carried over as it is.
   */
  public static LogicalPlan atDirectory(LogicalPlan plan, String location) throws ReflectiveOperationException {
    if (!(plan instanceof InsertIntoHadoopFsRelationCommand)) {
      return null;
    }
    InsertIntoHadoopFsRelationCommand command = (InsertIntoHadoopFsRelationCommand) plan;
    if (command.catalogTable().isEmpty() || command.bucketSpec().isDefined()) {
      return null;
    }
    try {
      return analysed(Reflect.rebuilt(command, Map.of("outputPath", new Path(location), "catalogTable", Option.empty(),
          "fileIndex", Option.empty())));
    } catch (IllegalStateException otherShape) {
      return null; // another Spark's fields: never a copy that may still write the table's own files
    }
  }

  /**
   * The copy of an analysed command, marked analysed as the command was (its query is the analysed one): Spark's
   * analyzer skips it, so the statement is analysed once, as plain Spark's.
   */
  private static LogicalPlan analysed(Object copy) {
    LogicalPlan plan = (LogicalPlan) copy;
    plan.setAnalyzed();
    return plan;
  }
}
