"""The in-memory catalog: a :class:`~storage.catalogs.ports.Catalog` for fast tests of the log."""

from storage.catalogs.memory.memory_catalog import memory_catalog
from storage.catalogs.memory.memory_state import MemoryState
from storage.catalogs.memory.memory_table import MemoryTable

__all__ = ["MemoryState", "MemoryTable", "memory_catalog"]
