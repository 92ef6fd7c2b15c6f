"""An error about a statement's work table is shown about the table it stands for (:func:`actions.errors.user_names`,
:func:`actions.errors.named_for_user`): the log's bookkeeping never shows in what a caller reads."""

from __future__ import annotations

from actions.errors import named_for_user, user_names
from storage.errors import EngineOperationError, InvalidDefinitionError

WORK = {"ddllog_7_ab12cd_tmp": "sales", "ddllog_7_ab12cd_bak": "sales"}


def test_every_spelling_spark_and_the_log_use_is_renamed() -> None:
    assert user_names("cannot insert into default.ddllog_7_ab12cd_tmp: Cannot write to "
                      "`spark_catalog`.`default`.`DDLLOG_7_AB12CD_TMP`", WORK) == (
        "cannot insert into default.sales: Cannot write to `spark_catalog`.`default`.`sales`")
    assert user_names("a column ddllog_7_ab12cd_tmpx, ddllog_select", WORK) == "a column ddllog_7_ab12cd_tmpx, " \
                                                                              "ddllog_select"  # names only
    assert user_names("default.ddllog_7_ab12cd_tmp", {}) == "default.ddllog_7_ab12cd_tmp"


def test_the_error_and_the_project_errors_it_carries_are_renamed_in_place() -> None:
    inner = InvalidDefinitionError("cannot insert into default.ddllog_7_ab12cd_tmp: bad", "default.ddllog_7_ab12cd_tmp")
    outer = EngineOperationError("creating default.ddllog_7_ab12cd_tmp failed", "default.ddllog_7_ab12cd_tmp", inner)
    named_for_user(outer, WORK)
    assert (str(outer), outer.name) == ("creating default.sales failed", "default.sales")
    assert (str(inner), inner.name) == ("cannot insert into default.sales: bad", "default.sales")
