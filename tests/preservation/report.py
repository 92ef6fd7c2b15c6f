"""Summarise a discovery run: ``python -m tests.preservation.report FILE.jsonl [...]``.

A discovery run (``PRESERVATION_RECORD=FILE.jsonl PRESERVATION_EXAMPLES=N pytest tests/preservation``) records
every difference it meets instead of stopping at the first; this groups the records into classes (the property and
the set of things that differed, column names left out) and prints, for each class, how often it was met and its
smallest reproduction (the shortest script) with its differences.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

Record = tuple[str, list[str]]


def kind(difference: str) -> str:
    """What differed, without the column or partition it was about; refusals with who refused and why."""
    head = re.sub(r"column '[^']*'", "column", difference.split(":")[0])
    head = re.sub(r"partition \S+", "partition", head)
    if not head.startswith("refusal"):
        return head
    if "the project succeeded" in difference:
        return f"{head}: Spark refused, the project succeeded"
    if "plain Spark succeeded" in difference:
        raised = re.search(r"raised (\w+)", difference)
        reason = next((why for marker, why in (("strict mode", "strict mode"), ("Bucket columns", "bucket columns"))
                       if marker in difference), "")
        return f"{head}: Spark succeeded, the project raised {raised.group(1) if raised else '?'} {reason}".strip()
    return f"{head}: an error not naming the table"


def classes(lines: Iterable[str]) -> dict[tuple[str, tuple[str, ...]], list[Record]]:
    grouped: dict[tuple[str, tuple[str, ...]], list[Record]] = defaultdict(list)
    for line in lines:
        record = json.loads(line)
        if "differences" not in record:
            grouped[(record["test"], ("shape refused by Spark",))].append((record["shape refused"], [record["error"]]))
            continue
        key = (record["test"], tuple(sorted({kind(d) for d in record["differences"]})))
        grouped[key].append((record["case"], record["differences"]))
    return grouped


def main(paths: list[str]) -> None:
    lines = [line for path in paths for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    grouped = classes(lines)
    print(f"{len(lines)} records, {len(grouped)} classes")
    for (test, kinds), records in sorted(grouped.items()):
        case, found = min(records, key=lambda record: len(record[0]))
        print(f"\n## {test}: {len(records)} x {'; '.join(kinds)}\n{case}")
        print("\n".join(f"   - {line[:400]}" for line in found))


if __name__ == "__main__":
    main(sys.argv[1:])
