"""One sample payload per action type, every optional field set (for round-trip and strictness tests)."""

from __future__ import annotations

from chains.entries import ActionType
from chains.payloads import (
    AddColumnsChange,
    AlterTablePayload,
    CreateDatabasePayload,
    CreateFunctionPayload,
    CreateTablePayload,
    CreateViewPayload,
    DeleteDataPayload,
    DropFunctionPayload,
    DropInitPayload,
    DropPayload,
    DropViewPayload,
    NoPayload,
    Payload,
    RenameTablePayload,
    RenameViewPayload,
    SwapTablePayload,
)
from storage.catalogs.interface import Column, FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName

VIEW = ViewDefinition("SELECT 1 AS a", "a comment", ("a",))
FUNCTION = FunctionDefinition(class_name="com.example.F", resources=(("jar", "/x.jar"),))


def sample_payload(action_type: ActionType) -> Payload:
    samples: dict[ActionType, Payload] = {
        ActionType.CREATE_TABLE: CreateTablePayload(owns_location=True, renamed_from=TableName("d", "tmp")),
        ActionType.RENAME_TABLE: RenameTablePayload(owns_location=True),
        ActionType.DROP_INIT: DropInitPayload("DROP TABLE t", ("default.t",)),
        ActionType.DROP_TABLE: DropPayload(keep_files=True),
        ActionType.DROP_VIEW: DropViewPayload(VIEW),
        ActionType.DROP_FUNCTION: DropFunctionPayload(FUNCTION),
        ActionType.DROP_DB: DropPayload(keep_files=True),
        ActionType.CREATE_VIEW: CreateViewPayload(VIEW, ViewDefinition("SELECT 2")),
        ActionType.RENAME_VIEW: RenameViewPayload(VIEW),
        ActionType.CREATE_FUNCTION: CreateFunctionPayload(None, FUNCTION),
        ActionType.ALTER_TABLE: AlterTablePayload(
            AddColumnsChange((Column("c", "INT", "note"),), "c INT COMMENT 'note'")),
        ActionType.CREATE_DB: CreateDatabasePayload(owns_location=False),
        ActionType.SWAP_TABLE: SwapTablePayload("x1-new", "x1-new:holder", "x0-old"),
        ActionType.FORGET_TABLE: NoPayload(),
        ActionType.DELETE_DATA: DeleteDataPayload("file:/warehouse/t", 1795434777.5),
    }
    return samples[action_type]
