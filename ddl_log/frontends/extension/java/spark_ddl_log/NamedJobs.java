package spark_ddl_log;

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

  private static final ConcurrentHashMap<String, String> EXPECTED = new ConcurrentHashMap<>();

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

  private static String key(String location) {
    String path = new Path(location).toUri().getPath();
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }
}
