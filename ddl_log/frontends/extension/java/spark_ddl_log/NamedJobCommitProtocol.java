package spark_ddl_log;

import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.spark.internal.io.FileCommitProtocol;
import org.apache.spark.sql.execution.datasources.SQLHadoopMapReduceCommitProtocol;

/**
 * Spark's own commit protocol (its files, its commit, its staging), except for the job id a write job into a
 * directory the project expects one for takes ({@link NamedJobs}): the id every file of the job is named with. Set as
 * {@code spark.sql.sources.commitProtocolClass} for the duration of the project's INSERT INTO only.
 *
 * <p>One more difference, on a failed job: Spark aborts the job (deleting {@code _temporary/}) as soon as the job
 * fails, while tasks it is still killing may go on writing and re-create {@code _temporary/0/_temporary/} after the
 * abort removed it; their own abort then deletes their files and leaves the directories. Here the job's abort first
 * waits, for at most {@link NamedJobs#ABORT_WAIT_MILLIS}, until no task of the job runs in this JVM (a local master's
 * tasks; an executor's are not seen, and their late writes are the project's sweep's), so that the table's directory
 * is as before once the abort returns.
 */
public class NamedJobCommitProtocol extends SQLHadoopMapReduceCommitProtocol {

  private static final long serialVersionUID = 2L;

  private final String named;

  public NamedJobCommitProtocol(String jobId, String path, boolean dynamicPartitionOverwrite) {
    this(NamedJobs.claim(path, jobId), path, dynamicPartitionOverwrite, true);
  }

  public NamedJobCommitProtocol(String jobId, String path) {
    this(jobId, path, false);
  }

  private NamedJobCommitProtocol(String named, String path, boolean dynamicPartitionOverwrite, boolean claimed) {
    super(named, path, dynamicPartitionOverwrite);
    this.named = named;
  }

  @Override
  public void setupTask(TaskAttemptContext taskContext) {
    NamedJobs.taskStarted(named, taskContext.getTaskAttemptID().toString());
    super.setupTask(taskContext);
  }

  @Override
  public FileCommitProtocol.TaskCommitMessage commitTask(TaskAttemptContext taskContext) {
    FileCommitProtocol.TaskCommitMessage message = super.commitTask(taskContext);
    NamedJobs.taskEnded(named, taskContext.getTaskAttemptID().toString());
    return message;
  }

  @Override
  public void abortTask(TaskAttemptContext taskContext) {
    try {
      super.abortTask(taskContext);
    } finally {
      NamedJobs.taskEnded(named, taskContext.getTaskAttemptID().toString());
    }
  }

  @Override
  public void abortJob(JobContext jobContext) {
    NamedJobs.awaitTasks(named);
    super.abortJob(jobContext);
  }
}
