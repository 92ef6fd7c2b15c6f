package spark_ddl_log;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
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
   * {@code plan} (an analysed {@code InsertIntoHadoopFsRelationCommand} appending to an unpartitioned table) writing
   * at {@code location} instead, with no catalog table (no metastore call, no statistics or partitions updated, no
   * table refreshed) and no file index; null for any other plan (the engine builds the version under a work table).
   * Built field by field by name, so a field added by another Spark minor is carried over as it is.
   */
  public static LogicalPlan atDirectory(LogicalPlan plan, String location) throws ReflectiveOperationException {
    if (!(plan instanceof InsertIntoHadoopFsRelationCommand)) {
      return null;
    }
    InsertIntoHadoopFsRelationCommand command = (InsertIntoHadoopFsRelationCommand) plan;
    if (command.catalogTable().isEmpty() || !command.partitionColumns().isEmpty()
        || !command.staticPartitions().isEmpty() || command.bucketSpec().isDefined()) {
      return null;
    }
    int arity = command.productArity();
    Object[] fields = new Object[arity];
    for (int index = 0; index < arity; index++) {
      String name = command.productElementName(index);
      switch (name) {
        case "outputPath" -> fields[index] = new Path(location);
        case "catalogTable", "fileIndex" -> fields[index] = Option.empty();
        default -> fields[index] = command.productElement(index);
      }
    }
    for (Constructor<?> constructor : InsertIntoHadoopFsRelationCommand.class.getConstructors()) {
      if (constructor.getParameterCount() == arity) {
        try {
          return (LogicalPlan) constructor.newInstance(fields);
        } catch (InvocationTargetException error) {
          throw new IllegalStateException(error.getCause());
        }
      }
    }
    return null;
  }
}
