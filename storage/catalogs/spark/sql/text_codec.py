"""Text the catalog stores in metastore properties (a view's or a function's record): JSON, compressed, hex."""

from __future__ import annotations

import json
import zlib
from typing import Any


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
