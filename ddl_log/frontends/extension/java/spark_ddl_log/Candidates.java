package spark_ddl_log;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which statements the Python side is asked about: a cheap look at a statement's words (comments, string literals
 * and quoted names skipped) that every statement pays, so that queries, SHOW, DESCRIBE, SET, USE and temporary
 * views never cross to Python. It only has to be a superset of what the SQL front end routes
 * ({@code ddl_log/frontends/sql/router.py}); the Python side decides exactly.
 */
public final class Candidates {

  private static final List<String> ALWAYS = List.of(
      "REPLACE", "RENAME", "ALTER", "TRUNCATE", "INSERT", "RESTORE", "UNDROP", "RELEASE", "COMMENT", "MSCK",
      "REPAIR", "LOAD", "EXECUTE", "BEGIN", "START", "COMMIT", "ROLLBACK");

  private Candidates() {}

  public static boolean isCandidate(String text) {
    Words words = new Words(text);
    String head = words.next();
    if (head == null) {
      return false;
    }
    if (ALWAYS.contains(head)) {
      return true;
    }
    switch (head) {
      case "CREATE": {
        String word = words.next();
        if ("OR".equals(word)) {
          words.next(); // REPLACE
          word = words.next();
        }
        if ("GLOBAL".equals(word)) {
          word = words.next();
        }
        return !("TEMPORARY".equals(word) || "TEMP".equals(word));
      }
      case "DROP": {
        String word = words.next();
        return !("TEMPORARY".equals(word) || "TEMP".equals(word));
      }
      case "DESCRIBE":
      case "DESC":
        return "HISTORY".equals(words.next());
      case "SHOW":
        return "TABLES".equals(words.next()) && "DROPPED".equals(words.next());
      case "EXPLAIN":
        return false; // EXPLAIN runs nothing: Spark explains its own plan
      default:
        return words.insertAhead(); // WITH ... INSERT, FROM s INSERT ...: refused (or run as Spark's) by Python
    }
  }

  /** The words of a statement, upper case, outside comments, string literals and quoted names. */
  static final class Words {
    private final String text;
    private int at;

    Words(String text) {
      this.text = text;
    }

    String next() {
      while (at < text.length()) {
        char c = text.charAt(at);
        if (Character.isWhitespace(c)) {
          at++;
        } else if (c == '-' && peek(1) == '-') {
          int end = text.indexOf('\n', at);
          at = end < 0 ? text.length() : end + 1;
        } else if (c == '/' && peek(1) == '*') {
          skipComment();
        } else if (c == '\'' || c == '"') {
          skipQuoted(c, true);
        } else if (c == '`') {
          skipQuoted(c, false);
        } else if (Character.isLetter(c) || c == '_') {
          int start = at;
          while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
            at++;
          }
          return text.substring(start, at).toUpperCase(Locale.ROOT);
        } else {
          at++;
        }
      }
      return null;
    }

    /** Whether INSERT INTO or INSERT OVERWRITE comes later in the statement. */
    boolean insertAhead() {
      List<String> seen = new ArrayList<>(2);
      for (String word = next(); word != null; word = next()) {
        if (!seen.isEmpty() && "INSERT".equals(seen.get(0)) && ("INTO".equals(word) || "OVERWRITE".equals(word))) {
          return true;
        }
        seen.clear();
        seen.add(word);
      }
      return false;
    }

    private char peek(int ahead) {
      int index = at + ahead;
      return index < text.length() ? text.charAt(index) : '\0';
    }

    private void skipComment() {
      int depth = 0;
      while (at < text.length()) {
        if (text.charAt(at) == '/' && peek(1) == '*') {
          depth++;
          at += 2;
        } else if (text.charAt(at) == '*' && peek(1) == '/') {
          depth--;
          at += 2;
          if (depth == 0) {
            return;
          }
        } else {
          at++;
        }
      }
    }

    private void skipQuoted(char quote, boolean backslashEscapes) {
      at++;
      while (at < text.length()) {
        char c = text.charAt(at);
        if (backslashEscapes && c == '\\') {
          at += 2;
        } else if (c == quote) {
          if (!backslashEscapes && peek(1) == quote) {
            at += 2; // `` inside a quoted name
          } else {
            at++;
            return;
          }
        } else {
          at++;
        }
      }
    }
  }
}
