package spark_ddl_log;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.fs.Path;

/**
 * The job ids INSERT INTO gives its write jobs before they run, per table directory: Spark names every data file a
 * job writes with its job id ({@code part-00000-<job>-c000...}, kept by Hive's moves, {@code _copy_1} added at most),
 * so a statement that logged the id first can find and delete the job's files after a crash, wherever Spark's commit
 * left them (the table, a partition, a staging directory). {@link NamedJobCommitProtocol} takes the id at the job's
 * start; the Python side expects one and forgets it after its statement.
 */
public final class NamedJobs {

  /** How long a failed job's abort waits for its tasks in this JVM to end (they are being killed: milliseconds). */
  public static final long ABORT_WAIT_MILLIS = 10_000L;

  private static final ConcurrentHashMap<String, String> EXPECTED = new ConcurrentHashMap<>();

  /** Per job id: the attempts of its tasks running in this JVM (set up, neither committed nor aborted yet). */
  private static final ConcurrentHashMap<String, Set<String>> RUNNING = new ConcurrentHashMap<>();

  private NamedJobs() {}

  /** The next write job whose output is {@code location} or under it is to be named {@code jobId}. */
  public static void expect(String location, String jobId) {
    EXPECTED.put(key(location), jobId);
  }

  /** Forget what {@link #expect} said; whether it was still unclaimed (no job wrote there). */
  public static boolean forget(String location) {
    return EXPECTED.remove(key(location)) != null;
  }

  /** The id a job writing to {@code output} takes: the one expected for its table's directory, once, else its own. */
  static String claim(String output, String ownId) {
    String path = key(output);
    for (String location : EXPECTED.keySet()) {
      if (path.equals(location) || path.startsWith(location + "/")) {
        String expected = EXPECTED.remove(location);
        if (expected != null) {
          return expected;
        }
      }
    }
    return ownId;
  }

  /** A task attempt of {@code jobId} set up in this JVM. */
  static void taskStarted(String jobId, String attempt) {
    RUNNING.computeIfAbsent(jobId, id -> ConcurrentHashMap.newKeySet()).add(attempt);
  }

  /** A task attempt of {@code jobId} committed or aborted in this JVM. */
  static void taskEnded(String jobId, String attempt) {
    RUNNING.computeIfPresent(jobId, (id, attempts) -> {
      attempts.remove(attempt);
      return attempts.isEmpty() ? null : attempts;
    });
  }

  /** Wait (polling, at most {@link #ABORT_WAIT_MILLIS}) until no task attempt of {@code jobId} runs in this JVM. */
  static void awaitTasks(String jobId) {
    long deadline = System.nanoTime() + ABORT_WAIT_MILLIS * 1_000_000L;
    while (RUNNING.containsKey(jobId) && System.nanoTime() < deadline) {
      try {
        Thread.sleep(5L);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static String key(String location) {
    String path = new Path(location).toUri().getPath();
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }
}
