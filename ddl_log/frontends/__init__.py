"""The ways in for people and tools: the SQL front end (:mod:`ddl_log.frontends.sql`), the ``ddl-log`` command
(:mod:`ddl_log.frontends.cli`) and the demo; each turns what it reads into the engine's typed statements. A dbt
adapter lives in the ``dbt`` namespace package, as dbt's plugin convention requires, and uses the same statements."""
