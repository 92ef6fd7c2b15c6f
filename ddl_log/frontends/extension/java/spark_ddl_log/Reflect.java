package spark_ddl_log;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import scala.Option;
import scala.Product;
import scala.collection.Iterable;
import scala.collection.Iterator;
import scala.Tuple2;

/**
 * Reading Spark's Scala objects by member name (command fields, writer settings): a renamed or retyped member in
 * another Spark minor fails that one read with a clear message instead of this jar failing to load.
 */
final class Reflect {

  private Reflect() {}

  static Object call(Object target, String name) {
    try {
      Method method = target.getClass().getMethod(name);
      return method.invoke(target);
    } catch (NoSuchMethodException | IllegalAccessException error) {
      throw new IllegalStateException(target.getClass().getName() + " has no member " + name + " on this Spark", error);
    } catch (InvocationTargetException error) {
      throw new IllegalStateException(error.getCause());
    }
  }

  static Object field(Object target, String name) {
    for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
      } catch (NoSuchFieldException error) {
        // look in the superclass
      } catch (IllegalAccessException error) {
        throw new IllegalStateException(error);
      }
    }
    throw new IllegalStateException(target.getClass().getName() + " has no field " + name + " on this Spark");
  }

  /** An Option's value, or null. */
  static Object option(Object value) {
    if (value instanceof Option) {
      Option<?> option = (Option<?>) value;
      return option.isDefined() ? option.get() : null;
    }
    return value;
  }

  /** A Scala collection (or an Option of one) as strings; null stays null. */
  static List<String> strings(Object value) {
    Object inner = option(value);
    if (inner == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (Iterator<?> it = ((Iterable<?>) inner).iterator(); it.hasNext(); ) {
      out.add(String.valueOf(it.next()));
    }
    return out;
  }

  /** A Scala map of strings (values that are Options unwrapped, None as null). */
  static Map<String, String> map(Object value) {
    Map<String, String> out = new LinkedHashMap<>();
    Object inner = option(value);
    if (inner == null) {
      return out;
    }
    for (Iterator<?> it = ((Iterable<?>) inner).iterator(); it.hasNext(); ) {
      Tuple2<?, ?> pair = (Tuple2<?, ?>) it.next();
      Object item = option(pair._2());
      out.put(String.valueOf(pair._1()), item == null ? null : String.valueOf(item));
    }
    return out;
  }

  /**
   * A copy of the case class {@code value} with the fields named in {@code changes} changed, built by its
   * constructor from its fields by name: a field another Spark minor adds is carried over as it is.
   */
  static Object rebuilt(Product value, Map<String, Object> changes) throws ReflectiveOperationException {
    int arity = value.productArity();
    Object[] fields = new Object[arity];
    int changed = 0;
    for (int index = 0; index < arity; index++) {
      String field = value.productElementName(index);
      if (changes.containsKey(field)) {
        fields[index] = changes.get(field);
        changed++;
      } else {
        fields[index] = value.productElement(index);
      }
    }
    if (changed != changes.size()) {
      throw new IllegalStateException(value.getClass().getName() + " lacks a field of " + changes.keySet());
    }
    for (Constructor<?> constructor : value.getClass().getConstructors()) {
      if (constructor.getParameterCount() == arity) {
        try {
          return constructor.newInstance(fields);
        } catch (InvocationTargetException error) {
          throw new IllegalStateException(error.getCause());
        }
      }
    }
    throw new IllegalStateException(value.getClass().getName() + " has no constructor of its " + arity + " fields");
  }
}
