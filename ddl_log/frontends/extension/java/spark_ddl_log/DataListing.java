package spark_ddl_log;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * A table directory's data files in one Py4J round trip (walking Hadoop's listing from Python costs a few round
 * trips per file), listed while another writer may be changing the directory: plain Spark's CTAS at the same path
 * renames and removes its task directories under {@code _temporary}, a DROP removes the tree. Hidden names ({@code _}
 * and {@code .}) are never entered nor listed, and what disappears while listed is skipped. Used by {@code
 * storage/catalogs/spark/fs/data_listing.py} when this jar is on the session's class path.
 */
public final class DataListing {

  private DataListing() {}

  /**
   * Every data file under {@code root}, one a line: its path relative to {@code root}, its length and its
   * modification time (milliseconds), tab-separated; nothing when {@code root} is missing. {@code walk}: directory
   * by directory (file systems with real directories); else Hadoop's recursive listing (flat on object stores), and
   * the walk when a path it listed went away meanwhile.
   */
  public static String files(FileSystem fileSystem, Path root, boolean walk) throws IOException {
    String base = fileSystem.makeQualified(root).toUri().getPath();
    base = base.endsWith("/") ? base : base + "/";
    StringBuilder found = new StringBuilder();
    if (!walk) {
      try {
        RemoteIterator<LocatedFileStatus> listing = fileSystem.listFiles(root, true);
        while (listing.hasNext()) {
          append(found, base, listing.next());
        }
        return found.toString();
      } catch (FileNotFoundException gone) {
        found.setLength(0);
      }
    }
    walk(fileSystem, root, base, found);
    return found.toString();
  }

  private static void walk(FileSystem fileSystem, Path directory, String base, StringBuilder found)
      throws IOException {
    List<Path> below = new ArrayList<>();
    try {
      RemoteIterator<FileStatus> entries = fileSystem.listStatusIterator(directory);
      while (entries.hasNext()) {
        FileStatus status = entries.next();
        if (hidden(status.getPath().getName())) {
          continue;
        }
        if (status.isDirectory()) {
          below.add(status.getPath());
        } else {
          append(found, base, status);
        }
      }
    } catch (FileNotFoundException gone) {
      return; // removed while listed
    }
    for (Path path : below) {
      walk(fileSystem, path, base, found);
    }
  }

  private static void append(StringBuilder found, String base, FileStatus status) {
    String path = status.getPath().toUri().getPath();
    String relative = path.startsWith(base) ? path.substring(base.length()) : path;
    for (String part : relative.split("/")) {
      if (hidden(part)) {
        return;
      }
    }
    found.append(relative).append('\t').append(status.getLen()).append('\t')
        .append(status.getModificationTime()).append('\n');
  }

  private static boolean hidden(String name) {
    return name.startsWith("_") || name.startsWith(".");
  }
}
