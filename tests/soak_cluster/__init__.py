"""Cluster soak (issue 16): several driver processes on one PostgreSQL-backed metastore service, their DDL logs in
one PostgreSQL database, SIGKILLed at random and replaced by drivers with new homes, a reader process checking
every read, and a final check of the catalog, the binlog, the logs and the locks: ``make soak-cluster``.

``run`` is the parent (servers, drivers, reader, killer), ``driver`` and ``reader`` the subprocesses, ``plan`` the
statements and their effects, ``final`` the checker process (takeover of dead homes, then what Spark sees),
``verdict`` the comparison, ``cluster_state`` what is read of the shared state (options, catalog binlog, homes, logs).
"""
