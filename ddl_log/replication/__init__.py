"""Replication: a replica home applies a source home's binlog exactly once, each event as one atomic statement of
the replica whose own binlog event carries the source position (:mod:`~ddl_log.replication.origin`)."""
