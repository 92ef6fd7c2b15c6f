"""Random-kill soak of the DDL log on the embedded default (local Spark + Derby): ``make soak``.

``run`` is the parent (spawns a worker per iteration and SIGKILLs its process group at a random instant),
``workload`` the worker (recovers, checks, then runs a random workload of atomic statements until it is killed),
``checker`` the model of the expected catalog and the comparison with what is really there.
"""
