package spark_ddl_log;

import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A change the DDL log engine makes through its own metastore client, made while holding the lock Spark's Hive client
 * holds for each of its calls (the client's {@code IsolatedClientLoader}, which {@code HiveClientImpl} synchronizes
 * on): no metastore read of this JVM's sessions overlaps it.
 *
 * <p>Why: the metastore reads a definition back in several queries, and under read-committed isolation (Hive's
 * default, and the embedded Derby metastore's) a read that overlaps an {@code alter_table} can return the new
 * location with the old schema. The query that read it fails or reads wrongly typed rows, and its relation stays in
 * the session's cache. Spark's own changes are kept apart from its reads by that lock; the engine's client, a
 * metastore client of its own, was not (found by the readers' proof: eight failed reads in the writer's session
 * during ALTER TABLE rebuilds, on embedded Derby). Readers in other JVMs are not covered: see docs/guarantees.md.
 */
public final class MetastoreLock {

  private static final ConcurrentHashMap<String, List<Method>> CANDIDATES = new ConcurrentHashMap<>();

  private MetastoreLock() {}

  /** {@code client.method()} while holding {@code lock}. */
  public static Object call(Object lock, Object client, String method) throws Throwable {
    return invoke(lock, client, method, new Object[0]);
  }

  /** {@code client.method(a)} while holding {@code lock}. */
  public static Object call(Object lock, Object client, String method, Object a) throws Throwable {
    return invoke(lock, client, method, new Object[] {a});
  }

  /** {@code client.method(a, b)} while holding {@code lock}. */
  public static Object call(Object lock, Object client, String method, Object a, Object b) throws Throwable {
    return invoke(lock, client, method, new Object[] {a, b});
  }

  /** {@code client.method(a, b, c)} while holding {@code lock}. */
  public static Object call(Object lock, Object client, String method, Object a, Object b, Object c)
      throws Throwable {
    return invoke(lock, client, method, new Object[] {a, b, c});
  }

  /** {@code client.method(a, b, c, d)} while holding {@code lock}. */
  public static Object call(Object lock, Object client, String method, Object a, Object b, Object c, Object d)
      throws Throwable {
    return invoke(lock, client, method, new Object[] {a, b, c, d});
  }

  private static Object invoke(Object lock, Object client, String method, Object[] args) throws Throwable {
    Method found = find(client.getClass(), method, args);
    synchronized (lock) {
      try {
        return found.invoke(client, args);
      } catch (InvocationTargetException failed) {
        throw failed.getCause(); // the metastore's own exception, as a direct call raises it
      }
    }
  }

  /** The public method {@code name} of {@code type} that takes {@code args}. */
  private static Method find(Class<?> type, String name, Object[] args) {
    List<Method> candidates = CANDIDATES.computeIfAbsent(type.getName() + '#' + name + '#' + args.length, key -> {
      List<Method> named = new ArrayList<>();
      for (Method method : type.getMethods()) {
        if (method.getName().equals(name) && method.getParameterCount() == args.length) {
          named.add(method);
        }
      }
      return named;
    });
    for (Method method : candidates) {
      if (accepts(method.getParameterTypes(), args)) {
        return method;
      }
    }
    throw new IllegalArgumentException("no method " + name + " of " + type.getName() + " takes these arguments");
  }

  private static boolean accepts(Class<?>[] types, Object[] args) {
    for (int i = 0; i < types.length; i++) {
      if (args[i] == null ? types[i].isPrimitive() : !boxed(types[i]).isInstance(args[i])) {
        return false;
      }
    }
    return true;
  }

  private static Class<?> boxed(Class<?> type) {
    return MethodType.methodType(type).wrap().returnType(); // a primitive's wrapper class, any other class as it is
  }
}
