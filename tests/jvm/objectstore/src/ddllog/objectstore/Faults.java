package ddllog.objectstore;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Latency and failures the tests inject, per JVM: set from the Hadoop configuration when a store is initialized
 * ({@code fs.s3sim.latency.ms}, {@code fs.s3sim.faults}) and changed at any time through py4j.
 *
 * <p>A fault rule is {@code operation:nth[:objects][:halt]}: the {@code nth} call of {@code operation} (a counter
 * name of {@link Calls}: {@code rename}, {@code rename.data}, {@code create}, {@code delete}, ...) counted from when
 * the rule was set fails with an {@link IOException}. For a rename, once {@code objects} of its objects were copied,
 * the last one's source not deleted yet (so that object is at both places, the ones before it at the destination
 * only, the ones after at the source only: what a process killed mid-rename leaves); 0: before the first copy. For a
 * delete, once {@code objects} were deleted. {@code halt} ends the JVM there instead (exit code 137, as a SIGKILL).
 * Each rule fires once. Several rules: separated by commas.
 */
public final class Faults {
  private static volatile long latencyMillis;
  private static final List<Rule> RULES = new ArrayList<>();

  private Faults() {}

  /** Sleep the latency of one call. */
  static void call() {
    long millis = latencyMillis;
    if (millis > 0) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  public static void setLatencyMillis(long millis) {
    latencyMillis = Math.max(0, millis);
  }

  public static long latencyMillis() {
    return latencyMillis;
  }

  /** Add the rules of {@code spec} (see the class comment); an empty or null spec adds none. */
  public static void inject(String spec) {
    if (spec == null || spec.isBlank()) {
      return;
    }
    for (String text : spec.split(",")) {
      String[] parts = text.trim().split(":");
      if (parts.length < 2 || parts.length > 4) {
        throw new IllegalArgumentException("fault rule " + text + ": operation:nth[:objects][:halt]");
      }
      boolean halt = parts[parts.length - 1].equals("halt");
      int numbers = halt ? parts.length - 1 : parts.length;
      long nth = Long.parseLong(parts[1]);
      long objects = numbers > 2 ? Long.parseLong(parts[2]) : -1;
      if (nth < 1 || (numbers > 2 && objects < 0)) {
        throw new IllegalArgumentException("fault rule " + text + ": nth >= 1, objects >= 0");
      }
      synchronized (RULES) {
        RULES.add(new Rule(parts[0], Calls.counts().getOrDefault(parts[0], 0L) + nth, objects, halt, text.trim()));
      }
    }
  }

  /** Remove every rule not fired yet. */
  public static void clear() {
    synchronized (RULES) {
      RULES.clear();
    }
  }

  /** The rule that fires at this call, the {@code count}-th of {@code operation} (taken: it fires once), or null. */
  static Rule due(String operation, long count) {
    synchronized (RULES) {
      for (int index = 0; index < RULES.size(); index++) {
        Rule rule = RULES.get(index);
        if (rule.operation.equals(operation) && rule.at == count) {
          RULES.remove(index);
          return rule;
        }
      }
    }
    return null;
  }

  /** A rule that fired: fail (or end the JVM) now. */
  static IOException fire(Rule rule, String what) {
    Calls.count("faults");
    if (rule.halt) {
      Runtime.getRuntime().halt(137);
    }
    return new IOException("injected fault " + rule.text + ": " + what);
  }

  static final class Rule {
    final String operation;
    final long at;
    final long objects;
    final boolean halt;
    final String text;

    Rule(String operation, long at, long objects, boolean halt, String text) {
      this.operation = operation;
      this.at = at;
      this.objects = objects;
      this.halt = halt;
      this.text = text;
    }
  }
}
