"""A model of a table name's versions (issue 36), and a runner that plays a history of statements on a DDL log
home and on the model side by side, checking after every step that DESCRIBE HISTORY and RESTORE ... AS OF agree
with the model. Used on the in-memory catalog with random histories (tests/unit/test_version_model.py) and on Spark
with a short one (tests/spark/test_review36.py).

The model is the README's ("Table versions"): CREATE, CREATE OR REPLACE and TRUNCATE make a new version; INSERT INTO
adds rows to the current one; RESTORE and UNDROP make a kept version current again (its number kept, a new period);
DROP ends the current version's period (no table has the name until UNDROP or CREATE); a retired version is kept for
the retention after it was retired, then it is gone for every purpose. RESTORE TO TIMESTAMP AS OF ts installs the
version whose period holds ts (nothing when it is the current one), or is refused with the reason: ``dropped`` (no
table then), ``not_created`` (before the first version), ``expired`` (the version of that time is gone). Where what
would tell them apart is past its retention the log may say either of the last two (an instant before its oldest
version, a CREATE TABLE's: the table did not exist yet as far as the log knows)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import attrs

from actions.kept_versions import time_text
from ddl_log import NoSuchVersionError, ObjectExistsError

STEP_SECONDS = 10.0
RETENTION = 35.0


class Clock:
    """``time.time`` for a test: ``frozen``, still until moved (every record of one statement has its instant);
    else the real time plus the steps taken (Spark's own threads keep a moving clock)."""

    def __init__(self, *, frozen: bool = True, real: Callable[[], float] = time.time) -> None:
        self.real = real
        self.base = 1_800_000_000.0 if frozen else None
        self.offset = 0.0

    @property
    def now(self) -> float:
        return (self.real() if self.base is None else self.base) + self.offset

    def __call__(self) -> float:
        return self.now

    def step(self, seconds: float = STEP_SECONDS) -> float:
        """Move on; returns the instant halfway through the step (between the statements around it)."""
        before = self.now
        self.offset += seconds
        return before + seconds / 2


@attrs.define
class ModelVersion:
    number: int
    content: Any
    made_by: str
    periods: list[list[Any]]
    """``[start, end or None, ended by a DROP]``, oldest first."""
    due: float | None = None

    @property
    def start(self) -> float:
        return float(self.periods[-1][0])

    @property
    def retired_at(self) -> float | None:
        end = self.periods[-1][1]
        return None if end is None else float(end)


class Driver(Protocol):
    """The statements on one table name ``t``, and what the table holds now (None: no table)."""

    def run(self, step: str, rows: tuple[int, ...]) -> Any: ...

    def restore(self, *, version: int | None = None, timestamp: float | None = None) -> Any: ...

    def undrop(self) -> Any: ...

    def content(self) -> Any: ...

    def history(self) -> tuple[Any, ...]: ...


class ApiDriver:
    """What every driver does the same through the Python API on ``t`` (``ddl``: the home)."""

    ddl: Any

    def restore(self, **kwargs: Any) -> Any:
        return self.ddl.restore_table("t", **kwargs)

    def undrop(self) -> Any:
        return self.ddl.undrop_table("t")

    def history(self) -> tuple[Any, ...]:
        return self.ddl.describe_history("t").rows


OPERATIONS = {"create": "CREATE TABLE", "replace": "CREATE OR REPLACE TABLE", "truncate": "TRUNCATE TABLE"}


class Model:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.versions: dict[int, ModelVersion] = {}
        self.current: int | None = None
        self.instants: list[float] = [clock.now - 1]

    def known(self, version: ModelVersion) -> bool:
        return version.number == self.current or (version.due is not None and version.due > self.clock.now)

    def retire(self, *, dropped: bool) -> None:
        assert self.current is not None
        version = self.versions[self.current]
        version.periods[-1][1], version.periods[-1][2] = self.clock.now, dropped
        version.due = self.clock.now + RETENTION
        self.current = None

    def make_current(self, number: int, made_by: str) -> None:
        version = self.versions[number]
        version.periods.append([self.clock.now, None, False])
        version.made_by, version.due, self.current = made_by, None, number

    def known_end_before(self, instant: float) -> bool:
        """Whether a version the log still knows stopped being current before ``instant`` (else the log cannot tell
        an instant before its oldest version from one before the table existed)."""
        return any(end is not None and end <= instant for v in self.versions.values() if self.known(v)
                   for _, end, _ in v.periods)

    def at(self, instant: float) -> tuple[ModelVersion | None, str, bool]:
        """The version current at ``instant`` (or None, why, and whether the log still knows what says why)."""
        for version in self.versions.values():
            if any(start <= instant < (end if end is not None else float("inf")) for start, end, _ in version.periods):
                return version, "", True
        ended = [(end, dropped, version) for version in self.versions.values() for _, end, dropped in version.periods
                 if end is not None and end <= instant]
        if ended:
            _, dropped, version = max(ended, key=lambda item: item[0])
            return None, "dropped" if dropped else "expired", self.known(version)
        first = min(self.versions.values(), key=lambda v: v.periods[0][0])
        return None, "not_created", self.known(first)


def expected_history(model: Model) -> list[tuple[int, bool, str, int]]:
    """(number, current, operation, periods) of DESCRIBE HISTORY's rows: current first, then the kept ones, the
    most recently retired first."""
    known = [v for v in model.versions.values() if model.known(v)]
    ordered = sorted(known, key=lambda v: (v.number == model.current, v.retired_at or 0.0), reverse=True)
    return [(v.number, v.number == model.current, v.made_by, len(v.periods)) for v in ordered]


def play(driver: Driver, model: Model, steps: list[tuple[str, Any]], check: Callable[[bool, str], None], *,
         times: bool = True) -> None:
    """Run ``steps`` (name, argument) on ``driver`` and ``model``; ``check(condition, what)`` asserts; ``times``:
    DESCRIBE HISTORY's timestamps are the model's (a frozen clock)."""
    for index, (step, argument) in enumerate(steps):
        what = f"step {index} {step} {argument!r} of {steps!r}"
        model.instants.append(model.clock.step())
        _one(driver, model, step, argument, check, what)
        history = [(row.version, row.current, row.operation, len(row.periods)) for row in driver.history()]
        check(history == expected_history(model), f"{what}: history {history} != {expected_history(model)}")
        for row in driver.history() if times else ():
            start = model.versions[row.version].start if row.version in model.versions else None
            check(start is not None and row.timestamp == time_text(start), f"{what}: timestamp of {row}")


def _one(driver: Driver, model: Model, step: str, argument: Any, check: Callable[[bool, str], None],
         what: str) -> None:
    if step in OPERATIONS or step == "insert":
        exists = model.current is not None
        if (step == "create") == exists:
            return  # CREATE of an existing name, or a replace of a missing one: not part of these histories
        if step in ("replace", "truncate"):
            model.retire(dropped=False)
        driver.run(step, argument)
        if step == "insert":
            assert model.current is not None
            model.versions[model.current].content = driver.content()
            return
        number = driver.history()[0].version
        check(number not in model.versions, f"{what}: a new version reuses number {number}")
        model.versions[number] = ModelVersion(number, driver.content(), OPERATIONS[step], [])
        model.make_current(number, OPERATIONS[step])
    elif step == "drop":
        if model.current is not None:
            driver.run("drop", ())
            model.retire(dropped=True)
    elif step == "undrop":
        _undrop(driver, model, check, what)
    elif step == "expire":
        model.clock.step(argument)
    elif model.current is not None:
        _restore(driver, model, step, argument, check, what)


def _undrop(driver: Driver, model: Model, check: Callable[[bool, str], None], what: str) -> None:
    dropped = [v for v in model.versions.values() if model.known(v) and v.periods[-1][2] and v.due is not None]
    newest = max(dropped, key=lambda v: v.retired_at or 0.0, default=None)
    try:
        driver.undrop()
    except ObjectExistsError:
        check(newest is not None and model.current is not None, f"{what}: UNDROP refused: the name is taken")
        return
    except NoSuchVersionError:
        check(newest is None, f"{what}: UNDROP refused, the model has {newest}")
        return
    check(newest is not None and model.current is None, f"{what}: UNDROP ran, the model has none to undrop")
    assert newest is not None
    model.make_current(newest.number, "UNDROP TABLE")
    check(driver.content() == newest.content, f"{what}: UNDROP installed other rows")


def _restore(driver: Driver, model: Model, step: str, argument: Any, check: Callable[[bool, str], None],
             what: str) -> None:
    if step == "restore_version":
        numbers = [*sorted(model.versions), max(model.versions, default=0) + 1000]
        target = model.versions.get(numbers[argument % len(numbers)])
        wanted, reason, exact = target, "unknown", True
        kwargs: dict[str, Any] = {"version": numbers[argument % len(numbers)]}
    else:
        instant = model.instants[argument % len(model.instants)]
        wanted, reason, exact = model.at(instant)
        kwargs = {"timestamp": instant}
    before = driver.content()
    if wanted is not None and not model.known(wanted):  # gone: by number the log cannot tell it from none
        wanted, reason = None, "unknown" if step == "restore_version" else "expired"
        exact = step == "restore_version" or model.known_end_before(kwargs["timestamp"])
    try:
        driver.restore(**kwargs)
    except NoSuchVersionError as refused:
        allowed = {reason} if exact else {reason, "expired", "not_created"}
        check(wanted is None and refused.reason in allowed, f"{what}: refused ({refused.reason}), model: "
              f"{None if wanted is None else wanted.number} / {allowed}")
        check(driver.content() == before, f"{what}: a refused RESTORE changed the table")
        return
    check(wanted is not None, f"{what}: RESTORE ran, the model refuses it ({reason})")
    assert wanted is not None
    if wanted.number != model.current:
        model.retire(dropped=False)
        model.make_current(wanted.number, "RESTORE TABLE")
    check(driver.content() == wanted.content, f"{what}: RESTORE installed other rows than version {wanted.number}")


def fake_clock(monkeypatch: Any, *, frozen: bool = True) -> Clock:
    clock = Clock(frozen=frozen)
    monkeypatch.setattr(time, "time", clock)
    return clock
