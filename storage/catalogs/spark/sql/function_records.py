"""Function definitions as Spark reports them, and the records that keep them as they were given, for
:mod:`storage.catalogs.spark.sql.function_statements` (where the Spark behaviours behind the records are described).

A record lives in properties of the function's database, :data:`RECORD_PREFIX` ``<record_id(name)>.<n>``: compressed
JSON in hex (:func:`encode_text`, which a view's record uses too), split in chunks below the metastore's
4000-character limit for database property values, every chunk tagged with one write id so that a torn or
superseded record is ignored.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
import zlib
from typing import Any

import attrs

from storage.catalogs.interface import FunctionDefinition
from storage.catalogs.spark.engine import sql_string_literal
from storage.errors import CatalogError

RECORD_PREFIX = "spark_ddl_log.function."
"""Database properties ``spark_ddl_log.function.<record_id(name)>.<i>`` hold the record of function ``<name>``."""

_CHUNK = 3000
_RECORD = re.compile(r"\(" + re.escape(RECORD_PREFIX) + r"([0-9a-f]{20})\.(\d+),([0-9a-f]+)\.(\d+)\.([0-9a-f]*)\)")
_SQL_MARKER = "sqlFunction.returnType"


def encode_text(data: Any) -> str:
    """JSON, compressed, as hex: only ``0-9a-f``, which no redaction pattern of Spark's default matches (Spark shows
    a property whose key or value matches ``spark.redaction.regex`` as ``*********(redacted)``)."""
    return zlib.compress(json.dumps(data, ensure_ascii=False, sort_keys=True).encode(), 9).hex()


def decode_text(text: str) -> Any:
    """The inverse of :func:`encode_text`; raises ValueError for anything else."""
    try:
        return json.loads(zlib.decompress(bytes.fromhex(text)))
    except zlib.error as error:
        raise ValueError(str(error)) from None


def _to_json(definition: FunctionDefinition) -> dict[str, Any]:
    data = attrs.asdict(definition)
    data["resources"] = [list(pair) for pair in definition.resources]
    return data


def _from_json(data: Any) -> FunctionDefinition | None:
    if not isinstance(data, dict):
        return None
    try:
        fields = dict(data)
        fields["resources"] = tuple((str(kind), str(uri)) for kind, uri in fields.get("resources") or ())
        return FunctionDefinition(**fields)
    except (TypeError, ValueError):
        return None


def sql_definition(props: dict[str, Any]) -> FunctionDefinition:
    """A SQL function as Spark describes it (the JSON of its ``Usage``) -> params, returns (+ characteristics), body."""
    returns = str(props[_SQL_MARKER])
    if str(props.get("sqlFunction.isTableFunc", "false")).lower() == "true":
        returns = f"TABLE ({returns})"
    extra = []
    if str(props.get("sqlFunction.deterministic", "true")).lower() == "false":
        extra.append("NOT DETERMINISTIC")
    contains_sql = props.get("sqlFunction.containsSQL")
    if contains_sql is not None:
        extra.append("CONTAINS SQL" if str(contains_sql).lower() == "true" else "READS SQL DATA")
    if props.get("sqlFunction.comment") is not None:
        extra.append(f"COMMENT {sql_string_literal(str(props['sqlFunction.comment']))}")
    body = props.get("sqlFunction.expression")
    if body is None:
        body = props.get("sqlFunction.query", "")
    return FunctionDefinition(
        params=str(props.get("sqlFunction.inputParam", "")),
        returns=" ".join([returns, *extra]),
        body=str(body),
    )


def described_as_json(lines: list[str]) -> bool:
    """Whether ``DESCRIBE FUNCTION EXTENDED`` gave a SQL function's properties as JSON (Spark 4.0)."""
    return any(line.startswith("Usage: {") for line in lines)


def usage_definition(usage: str) -> FunctionDefinition | None:
    """A SQL function from its ``ExpressionInfo`` usage, the JSON of its properties on every line (Spark 4.1 and
    later print it as labelled rows in DESCRIBE); None when it is not that."""
    try:
        props = json.loads(usage)
    except ValueError:
        return None
    return sql_definition(props) if isinstance(props, dict) and _SQL_MARKER in props else None


def parse_description(lines: list[str]) -> FunctionDefinition:
    """``DESCRIBE FUNCTION EXTENDED`` rows -> the definition Spark reports (class name, or a SQL function).

    Spark 4.0 reports a SQL function's properties as JSON in its ``Usage`` row; Spark 4.1 and later as labelled rows
    (``Type:``, ``Input:``, ``Returns:``, ``Body:`` ..., a value going on in rows that start with blanks)."""
    class_name = next((line[len("Class: ") :] for line in lines if line.startswith("Class: ")), None)
    usage = next((line[len("Usage: ") :] for line in lines if line.startswith("Usage: ")), "")
    if usage.startswith("{"):
        try:
            props = json.loads(usage)
        except ValueError:
            props = None
        if isinstance(props, dict) and _SQL_MARKER in props:
            return sql_definition(props)
    if class_name is None:
        labelled = labelled_rows(lines)
        if "Body" in labelled and "Type" in labelled:
            return labelled_sql_definition(labelled)
        raise CatalogError(f"unexpected DESCRIBE FUNCTION output: {lines[:2]!r}")
    return FunctionDefinition(class_name=class_name)


_LABELLED = re.compile(r"([A-Z][A-Za-z ]*):\s+(.*)")


def labelled_rows(lines: list[str]) -> dict[str, list[str]]:
    """``Label:  value`` rows (Spark 4.1 and later), a value's further rows (indented) kept as its list's items,
    trailing blanks (column alignment) cut."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines:
        match = None if line[:1].isspace() else _LABELLED.fullmatch(line)
        if match is not None:
            current = found.setdefault(match.group(1), [])
            current.append(match.group(2).rstrip())
        elif current is not None:
            current.append(line.strip())
    return found


def labelled_sql_definition(rows: dict[str, list[str]]) -> FunctionDefinition:
    """A SQL function as Spark 4.1 and later describe it -> params, returns (+ characteristics), body; what the
    function was created under (``Configs``, ``Create Time``) is not part of its definition."""
    returns = ", ".join(rows.get("Returns", []))
    if rows["Type"][0].upper() == "TABLE":
        returns = f"TABLE ({returns})"
    extra = []
    if rows.get("Deterministic", ["true"])[0].lower() == "false":
        extra.append("NOT DETERMINISTIC")
    if "Data Access" in rows:
        extra.append(rows["Data Access"][0])
    if "Comment" in rows:
        extra.append(f"COMMENT {sql_string_literal(chr(10).join(rows['Comment']))}")
    return FunctionDefinition(params=", ".join(rows.get("Input", [])), returns=" ".join([returns, *extra]),
                              body="\n".join(rows["Body"]))


@attrs.frozen
class FunctionRecords:
    """Decoded function records of one database: record id -> record document, record id -> its property keys."""

    documents: dict[str, dict[str, Any]]
    keys: dict[str, list[str]]


def record_id(function: str) -> str:
    """The key part naming ``function``'s record: a hash, so that no name can trigger Spark's redaction."""
    return hashlib.sha256(function.lower().encode()).hexdigest()[:20]


def decode_records(properties: str) -> FunctionRecords:
    """Records from the ``Properties`` row of ``DESCRIBE DATABASE EXTENDED`` (``((k,v), (k,v))``), by
    :func:`record_id`."""
    chunks: dict[str, dict[int, tuple[str, int, str]]] = {}
    keys: dict[str, list[str]] = {}
    for match in _RECORD.finditer(properties):
        function, index, write_id, count, data = match.groups()
        chunks.setdefault(function, {})[int(index)] = (write_id, int(count), data)
        keys.setdefault(function, []).append(f"{RECORD_PREFIX}{function}.{index}")
    documents: dict[str, dict[str, Any]] = {}
    for function, parts in chunks.items():
        if 0 not in parts:
            continue
        write_id, count, _ = parts[0]
        if any(i not in parts or parts[i][:2] != (write_id, count) for i in range(count)):
            continue  # torn or superseded: ignored
        try:
            document = decode_text("".join(parts[i][2] for i in range(count)))
        except ValueError:
            continue
        if isinstance(document, dict):
            documents[function] = document
    return FunctionRecords(documents, keys)


def encode_record(function: str, document: dict[str, Any]) -> dict[str, str]:
    """Database properties holding ``document`` for ``function`` (chunked, every chunk tagged with one write id)."""
    payload = encode_text(document)
    parts = [payload[i : i + _CHUNK] for i in range(0, len(payload), _CHUNK)] or [""]
    write_id = uuid.uuid4().hex[:12]
    ident = record_id(function)
    return {f"{RECORD_PREFIX}{ident}.{i}": f"{write_id}.{len(parts)}.{part}" for i, part in enumerate(parts)}


def record_entry(definition: FunctionDefinition, reported: FunctionDefinition) -> dict[str, Any]:
    """One entry of a record: the definition as given, and as Spark reports it."""
    return {"def": _to_json(definition), "spark": _to_json(reported)}


def resolve(reported: FunctionDefinition, document: dict[str, Any] | None) -> FunctionDefinition:
    """The recorded definition whose recorded Spark view is what Spark reports now, else what Spark reports."""
    if document is not None:
        for entry in (document, document.get("prev")):
            if isinstance(entry, dict) and _from_json(entry.get("spark")) == reported:
                recorded = _from_json(entry.get("def"))
                if recorded is not None:
                    return recorded
    return reported
