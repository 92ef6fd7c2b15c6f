"""The soak checker's expected directories (found by the short soak in CI: a pending old version of default.t2 was
expected inside soakdb1.db too, and reported as "object without its directory in soakdb1.db: t2")."""

from tests.soak.checker import pending_by_database


def test_defect_pending_old_versions_are_expected_only_in_their_own_database() -> None:
    pending = pending_by_database(["file:/w/warehouse/t2", "file:/w/warehouse/soakdb1.db/t7/",
                                   "/w/warehouse/Sales.db/ddllog_3_ab_tmp"])
    assert pending == {"default": {"t2"}, "soakdb1": {"t7"}, "sales": {"ddllog_3_ab_tmp"}}
