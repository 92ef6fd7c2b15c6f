"""The statements :class:`~ddl_log.api.AtomicDDL` runs, one file per family: :mod:`~ddl_log.statements.driver` (the
driver every undo statement runs under: log, operate, commit or undo), :mod:`~ddl_log.statements.tables`,
:mod:`~ddl_log.statements.views` and :mod:`~ddl_log.statements.alter` (the statements), with their helpers:
:mod:`~ddl_log.statements.alter_ops` (ALTER TABLE operations), :mod:`~ddl_log.statements.overwrite` (INSERT
OVERWRITE plans), :mod:`~ddl_log.statements.schema` (column lists) and :mod:`~ddl_log.statements.texts` (statement
texts for the binlog). :mod:`~ddl_log.statements.typed` has the statements as typed values (what the SQL front end
reads and :meth:`AtomicDDL.execute <ddl_log.api.AtomicDDL.execute>` runs)."""
