"""The Spark catalog's parts that touch files: leftovers at a default location, INSERT INTO's file moves, a kept
version's directory and its note, a version's files copied."""
