"""The statement engine: every DDL statement as a typed value that knows its locks, its binlog text and how it runs
(:mod:`~ddl_log.engine.typed`), one file per family of statements (:mod:`~ddl_log.engine.tables`,
:mod:`~ddl_log.engine.views`, :mod:`~ddl_log.engine.alter`), the driver every undo statement runs under
(:mod:`~ddl_log.engine.driver`: log, operate, commit or undo), and recovery (:mod:`~actions.recovery`), with
their helpers: ALTER TABLE operations (:mod:`~ddl_log.engine.alter_ops`), INSERT OVERWRITE plans
(:mod:`~ddl_log.engine.overwrite`), column lists (:mod:`~ddl_log.engine.schema`) and canonical statement texts
(:mod:`~ddl_log.engine.texts`)."""
