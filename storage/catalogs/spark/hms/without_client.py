"""What the catalog answers where it has no Hive metastore client of its own (Spark Connect, or a session catalog that
is not the Hive metastore: :attr:`~storage.catalogs.spark.profile.SparkProfile.metastore_refusal` says which). The
catalog wires this object in place of the definition swap, the table versions and the kind exchange
(:mod:`storage.catalogs.spark.catalog`), so those parts never ask whether they have a client: a replace is refused
the swap and takes the rename path, no version is kept, no kind changes in one step, nothing is proven unused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from storage.catalogs.interface import ColumnChange, DataSummary, SwapPlan, TableVersion
from storage.catalogs.names import TableName
from storage.catalogs.spark.engine import Engine
from storage.catalogs.spark.hms.swap import refresh
from storage.errors import CatalogError


class WithoutMetastoreClient:
    """The definition swap, table versions and kind exchange of a session without a metastore client of the
    catalog's own: refusals, and nothing done."""

    def __init__(self, engine: Engine, refusal: str) -> None:
        self._engine = engine
        self.refusal = refusal

    def _refused(self, what: str, name: TableName) -> CatalogError:
        return CatalogError(f"cannot {what} {name}: {self.refusal}", str(name))

    # ------------------------------------------------------------------ the swap's

    def plan_swap(self, orig: TableName, tmp: TableName, *, keep_statistics: bool = False) -> SwapPlan:
        return SwapPlan(self.refusal)

    def plan_empty_swap(self, orig: TableName, tmp: TableName, tag: str, *,
                        emptied: Sequence[Mapping[str, str]] | None = None) -> SwapPlan:
        return SwapPlan(self.refusal)

    def plan_write_swap(self, orig: TableName, tmp: TableName, tag: str) -> SwapPlan:
        return SwapPlan(self.refusal)

    def plan_created_swap(self, orig: TableName, tmp: TableName) -> SwapPlan:
        return SwapPlan(self.refusal)

    def clone_empty(self, source: TableName, name: TableName, tag: str, *, partitions_in_files: bool = False) -> bool:
        """False: Spark's CREATE TABLE LIKE makes the copy."""
        return False

    def clone_altered(self, source: TableName, name: TableName, tag: str, change: ColumnChange) -> None:
        raise CatalogError(f"cannot rebuild {source} keeping its whole definition: {self.refusal}", str(source))

    def rename_in_place(self, old: TableName, new: TableName, *, keep_directory: bool = False) -> bool:
        """False: Spark's RENAME runs (the directory moves with it: a definition is not created whole here)."""
        return False

    def exchange_definitions(self, orig: TableName, tmp: TableName, plan: SwapPlan, *,
                             between: Callable[[], None]) -> None:
        raise CatalogError(f"cannot swap the definition of {orig}: {plan.refusal or self.refusal}", str(orig))

    def settle_statistics(self, name: TableName, previous: TableName) -> None:
        """Nothing: without the metastore client the new version keeps the statistics the engine gave it."""

    def restore_definition(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        raise self._refused("restore the definition of", orig)

    def forget_table(self, name: TableName, *, expect: str) -> bool:
        raise self._refused("remove from the metastore", name)

    def user_of(self, location: str) -> str | None:
        return f"whether anything uses it cannot be checked ({self.refusal})"

    def refresh(self, name: TableName) -> None:
        refresh(self._engine, name)

    # ------------------------------------------------------------------ the versions'

    def version_of(self, name: TableName) -> TableVersion | None:
        return None

    def definition_to_create(self, name: TableName) -> str | None:
        return None

    def install_refusal(self, name: TableName, definition: str) -> str | None:
        return self.refusal

    def install_version(self, name: TableName, definition: str, tag: str | None, *, create: bool) -> None:
        raise self._refused("install a version of", name)

    def data_summary(self, location: str) -> DataSummary | None:
        return None

    # ------------------------------------------------------------------ the kind exchange's

    def relation_tag(self, name: TableName) -> str | None:
        return None

    def kind_refusal(self, orig: TableName, tmp: TableName) -> str | None:
        return self.refusal

    def exchange_kinds(self, orig: TableName, tmp: TableName, holder_tag: str, *,
                       between: Callable[[], None]) -> str | None:
        raise self._refused("change the kind of", orig)

    def restore_kind(self, orig: TableName, holder: TableName, orig_tag: str | None) -> None:
        raise self._refused("restore the kind of", orig)
