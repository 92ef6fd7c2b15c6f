"""The statement engine: every DDL statement as a typed value that knows its locks, its binlog text and how it runs
(:mod:`~ddl_log.engine.typed`), one file per family of statements (:mod:`~ddl_log.engine.tables`,
:mod:`~ddl_log.engine.views`, :mod:`~ddl_log.engine.alter`), each checking its statement and running it as a plan on
the statement machine (:mod:`replace_table.machine`, :mod:`replace_table.plans`), and recovery
(:mod:`~actions.recovery`), with their helpers: ALTER TABLE operations (:mod:`~ddl_log.engine.alter_ops`), INSERT
OVERWRITE plans (:mod:`~ddl_log.engine.overwrite`), column lists (:mod:`~ddl_log.engine.schema`) and canonical
statement texts (:mod:`~ddl_log.engine.texts`)."""
