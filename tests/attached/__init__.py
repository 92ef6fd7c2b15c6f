"""Attached sessions (README "Attached sessions"): statements issued as ``spark.sql``, DataFrame writers and the
catalog API on a session attached to a DDL log home, run through the extension and the Python engine."""
