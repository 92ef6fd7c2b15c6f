"""One walker finds the Spark condition behind any error the project raises or carries (storage.errors.spark_condition):
what ``.condition`` says and what an attached session hands to Spark's AnalysisException are the same answer."""

from __future__ import annotations

from pyspark.errors.exceptions.base import AnalysisException

from actions.errors import StatementFailedError
from storage.errors import NoSuchObjectError, WrongObjectKindError, spark_condition


def spark_error() -> AnalysisException:
    return AnalysisException(message="[TABLE_OR_VIEW_NOT_FOUND] The table or view `t` cannot be found.",
                             errorClass="TABLE_OR_VIEW_NOT_FOUND", messageParameters={"relationName": "`t`"})


def test_a_spark_error_gives_its_condition_and_its_message_parameters():
    assert spark_condition(spark_error()) == ("TABLE_OR_VIEW_NOT_FOUND", {"relationName": "`t`"})


def test_a_project_error_carrying_a_spark_error_gives_the_spark_errors_condition_and_parameters():
    carried = StatementFailedError("DROP TABLE", "d.t", spark_error())
    assert spark_condition(carried) == ("TABLE_OR_VIEW_NOT_FOUND", {"relationName": "`t`"})
    assert carried.condition == "TABLE_OR_VIEW_NOT_FOUND" and carried.sqlstate == "42P01"


def test_the_condition_a_project_error_names_wins_over_its_cause():
    named = WrongObjectKindError.view_not_table("d.v")
    assert spark_condition(StatementFailedError("TRUNCATE TABLE", "d.v", named)) == ("EXPECT_TABLE_NOT_VIEW", {})


def test_a_jvm_message_that_starts_with_a_condition_gives_it_also_as_a_python_cause():
    try:
        try:
            raise RuntimeError("py4j: org.apache.spark.SparkClassNotFoundException: [DATA_SOURCE_NOT_FOUND] No source")
        except RuntimeError as error:
            raise ValueError("wrapped") from error
    except ValueError as outer:
        assert spark_condition(outer) == ("DATA_SOURCE_NOT_FOUND", {})


def test_an_error_the_project_alone_raises_has_no_condition():
    assert spark_condition(NoSuchObjectError("missing", "d.t")) == (None, {})
    assert spark_condition(ValueError("plain")) == (None, {})
