package ddllog.objectstore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the simulated store was asked, for the tests to read through py4j: a counter per operation (and per kind of
 * rename), and a journal of every rename (kind, objects copied, source, destination). One per JVM: every instance of
 * the store (Hadoop caches one per scheme, bucket and user) counts into it.
 */
public final class Calls {
  /** A rename of anything else than a commit protocol's or Hive's staging directory: table or version data. */
  public static final String DATA = "data";
  /** A rename out of a job's staging area ({@code _temporary}, {@code .spark-staging-*}, {@code .hive-staging*}). */
  public static final String STAGING = "staging";

  private static final int JOURNAL_LIMIT = 100_000;
  private static final Map<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();
  private static final List<String> JOURNAL = new ArrayList<>();

  private Calls() {}

  /** Count one {@code operation}; the new count. */
  static long count(String operation) {
    return add(operation, 1);
  }

  static long add(String operation, long amount) {
    return COUNTS.computeIfAbsent(operation, key -> new AtomicLong()).addAndGet(amount);
  }

  /** The kind of a rename of {@code key}: {@link #STAGING} when a component of it is a staging directory. */
  static String renameKind(String key) {
    for (String part : key.split("/")) {
      if (part.equals("_temporary") || part.startsWith(".spark-staging") || part.startsWith(".hive-staging")
          || part.startsWith("_temporary")) {
        return STAGING;
      }
    }
    return DATA;
  }

  static void journal(String kind, long objects, String source, String target) {
    synchronized (JOURNAL) {
      if (JOURNAL.size() < JOURNAL_LIMIT) {
        JOURNAL.add(kind + "\t" + objects + "\t" + source + "\t" + target);
      }
    }
  }

  /** Every counter, by name (a copy). */
  public static Map<String, Long> counts() {
    Map<String, Long> copy = new TreeMap<>();
    COUNTS.forEach((key, value) -> copy.put(key, value.get()));
    return copy;
  }

  /** Every rename since the last {@link #reset}: "kind TAB objects TAB source TAB target" (the first 100,000). */
  public static String[] renames() {
    synchronized (JOURNAL) {
      return JOURNAL.toArray(new String[0]);
    }
  }

  /** Forget every count and the journal. */
  public static void reset() {
    COUNTS.clear();
    synchronized (JOURNAL) {
      JOURNAL.clear();
    }
  }
}
