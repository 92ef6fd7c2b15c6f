"""The in-memory catalog: a :class:`~storage.catalogs.interface.Catalog` for fast tests of the log itself."""

from storage.catalogs.memory.memory_catalog import MemoryCatalog, memory_catalog
from storage.catalogs.memory.memory_table import MemoryTable

__all__ = ["MemoryCatalog", "MemoryTable", "memory_catalog"]
