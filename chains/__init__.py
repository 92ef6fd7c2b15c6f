"""The DDL log's data model on disk: typed entries, linked chains, XIDs, the binlog, two-phase commit."""
