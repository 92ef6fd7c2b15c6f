package spark_ddl_log;

import org.apache.spark.sql.execution.datasources.SQLHadoopMapReduceCommitProtocol;

/**
 * Spark's own commit protocol (its files, its commit, its staging), except for the job id a write job into a
 * directory the project expects one for takes ({@link NamedJobs}): the id every file of the job is named with. Set as
 * {@code spark.sql.sources.commitProtocolClass} for the duration of the project's INSERT INTO only.
 */
public class NamedJobCommitProtocol extends SQLHadoopMapReduceCommitProtocol {

  private static final long serialVersionUID = 1L;

  public NamedJobCommitProtocol(String jobId, String path, boolean dynamicPartitionOverwrite) {
    super(NamedJobs.claim(path, jobId), path, dynamicPartitionOverwrite);
  }

  public NamedJobCommitProtocol(String jobId, String path) {
    this(jobId, path, false);
  }
}
