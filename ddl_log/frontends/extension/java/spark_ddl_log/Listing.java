package spark_ddl_log;

import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * A directory's files in one Py4J round trip: walking Hadoop's listing from Python costs about five round trips per
 * file (a 1,000-file table's DROP spent 0.8 s there). Used by the project's file listing when this jar is on the
 * session's class path; without it the listing is walked from Python.
 */
public final class Listing {

  private Listing() {}

  /**
   * Every file under {@code root} (recursively), relative to it, one a line (names the caller filters: Hadoop's and
   * Spark's hidden files are included).
   */
  public static String files(FileSystem fileSystem, Path root) throws IOException {
    String base = fileSystem.makeQualified(root).toUri().getPath();
    base = base.endsWith("/") ? base : base + "/";
    StringBuilder found = new StringBuilder();
    RemoteIterator<LocatedFileStatus> listing = fileSystem.listFiles(root, true);
    while (listing.hasNext()) {
      String path = listing.next().getPath().toUri().getPath();
      found.append(path.startsWith(base) ? path.substring(base.length()) : path).append('\n');
    }
    return found.toString();
  }
}
