"""DataFrame writes as the statements they match (:mod:`ddl_log.frontends.extension.writes`): the text the SQL front
end reads (the DataFrame as a temporary view) and the text the binlog records (``/* DataFrame */``), every clause a
CREATE can say, and the calls that have no matching statement."""

from __future__ import annotations

import pytest

from ddl_log.frontends.extension.writes import NAME, VIEW, from_command, from_writer, from_writer_v2

TABLE = {"db": "d", "name": "t", "type": "MANAGED", "provider": "parquet", "schema": "a INT,b STRING",
         "partition_columns": ["b"], "options": {"compression": "zstd", "path": "/ignored"},
         "properties": {"k": "it's"}, "comment": None, "location": None,
         "bucket": {"buckets": 4, "columns": ["a"], "sort": ["a"]}}


def exists(_: str) -> bool:
    return True


def test_a_create_as_select_says_every_clause_of_the_table():
    write = from_command({"kind": "create", "table": TABLE}, exists)
    clauses = ("USING parquet OPTIONS ('compression' = 'zstd') PARTITIONED BY (`b`) CLUSTERED BY (`a`) SORTED BY "
               "(`a`) INTO 4 BUCKETS TBLPROPERTIES ('k' = 'it\\'s')")
    assert write.sql == f"CREATE TABLE `spark_catalog`.`d`.`t` {clauses} AS SELECT * FROM {VIEW}"
    assert write.binlog == f"CREATE TABLE {NAME} {clauses} AS /* DataFrame */"


@pytest.mark.parametrize(("kind", "head"), [("create_if_not_exists", "CREATE TABLE IF NOT EXISTS"),
                                            ("replace", "CREATE OR REPLACE TABLE")])
def test_save_modes_are_their_statements(kind, head):
    assert from_command({"kind": kind, "table": TABLE}, exists).sql.startswith(f"{head} `spark_catalog`.`d`.`t`")


def test_an_append_is_an_insert_into_or_a_create_when_there_is_no_table():
    append = from_command({"kind": "append", "table": TABLE}, exists)
    assert append.binlog == f"INSERT INTO TABLE {NAME} /* DataFrame */"
    assert from_command({"kind": "append", "table": TABLE}, lambda _: False).sql.startswith("CREATE TABLE")


def test_an_insert_keeps_its_static_partitions_and_the_writers_overwrite_mode():
    request = {"kind": "insert", "table": TABLE, "overwrite": True, "partition": {"b": "x'y", "c": None},
               "dynamic": True, "if_partition_not_exists": True}
    write = from_command(request, exists)
    assert write.sql == ("INSERT OVERWRITE TABLE `spark_catalog`.`d`.`t` PARTITION (`b` = 'x\\'y', `c`) IF NOT EXISTS "
                         f"SELECT * FROM {VIEW}")
    assert write.overwrite_mode == "dynamic"
    plain = from_command({**request, "partition": {"b": None}, "dynamic": False, "overwrite": False}, exists)
    assert plain.sql == f"INSERT INTO TABLE `spark_catalog`.`d`.`t` SELECT * FROM {VIEW}" and not plain.overwrite_mode


def test_a_created_table_with_columns_and_an_external_location():
    write = from_command({"kind": "create_table", "if_not_exists": True,
                          "table": {**TABLE, "type": "EXTERNAL", "location": "file:/x", "bucket": None,
                                    "partition_columns": [], "options": {}, "properties": {}}}, exists)
    assert write.sql == ("CREATE TABLE IF NOT EXISTS `spark_catalog`.`d`.`t` (a INT,b STRING) USING parquet "
                         "LOCATION 'file:/x'")
    assert not write.query


def test_recover_partitions_is_its_statement():
    write = from_command({"kind": "repair", "table": {"db": None, "name": "t"}}, exists)
    assert write.sql == "ALTER TABLE `spark_catalog`.`default`.`t` RECOVER PARTITIONS"


def test_save_as_table_overwrite_takes_the_writers_settings():
    state = {"source": "orc", "mode": "Overwrite", "options": {"path": "/p", "k": "v"}, "partition_by": ["b"],
             "bucket_by": None, "sort_by": None, "cluster_by": None}
    write = from_writer(["db", "t"], state)
    assert write.sql == ("CREATE OR REPLACE TABLE `db`.`t` USING orc OPTIONS ('k' = 'v') PARTITIONED BY (`b`) "
                         f"LOCATION '/p' AS SELECT * FROM {VIEW}")
    with pytest.raises(ValueError, match="clusterBy"):
        from_writer(["t"], {**state, "cluster_by": ["a"]})


def test_write_to_calls_and_the_forms_with_no_matching_statement():
    state = {"table": ["t"], "provider": "parquet", "options": {}, "properties": {"owner": "me"},
             "partitioning": [{"name": "identity", "columns": ["b"], "describe": "b"},
                              {"name": "bucket", "columns": ["a"], "describe": "bucket(8, a)"}], "clustering": None}
    assert from_writer_v2("replace", state).sql == (
        "REPLACE TABLE `t` USING parquet PARTITIONED BY (`b`) CLUSTERED BY (`a`) INTO 8 BUCKETS "
        f"TBLPROPERTIES ('owner' = 'me') AS SELECT * FROM {VIEW}")
    assert from_writer_v2("append", state).sql == f"INSERT INTO `t` BY NAME SELECT * FROM {VIEW}"
    overwrite = from_writer_v2("overwritePartitions", state, ["b", "a"])
    assert overwrite.sql == f"INSERT OVERWRITE TABLE `t` SELECT `b`, `a` FROM {VIEW}"
    assert overwrite.overwrite_mode == "dynamic"
    days = {**state, "partitioning": [{"name": "days", "columns": ["ts"], "describe": "days(ts)"}]}
    assert from_writer_v2("create", days) is None
    with pytest.raises(ValueError, match="data source"):
        from_writer_v2("create", {**state, "provider": "parquet) AS SELECT 1 --"})
