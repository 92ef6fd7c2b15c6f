"""The plans of the statement machine (:mod:`replace_table.machine`), one module per plan family."""
