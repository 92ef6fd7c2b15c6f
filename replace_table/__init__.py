"""Atomic CREATE OR REPLACE TABLE: the state machine of seed MDEV-25292 (TMP + BACKUP, chains C and D)."""
