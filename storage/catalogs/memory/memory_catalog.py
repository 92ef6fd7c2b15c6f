"""An in-memory :class:`~storage.catalogs.ports.Catalog` for unit tests of the log itself (never the only proof of a
Spark behaviour). It keeps rows so tests can check that data survives, and can be told to fail an operation.

Every in-memory crash sweep trusts it, so it behaves as the Spark catalog does wherever no engine is needed: the
contract suite (tests/contract) runs the same tests on both. Views and tables share one namespace; objects need their
database; names and definitions Spark refuses are refused with the same error types (:mod:`storage.catalogs.rules`);
files left at a table's location block a create or a rename onto it (:class:`LeftoverFilesError`) unless the name is
one of the log's own. It cannot analyse SQL: a SELECT or a view's query is taken as it is.

One class per port (:mod:`storage.catalogs.ports`) over one shared :class:`~.memory_state.MemoryState`: the tables'
ports in :mod:`~.memory_tables`, the swap, versions, kinds and directories in :mod:`~.memory_versions`, views,
functions, databases and copies in :mod:`~.memory_objects`; its files (INSERT's work files, a kept version's directory)
are :mod:`storage.catalogs.memory.memory_files`, its records :mod:`storage.catalogs.memory.memory_table`."""

from __future__ import annotations

from storage.catalogs.memory.memory_objects import MemoryCopies, MemoryDatabases, MemoryFunctions, MemoryViews
from storage.catalogs.memory.memory_state import MemoryState
from storage.catalogs.memory.memory_tables import MemoryDataJobs, MemoryDefinitions, MemoryNames
from storage.catalogs.memory.memory_versions import MemoryDirectories, MemoryKinds, MemorySwaps, MemoryVersions
from storage.catalogs.ports import Catalog


def memory_catalog(*, swap: bool = True, orphan_window: float | None = None) -> Catalog:
    """A :class:`Catalog` in memory; its :class:`MemoryState` is ``catalog.backend``. ``swap=False``: the catalog
    refuses definition swaps, so replaces take the rename path. ``orphan_window``: see
    :class:`~storage.catalogs.memory.memory_table.SwapState`."""
    state = MemoryState(swap=swap, orphan_window=orphan_window)
    definitions, versions = MemoryDefinitions(state), MemoryVersions(state)
    return Catalog(names=MemoryNames(state), data=MemoryDataJobs(state, definitions), definitions=definitions,
                   swaps=MemorySwaps(state, versions), versions=versions, kinds=MemoryKinds(state),
                   directories=MemoryDirectories(state), views=MemoryViews(state), functions=MemoryFunctions(state),
                   databases=MemoryDatabases(state), copies=MemoryCopies(state), backend=state)
