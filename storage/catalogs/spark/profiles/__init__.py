"""The facts of each supported Spark line (:class:`~storage.catalogs.spark.profiles.facts.VersionFacts`), and which
one a session's version gets (:func:`facts_for`)."""

from __future__ import annotations

from storage.catalogs.spark.profiles import spark40, spark41, spark43
from storage.catalogs.spark.profiles.facts import VersionFacts

KNOWN: dict[str, VersionFacts] = {facts.line: facts for facts in (spark40.FACTS, spark41.FACTS, spark43.FACTS)}
"""Facts by Spark line (``major.minor``)."""

NEWEST = spark43.FACTS


def facts_for(version: str | None) -> VersionFacts:
    """The facts of the line ``version`` (``4.0.1`` -> ``4.0``); a line not known yet gets the newest known one's
    (its conditions and classes are the likeliest to hold), None too."""
    if version is None:
        return NEWEST
    line = ".".join(version.split(".")[:2])
    return KNOWN.get(line, NEWEST)
