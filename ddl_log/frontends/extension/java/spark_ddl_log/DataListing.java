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
 * What a table's directory holds, in one Py4J round trip (walking Hadoop's listing from Python costs a few round
 * trips per file), listed while another writer may be changing the directory: plain Spark's CTAS at the same path
 * renames and removes its task directories under {@code _temporary}, a DROP removes the tree. Hidden directories
 * ({@code _} and {@code .}) are never entered nor listed, and what disappears while listed is skipped. Used by
 * {@code storage/catalogs/spark/fs/data_listing.py} when this jar is on the session's class path.
 */
public final class DataListing {

  private DataListing() {}

  /**
   * What is under {@code root}, one entry a line: a kind, the path relative to {@code root}, its length and its
   * modification time (milliseconds), tab-separated; nothing when {@code root} is missing. Kinds: {@code f} a data
   * file; {@code h} a hidden file in a directory that is not hidden ({@code p=1/_SUCCESS}, a checksum); {@code d} a
   * directory that is not hidden (walked file systems only: a flat listing shows none). {@code walk}: directory by
   * directory (file systems with real directories); else Hadoop's recursive listing (flat on object stores), and
   * the walk when a path it listed went away meanwhile.
   */
  public static String tree(FileSystem fileSystem, Path root, boolean walk) throws IOException {
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
        if (!status.isDirectory() || !hidden(status.getPath().getName())) {
          append(found, base, status);
          if (status.isDirectory()) {
            below.add(status.getPath());
          }
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
    String[] parts = relative.split("/");
    for (int i = 0; i < parts.length - 1; i++) {
      if (hidden(parts[i])) {
        return; // in a hidden directory: a running job's
      }
    }
    String kind = status.isDirectory() ? "d" : hidden(parts[parts.length - 1]) ? "h" : "f";
    found.append(kind).append('\t').append(relative).append('\t').append(status.getLen()).append('\t')
        .append(status.getModificationTime()).append('\n');
  }

  private static boolean hidden(String name) {
    return name.startsWith("_") || name.startsWith(".");
  }
}
