"""Durable record files (fsync, checksums, atomic replace), crash points, names, and the catalog engines."""
