package spark_ddl_log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.VoidFunction;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.SerializableConfiguration;

/**
 * The data files of the partitions a partitioned INSERT OVERWRITE keeps, copied byte for byte into the new version's
 * directory by a Spark job, on file systems without hard links (HDFS, object stores). Spark's own row copy read,
 * decoded, encoded and committed every kept row (on a store, the commit's renames copy the files once more); a byte
 * copy reads and writes each file once, in tasks on the executors, so a large table is copied by the cluster, not
 * through the driver. A task retried after a partial copy overwrites its files: the targets are in a directory only
 * this statement writes. Used by {@code storage/catalogs/spark/fs/file_copies.py}.
 */
public final class FileCopies {

  /** Threads per task. */
  static final int THREADS = 8;

  private FileCopies() {}

  /**
   * Copy each {@code sources[i]} to {@code targets[i]} (the two lists of one length), in at most {@code
   * slices} tasks; the number of files copied. Failure: the job's exception.
   */
  public static long copy(SparkSession session, List<String> sources, List<String> targets, int slices) {
    if (sources.size() != targets.size()) {
      throw new IllegalArgumentException("sources and targets differ in length");
    }
    List<String[]> pairs = new ArrayList<>(sources.size());
    for (int i = 0; i < sources.size(); i++) {
      pairs.add(new String[] {sources.get(i), targets.get(i)});
    }
    if (pairs.isEmpty()) {
      return 0;
    }
    JavaSparkContext context = JavaSparkContext.fromSparkContext(session.sparkContext());
    SerializableConfiguration conf = new SerializableConfiguration(session.sessionState().newHadoopConf());
    String previous = context.getLocalProperty("spark.job.description");
    context.setJobDescription("spark-ddl-log: copy the kept partitions' files into the new version");
    try {
      context.parallelize(pairs, Math.max(1, Math.min(slices, pairs.size()))).foreachPartition(new Task(conf));
    } finally {
      context.setLocalProperty("spark.job.description", previous);
    }
    return pairs.size();
  }

  /** One task's files, copied by up to {@link #THREADS} threads: a store's cost per file is its requests' latency. */
  private static final class Task implements VoidFunction<Iterator<String[]>> {
    private static final long serialVersionUID = 1L;
    private final SerializableConfiguration conf;

    Task(SerializableConfiguration conf) {
      this.conf = conf;
    }

    @Override
    public void call(Iterator<String[]> pairs) throws IOException {
      Configuration hadoop = conf.value();
      List<String[]> mine = new ArrayList<>();
      pairs.forEachRemaining(mine::add);
      ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, Math.min(THREADS, mine.size())));
      try {
        List<Future<?>> copies = new ArrayList<>(mine.size());
        for (String[] pair : mine) {
          copies.add(threads.submit(() -> {
            copyOne(new Path(pair[0]), new Path(pair[1]), hadoop);
            return null;
          }));
        }
        for (Future<?> copy : copies) {
          copy.get();
        }
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while copying", interrupted);
      } catch (ExecutionException failed) {
        Throwable cause = failed.getCause();
        throw cause instanceof IOException ? (IOException) cause : new IOException(cause);
      } finally {
        threads.shutdownNow();
      }
    }
  }

  private static void copyOne(Path source, Path target, Configuration hadoop) throws IOException {
    FileSystem from = source.getFileSystem(hadoop);
    FileSystem to = target.getFileSystem(hadoop);
    if (!FileUtil.copy(from, source, to, target, false, true, hadoop)) {
      throw new IOException("cannot copy " + source + " to " + target);
    }
  }
}
