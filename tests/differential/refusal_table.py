"""The refusal table of docs/limitations.md ("What the SQL front end refuses") as statement patterns: the one list
both differential runs hold the project's refusals to (the generator's, :mod:`tests.differential.outcomes`, and the
golden-file run's, :mod:`tests.differential.golden_sides`). A refusal of a statement none of them matches is a
difference from Spark."""

from __future__ import annotations

import re

_F = re.I | re.S
REFUSAL_TABLE = (
    ("LOAD DATA", re.compile(r"^\s*LOAD\s+DATA\b", _F)),
    ("MSCK REPAIR TABLE, REPAIR TABLE, RECOVER PARTITIONS",
     re.compile(r"^\s*(?:MSCK\s+)?REPAIR\s+TABLE\b|^\s*ALTER\s+TABLE\b.*\bRECOVER\s+PARTITIONS\b", _F)),
    ("INSERT OVERWRITE [LOCAL] DIRECTORY", re.compile(r"^\s*INSERT\s+OVERWRITE\s+(?:LOCAL\s+)?DIRECTORY\b", _F)),
    ("EXECUTE IMMEDIATE, BEGIN ... END", re.compile(r"^\s*(?:EXECUTE\s+IMMEDIATE|BEGIN)\b", _F)),
    ("multi-insert", re.compile(r"^\s*(?:WITH\b.*)?\bFROM\b(?:.*\bINSERT\s+(?:INTO|OVERWRITE)\b){2}", _F)),
    ("LOCATION: CREATE [EXTERNAL] TABLE|DATABASE ... LOCATION, SET LOCATION, ADD PARTITION ... LOCATION",
     re.compile(r"^\s*(?:CREATE|ALTER)\b.*\bLOCATION\b|^\s*CREATE\s+(?:OR\s+REPLACE\s+)?EXTERNAL\b", _F)),
    ("ALTER TABLE ... PARTITION (...) RENAME TO PARTITION",
     re.compile(r"^\s*ALTER\s+TABLE\b.*\bRENAME\s+TO\s+PARTITION\b", _F)),
    ("ALTER TABLE ... SET SERDE | SERDEPROPERTIES", re.compile(r"^\s*ALTER\s+TABLE\b.*\bSET\s+SERDE", _F)),
    ("INSERT OVERWRITE ... PARTITION (a=NULL)", re.compile(r"^\s*INSERT\s+OVERWRITE\b.*\bPARTITION\s*\([^)]*=\s*NULL\b",
                                                           _F)),
    ("ALTER COLUMN ... SET/DROP DEFAULT, SET/DROP NOT NULL",
     re.compile(r"^\s*ALTER\s+TABLE\b.*\b(?:SET|DROP)\s+(?:DEFAULT|NOT\s+NULL)\b", _F)),
    ("ALTER DATABASE, COMMENT ON DATABASE | COLUMN",
     re.compile(r"^\s*(?:ALTER\s+(?:DATABASE|SCHEMA|NAMESPACE)|COMMENT\s+ON\s+(?:DATABASE|SCHEMA|NAMESPACE|COLUMN))\b",
                _F)),
    ("view column comments", re.compile(r"^\s*(?:CREATE|ALTER)\b.*\bVIEW\b[^(]*\([^)]*\bCOMMENT\b", _F)),
    ("nested columns: ALTER TABLE ... ALTER | CHANGE [COLUMN] a.b",
     re.compile(r"^\s*ALTER\s+TABLE\b.*\b(?:ALTER|CHANGE)\s+(?:COLUMN\s+)?(?:`[^`]+`|\w+)\.", _F)),
    ("SQL function characteristics, SQL table functions",
     re.compile(r"^\s*CREATE\b.*\bFUNCTION\b.*\bRETURNS\s+(?:TABLE\b|.*\b(?:DETERMINISTIC|CONTAINS\s+SQL|READS\s+SQL"
                r"\s+DATA|LANGUAGE\s+SQL|SQL\s+SECURITY|COMMENT)\b.*\bRETURN\b)", _F)),
    ("IDENTIFIER(...) of anything but string literals", re.compile(r"\bIDENTIFIER\s*\(\s*[^'\s]", _F)),
    ("names as double-quoted identifiers (spark.sql.ansi.doubleQuotedIdentifiers)",
     re.compile(r"^\s*(?:CREATE|DROP|ALTER|TRUNCATE|INSERT)\b[^'\"]*\"", _F)),
)
"""(the refusal table's form, the statements of it)."""


def refused_form(statement: str) -> str | None:
    """Which form of the refusal table ``statement`` is (None: none)."""
    for form, pattern in REFUSAL_TABLE:
        if pattern.search(statement):
            return form
    return None
