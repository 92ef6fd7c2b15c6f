"""The note of a kept directory (:mod:`storage.catalogs.kept_directories`) on Spark's file systems: Python's file
functions for local directories, Hadoop's ``FileSystem`` of the session elsewhere (HDFS, object stores); a Spark
Connect session has neither, so it writes no note. The catalog's ``write_kept_note``, ``remove_kept_note`` and
``read_kept_note`` are these functions on its engine."""

from __future__ import annotations

import contextlib
import os
from typing import Any

from storage.catalogs.kept_directories import KEPT_NOTE
from storage.catalogs.spark.engine import ENGINE_ERRORS, Engine, inspect_error
from storage.catalogs.spark.jvm import new
from storage.catalogs.spark.profile import local_path
from storage.errors import EngineOperationError


def write_note(engine: Engine, location: str, text: str) -> bool:
    """``text`` as the note of the directory ``location`` (False: the directory is gone, or no way to write)."""
    local = local_path(location)
    if local is not None:
        if not local.is_dir():
            return False
        staged = local / f".{KEPT_NOTE}.new"  # hidden while it is written, then in place at once
        try:
            staged.write_text(text, encoding="utf-8")
            os.replace(staged, local / KEPT_NOTE)
        except OSError as error:
            raise EngineOperationError(f"cannot write {KEPT_NOTE} into {location}: {error}", location,
                                       error) from None
        return True
    try:
        found = engine.hadoop(location)
        if found is None:
            return False
        file_system, directory = found
        if not file_system.exists(directory):
            return False
        stream = file_system.create(_child(engine, directory), True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()
    except ENGINE_ERRORS as error:
        raise EngineOperationError(f"cannot write {KEPT_NOTE} into {location}: {inspect_error(error).message}",
                                   location, error) from None
    return True


def remove_note(engine: Engine, location: str) -> None:
    local = local_path(location)
    if local is not None:
        with contextlib.suppress(FileNotFoundError):
            (local / KEPT_NOTE).unlink()
        return
    try:
        found = engine.hadoop(location)
        if found is not None:
            file_system, directory = found
            file_system.delete(_child(engine, directory), False)
    except ENGINE_ERRORS as error:
        raise EngineOperationError(f"cannot remove {KEPT_NOTE} from {location}: {inspect_error(error).message}",
                                   location, error) from None


def read_note(engine: Engine, location: str) -> str | None:
    """The note of the directory ``location`` (None: none there, or no way to read: Spark Connect)."""
    local = local_path(location)
    if local is not None:
        try:
            return (local / KEPT_NOTE).read_text(encoding="utf-8", errors="replace")
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            raise EngineOperationError(f"cannot read {KEPT_NOTE} in {location}: {error}", location, error) from None
    try:
        found = engine.hadoop(location)
        if found is None:
            return None
        file_system, directory = found
        note = _child(engine, directory)
        if not file_system.exists(note):
            return None
        stream = file_system.open(note)
        try:
            return bytes(stream.readAllBytes()).decode("utf-8", errors="replace")
        finally:
            stream.close()
    except ENGINE_ERRORS as error:
        raise EngineOperationError(f"cannot read {KEPT_NOTE} in {location}: {inspect_error(error).message}",
                                   location, error) from None


def _child(engine: Engine, directory: Any) -> Any:
    jvm = engine.jvm
    assert jvm is not None  # a Hadoop path was made: a classic session
    return new(jvm.view, jvm.classes.hadoop_path, directory, KEPT_NOTE)
