"""Qualified object names and identifier quoting.

Every statement the project builds quotes identifiers through :func:`quote_ident`; names are validated on entry so
no text from users is ever spliced into SQL unquoted.
"""

from __future__ import annotations

import attrs

from storage.errors import InvalidNameError

SESSION_CATALOG = "spark_catalog"
"""Spark's name for its session catalog (the Hive metastore here): the one catalog the DDL log acts on."""
FINGERPRINT_PREFIX = "fp:"
"""The identity of a relation the log never tagged (one plain Spark made): ``fp:`` + a fingerprint of its creation
second and shape, which two relations made under one name within one second can share."""

RESERVED_PREFIX = "ddllog_"
"""Names of TMP and BACKUP tables start with this; user objects may not."""

TABLE_NAME_LIMIT = 256
"""The longest table or view name the Hive 2.3 metastore stores (``TBLS.TBL_NAME VARCHAR(256)`` in its JDO model,
``package.jdo``, which makes its tables on Derby and on PostgreSQL alike). A managed table's directory is named
after it, so a local file system's 255-byte file names bound managed tables there one shorter (Spark's error)."""
DATABASE_NAME_LIMIT = 128
"""The longest database name the metastore stores (``DBS.NAME VARCHAR(128)``)."""
FUNCTION_NAME_LIMIT = 128
"""The longest function name the metastore stores (``FUNCS.FUNC_NAME VARCHAR(128)``)."""
DEFAULT_DATABASE = "default"


def quote_ident(part: str) -> str:
    """Quote one identifier part with backticks, doubling embedded backticks."""
    return "`" + part.replace("`", "``") + "`"


def check_identifier(part: str, *, allow_reserved: bool = False) -> str:
    """Validate one name part: non-empty, printable, not reserved. Returns it lower-cased.

    The Hive metastore stores names lower-case, so two spellings that differ in case are one name. Their length is
    the metastore's to bound (:data:`TABLE_NAME_LIMIT`, :data:`DATABASE_NAME_LIMIT`): a name longer than it can
    name nothing (a statement on it finds no object, as Spark's does), and creating one is refused as the metastore
    refuses it (:func:`storage.catalogs.rules.check_name` for catalogs without a metastore).
    """
    if not part or not part.strip():
        raise InvalidNameError("empty identifier", part)
    if not part.isprintable():
        raise InvalidNameError(f"identifier with control characters: {part!r}", part)
    lowered = part.lower()
    if not allow_reserved and lowered.startswith(RESERVED_PREFIX):
        raise InvalidNameError(f"names starting with {RESERVED_PREFIX!r} are reserved for the DDL log: {part!r}", part)
    return lowered


@attrs.frozen(order=True)
class TableName:
    """A database-qualified table (or view) name, lower-cased like the metastore stores it."""

    db: str
    name: str

    @classmethod
    def of(cls, text: str | TableName, *, allow_reserved: bool = False) -> TableName:
        """Parse ``name``, ``db.name`` or backquoted forms (```my db`.`t` ``) into a checked name."""
        if isinstance(text, TableName):
            return cls(check_identifier(text.db), check_identifier(text.name, allow_reserved=allow_reserved))
        parts = split_qualified(text)
        if len(parts) == 1:
            db, name = DEFAULT_DATABASE, parts[0]
        elif len(parts) == 2:
            db, name = parts
        else:
            raise InvalidNameError(f"expected name or db.name, got {text!r}", text)
        return cls(check_identifier(db), check_identifier(name, allow_reserved=allow_reserved))

    @property
    def quoted(self) -> str:
        return f"{quote_ident(self.db)}.{quote_ident(self.name)}"

    @property
    def is_reserved(self) -> bool:
        return self.name.startswith(RESERVED_PREFIX)

    def sibling(self, name: str) -> TableName:
        return TableName(self.db, name)

    def __str__(self) -> str:
        return f"{self.db}.{self.name}"


def split_qualified(text: str) -> list[str]:
    """Split ``a.b`` / ```a.x`.`b``` `` into parts, honouring backquotes (a doubled backquote is a literal one)."""
    parts: list[str] = []
    current: list[str] = []
    i, n = 0, len(text)
    quoted_part = False
    while i < n:
        ch = text[i]
        if ch == "`":
            end = i + 1
            chunk: list[str] = []
            while True:
                if end >= n:
                    raise InvalidNameError(f"unterminated backquote in {text!r}", text)
                if text[end] == "`":
                    if end + 1 < n and text[end + 1] == "`":
                        chunk.append("`")
                        end += 2
                        continue
                    break
                chunk.append(text[end])
                end += 1
            current.extend(chunk)
            quoted_part = True
            i = end + 1
        elif ch == ".":
            parts.append("".join(current))
            current, quoted_part = [], False
            i += 1
        else:
            if quoted_part:
                raise InvalidNameError(f"unexpected text after backquoted name in {text!r}", text)
            if ch.isspace():
                raise InvalidNameError(f"unquoted name with whitespace: {text!r}", text)
            current.append(ch)
            i += 1
    parts.append("".join(current))
    for part in parts:
        if not part:
            raise InvalidNameError(f"empty name part in {text!r}", text)
    return parts
