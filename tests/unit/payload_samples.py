"""One sample payload per action type, every optional field set (for round-trip and strictness tests)."""

from __future__ import annotations

from actions.kinds.alter_table import AddColumnsChange, AlterTablePayload
from actions.kinds.change_kind import ChangeKindPayload
from actions.kinds.claim_version import ClaimVersionPayload
from actions.kinds.create_db import CreateDatabasePayload
from actions.kinds.create_function import CreateFunctionPayload
from actions.kinds.create_table import CreateTablePayload
from actions.kinds.create_view import CreateViewPayload
from actions.kinds.delete_data import DeleteDataPayload, KeptVersion
from actions.kinds.drop_db import DropDatabasePayload
from actions.kinds.drop_function import DropFunctionPayload
from actions.kinds.drop_init import DropInitPayload
from actions.kinds.drop_table import DropTablePayload
from actions.kinds.drop_view import DropViewPayload
from actions.kinds.forget_table import ForgetTablePayload
from actions.kinds.install_version import InstallVersionPayload
from actions.kinds.kind import Payload
from actions.kinds.move_files import MoveFilesPayload
from actions.kinds.relocate_version import RelocateVersionPayload
from actions.kinds.remove_job_files import RemoveJobFilesPayload
from actions.kinds.remove_record import RemoveRecordPayload
from actions.kinds.rename_table import RenameTablePayload
from actions.kinds.rename_view import RenameViewPayload
from actions.kinds.swap_table import SwapTablePayload
from actions.kinds.sweep_table import SweepTablePayload
from chains.entries import ActionType
from storage.catalogs.file_moves import FileMove, MovePlan
from storage.catalogs.interface import Column, FunctionDefinition, ViewDefinition
from storage.catalogs.names import TableName

VIEW = ViewDefinition("SELECT 1 AS a", "a comment", ("a",))
FUNCTION = FunctionDefinition(class_name="com.example.F", resources=(("jar", "/x.jar"),))


def sample_payload(action_type: ActionType) -> Payload:
    samples: dict[ActionType, Payload] = {
        ActionType.CREATE_TABLE: CreateTablePayload(owns_location=True, renamed_from=TableName("d", "tmp"),
                                                     late_writes=610.0),
        ActionType.RENAME_TABLE: RenameTablePayload(owns_location=True),
        ActionType.DROP_INIT: DropInitPayload("DROP TABLE t", ("default.t",)),
        ActionType.DROP_TABLE: DropTablePayload(keep_files=True),
        ActionType.DROP_VIEW: DropViewPayload(VIEW),
        ActionType.DROP_FUNCTION: DropFunctionPayload(FUNCTION),
        ActionType.DROP_DB: DropDatabasePayload(keep_files=True),
        ActionType.CREATE_VIEW: CreateViewPayload(VIEW, ViewDefinition("SELECT 2")),
        ActionType.RENAME_VIEW: RenameViewPayload(VIEW),
        ActionType.CREATE_FUNCTION: CreateFunctionPayload(None, FUNCTION),
        ActionType.ALTER_TABLE: AlterTablePayload(
            AddColumnsChange((Column("c", "INT", "note"),), "c INT COMMENT 'note'")),
        ActionType.CREATE_DB: CreateDatabasePayload(owns_location=False),
        ActionType.SWAP_TABLE: SwapTablePayload("x1-new", "x1-new:holder", "x0-old"),
        ActionType.FORGET_TABLE: ForgetTablePayload(),
        ActionType.DELETE_DATA: DeleteDataPayload("file:/warehouse/t", 1795434777.5,
                                                  KeptVersion('{"t": 1}', 1795431177.5, "DROP TABLE", True, 7)),
        ActionType.INSTALL_VERSION: InstallVersionPayload('{"t": 0}'),
        ActionType.CLAIM_VERSION: ClaimVersionPayload(12),
        ActionType.SWEEP_TABLE: SweepTablePayload("file:/warehouse/ddllog_7_abcdef_tmp", 1795434777.5),
        ActionType.CHANGE_KIND: ChangeKindPayload("x1-new", "x1-new:holder", None),
        ActionType.MOVE_FILES: MoveFilesPayload(MovePlan("file:/warehouse/t", (
            FileMove("file:/warehouse/ddllog_7_ab_tmp/k=a%2Fb/part-0", "file:/warehouse/t/k=a%2Fb/part-0",
                     (("k", "a/b"),)),), ((("k", "a/b"),), (("k", "e"),)))),
        ActionType.RELOCATE_VERSION: RelocateVersionPayload("file:/warehouse/t", "file:/warehouse/ddllog_9_kept_t", 9),
        ActionType.REMOVE_RECORD: RemoveRecordPayload('{"t": 2}'),
        ActionType.REMOVE_JOB_FILES: RemoveJobFilesPayload(
            "file:/warehouse/t", "6f1c2a9e-0b7d-4e54-9c1f-2d3e4f5a6b7c", ((("k", "a/b"),), (("k", "e"),)), 30.0),
    }
    return samples[action_type]
