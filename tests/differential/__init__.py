"""Differential testing of the SQL front end against plain Spark (issue 25).

Random scripts (:mod:`~tests.differential.grammar`, seeded) run through plain ``spark.sql``
(:mod:`~tests.differential.plain`, with the users' equivalents of what Spark cannot run on parquet tables) and
through ``AtomicDDL.sql``, side by side (:mod:`~tests.differential.harness`); after every statement the outcomes
(:mod:`~tests.differential.outcomes`) and the whole states (:mod:`~tests.differential.state`) are compared, and a
difference is shrunk to a minimal script. ``python -m tests.differential.run`` (``make differential``) is the long
run; ``test_differential_short.py`` the short one in the test suite.
"""
