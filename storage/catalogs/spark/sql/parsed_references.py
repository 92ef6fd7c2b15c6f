"""Where a SQL text names relations, columns and functions, as Spark's own parser reads it through the session
(``sessionState.sqlParser.parsePlan``, or ``parseExpression`` for an expression): the unresolved plan's
``UnresolvedRelation`` (aliased when a ``SubqueryAlias`` holds it), ``UnresolvedAttribute`` and ``UnresolvedStar``
(a qualified ``q.*``) and ``UnresolvedFunction`` nodes, each with the origin Spark gives it (the exact text it was
read from), walked through every field of every node (subqueries in expressions, CTEs, a CREATE's query). A Spark
Connect session has no parser here: :class:`LookupError`, and the caller reads the text otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from storage.catalogs.name_references import Kind, Reference, identifier_parts
from storage.catalogs.spark.engine import ENGINE_ERRORS
from storage.catalogs.spark.jvm import with_active_session
from storage.catalogs.spark.profile import jvm_of

_KINDS: dict[str, Kind] = {"UnresolvedRelation": "relation", "UnresolvedAttribute": "attribute",
                           "UnresolvedStar": "attribute", "UnresolvedFunction": "function"}


def spark_references(spark: Any, text: str, *, expression: bool = False) -> list[Reference]:
    """The references of ``text`` (a statement or query; ``expression``: an expression) as Spark parses it; Spark's
    parse error (a PySpark exception) when it does not parse."""
    jvm = jvm_of(spark)
    if jvm is None:
        raise LookupError("no JVM parser on this session")
    parser = jvm.session.sessionState().sqlParser()
    try:  # the session active, so that its own settings (double-quoted identifiers ...) decide, as in its spark.sql
        root = with_active_session(jvm, lambda: parser.parseExpression(text) if expression else parser.parsePlan(text))
    except ENGINE_ERRORS as error:
        from pyspark.errors.exceptions.captured import convert_exception

        java = getattr(error, "java_exception", None)
        raise (convert_exception(java) if java is not None else error) from None
    walker = _Walker(jvm.view, root, text)
    return list(walker.references(root, aliased=False))


def _java_offsets(text: str) -> list[int] | None:
    """Python index of each Java (UTF-16) index of ``text``, when they differ (characters beyond the BMP)."""
    if all(ord(char) < 0x10000 for char in text):
        return None
    offsets = []
    for index, char in enumerate(text):
        offsets += [index] * (2 if ord(char) >= 0x10000 else 1)
    return [*offsets, len(text)]


class _Walker:
    def __init__(self, jvm: Any, root: Any, text: str) -> None:
        loader = root.getClass().getClassLoader()
        forname = jvm.java.lang.Class.forName
        self.tree_node = forname("org.apache.spark.sql.catalyst.trees.TreeNode", True, loader)
        self.option = forname("scala.Option", True, loader)
        self.iterable = forname("scala.collection.Iterable", True, loader)
        self.product = forname("scala.Product", True, loader)
        self.text = text
        self.offsets = _java_offsets(text)
        self._kinds: dict[str, str] = {}

    def _kind(self, value: Any) -> str:
        cls = value.getClass()
        name = str(cls.getName())
        if name not in self._kinds:
            for kind, java in (("node", self.tree_node), ("option", self.option), ("iterable", self.iterable),
                               ("product", self.product)):
                if java.isAssignableFrom(cls):
                    self._kinds[name] = kind
                    break
            else:
                self._kinds[name] = "other"
        return self._kinds[name]

    def references(self, value: Any, *, aliased: bool) -> Iterator[Reference]:
        if not hasattr(value, "getClass"):
            return  # a string, a number: py4j's own values
        kind = self._kind(value)
        if kind == "option":
            if value.isDefined():
                yield from self.references(value.get(), aliased=aliased)
            return
        if kind == "iterable":
            items = value.iterator()
            while items.hasNext():
                yield from self.references(items.next(), aliased=aliased)
            return
        if kind not in ("node", "product"):
            return
        simple = str(value.getClass().getSimpleName())
        if kind == "node" and simple in _KINDS:
            found = self._reference(value, _KINDS[simple], aliased)
            if found is not None:
                yield found
        holds_relation = simple == "SubqueryAlias"
        fields = value.productIterator()
        while fields.hasNext():
            yield from self.references(fields.next(), aliased=holds_relation)

    def _reference(self, node: Any, kind: Kind, aliased: bool) -> Reference | None:
        origin = node.origin()
        start = origin.startIndex()
        if not start.isDefined():
            return None
        index = int(start.get())
        if self.offsets is not None:
            index = self.offsets[index]
        parts = identifier_parts(self.text, index)
        return Reference(kind, parts, aliased=aliased) if parts else None
