"""Which partition values a spec gives are stored by Spark as written, so that the metastore can be asked for them
directly (storage/catalogs/spark/hms/partition_values.py); everything else is left to Spark's own statement."""

from __future__ import annotations

import pytest

from storage.catalogs.spark.hms.partition_values import metastore_values, stored_as_written


@pytest.mark.parametrize(("spark_type", "value"), [
    ("int", "0"), ("int", "1"), ("int", "-7"), ("int", "2147483647"), ("int", "-2147483648"),
    ("bigint", "9223372036854775807"), ("tinyint", "-128"), ("smallint", "32767"), ("INT", "12"),
    ("date", "2024-02-29"), ("date", "0001-01-01"),
    ("string", "abc"), ("string", "2024-01-01"), ("string", "A_b-9"),
])
def test_values_spark_stores_as_written(spark_type, value):
    assert stored_as_written(spark_type, value)


@pytest.mark.parametrize(("spark_type", "value"), [
    ("int", "01"), ("int", "+1"), ("int", "-0"), ("int", " 1"), ("int", "1.0"), ("int", "2147483648"),
    ("tinyint", "128"), ("int", ""), ("int", None), ("int", "x"),
    ("date", "2024-1-2"), ("date", "2023-02-29"), ("date", "2024-01-01 00:00:00"), ("date", "20240101"),
    ("string", ""), ("string", None), ("string", "a b"), ("string", "a.b"), ("string", "a/b"), ("string", "a=b"),
    ("string", "é"), ("string", "a%2F"), ("string", "(x"), ("string", "*"),
    ("varchar(3)", "ab"), ("char(3)", "ab"), ("string collate UTF8_LCASE", "ab"),
    ("double", "1.5"), ("decimal(10,2)", "1.50"), ("boolean", "true"), ("timestamp", "2024-01-01 00:00:00"),
])
def test_values_left_to_spark(spark_type, value):
    assert not stored_as_written(spark_type, value)


COLUMNS = [("k", "int"), ("D", "date"), ("s", "string")]


def test_a_whole_spec_gives_every_value_in_column_order():
    assert metastore_values(COLUMNS, {"s": "x", "d": "2024-01-01", "K": "3"}) == ["3", "2024-01-01", "x"]


def test_a_partial_spec_gives_any_value_for_the_columns_it_leaves_out():
    assert metastore_values(COLUMNS, {"d": "2024-01-01"}) == ["", "2024-01-01", ""]


def test_a_column_whose_name_is_not_plain_leaves_the_spec_to_spark():
    assert metastore_values([("a.b", "int"), ("s", "string")], {"s": "x"}) is None
    assert metastore_values([("r s", "int")], {"r s": "1"}) is None


@pytest.mark.parametrize("spec", [
    {}, {"k": "01"}, {"k": "1", "s": "a b"}, {"nope": "1"}, {"k": "1", "nope": "1"}, {"s": None},
])
def test_a_spec_spark_must_read_is_left_to_it(spec):
    assert metastore_values(COLUMNS, spec) is None
