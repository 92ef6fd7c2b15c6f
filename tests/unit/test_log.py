"""The DDL log on both stores: chains, links, phases, XIDs, retries, states; durable at every record; compaction
keeps what lives."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actions.kinds.create_table import CreateTablePayload
from actions.kinds.drop_init import DropInitPayload
from actions.kinds.drop_table import DropTablePayload
from actions.kinds.rename_table import RenameTablePayload
from actions.replay import replay_order
from chains.entries import FINAL, ActionType, BinlogPosition, ChainKind, ChainState
from chains.errors import LogStateError
from chains.log import BACKUP_FILE, LOG_FILE, DDLLog
from storage.catalogs.names import TableName
from storage.errors import CorruptLogError


def table(name: str) -> TableName:
    return TableName("default", name)


def view(log: DDLLog) -> dict[int, tuple[object, ...]]:
    """Everything recovery depends on, as plain values."""
    return {
        chain.position: (
            chain.kind.value,
            tuple((a.type.value, str(a.name), a.phase, a.tag) for a in log.actions_of(chain.position)),
            chain.state.value,
            chain.xid,
            chain.retries,
            chain.master,
        )
        for chain in log.chains()
    }


def test_a_chain_is_invisible_until_its_first_action_is_logged(store):
    log = store.open_log()
    position = log.new_chain(ChainKind.UNDO, "stmt")
    assert log.chains() == []
    log.add_action(position, ActionType.CREATE_TABLE, name=table("t"), tag="x", payload=CreateTablePayload())
    log.close_file()
    reopened = store.open_log()
    assert [c.position for c in reopened.active_chains()] == [position]


def test_undo_chains_replay_newest_first_and_drop_chains_in_call_order_with_drop_init_last(store):
    log = store.open_log()
    undo = log.new_chain(ChainKind.UNDO)
    for name in ("a", "b", "c"):
        log.add_action(undo, ActionType.CREATE_TABLE, name=table(name), payload=CreateTablePayload())
    forward = log.new_chain(ChainKind.FORWARD)
    log.add_action(forward, ActionType.DROP_INIT, payload=DropInitPayload("DROP TABLE a", ("a",)))
    for name in ("a", "b", "c"):
        log.add_action(forward, ActionType.DROP_TABLE, name=table(name), payload=DropTablePayload(keep_files=False))
    assert [str(a.name) for a in replay_order(ChainKind.UNDO, log.actions_of(undo))] == [
        "default.c",
        "default.b",
        "default.a",
    ]
    assert [a.type for a in replay_order(ChainKind.FORWARD, log.actions_of(forward))] == [
        ActionType.DROP_TABLE,
        ActionType.DROP_TABLE,
        ActionType.DROP_TABLE,
        ActionType.DROP_INIT,
    ]


def test_marking_a_chain_executed_cancels_the_chains_linked_to_it_in_one_write(store):
    log = store.open_log()
    create = log.new_chain(ChainKind.UNDO)
    log.add_action(create, ActionType.CREATE_TABLE, name=table("tmp"), payload=CreateTablePayload())
    drop = log.new_chain(ChainKind.FORWARD, master=create)
    log.add_action(drop, ActionType.DROP_TABLE, name=table("bak"), payload=DropTablePayload(keep_files=False))
    syncs = log.syncs
    log.mark_executed(create)
    assert log.syncs == syncs + 1
    assert log.chain(drop).state is ChainState.CANCELLED


def test_closing_a_master_leaves_its_linked_chain_runnable(store):
    log = store.open_log()
    create = log.new_chain(ChainKind.UNDO)
    log.add_action(create, ActionType.CREATE_TABLE, name=table("tmp"), payload=CreateTablePayload())
    drop = log.new_chain(ChainKind.FORWARD, master=create)
    log.add_action(drop, ActionType.DROP_TABLE, name=table("bak"), payload=DropTablePayload(keep_files=False))
    log.close(create)
    assert log.chain(drop).active and log.chain(drop).master == create


def test_no_action_can_join_a_closed_chain(store):
    log = store.open_log()
    position = log.new_chain(ChainKind.UNDO)
    log.add_action(position, ActionType.CREATE_TABLE, name=table("t"), payload=CreateTablePayload())
    log.close(position)
    with pytest.raises(LogStateError, match="closed"):
        log.add_action(position, ActionType.CREATE_TABLE, name=table("u"), payload=CreateTablePayload())


def test_a_batch_is_one_fsync_and_an_abandoned_batch_leaves_nothing(store):
    log = store.open_log()
    position = log.new_chain(ChainKind.UNDO)
    syncs = log.syncs
    with log.batch():
        log.add_action(position, ActionType.CREATE_TABLE, name=table("a"), payload=CreateTablePayload())
        log.add_action(position, ActionType.CREATE_TABLE, name=table("b"), payload=CreateTablePayload())
    assert log.syncs == syncs + 1
    with pytest.raises(RuntimeError), log.batch():
        log.set_phase(log.actions_of(position)[0].id, FINAL)
        raise RuntimeError("changed my mind")
    assert all(not a.done for a in log.actions_of(position))
    log.close_file()
    assert [a.name for a in store.open_log().actions_of(position)] == [table("a"), table("b")]


def test_compaction_keeps_active_and_abandoned_chains_and_a_backup_of_the_old_file(store):
    log = store.open_log()
    done = log.new_chain(ChainKind.UNDO)
    log.add_action(done, ActionType.CREATE_TABLE, name=table("a"), payload=CreateTablePayload())
    log.close(done)
    stuck = log.new_chain(ChainKind.UNDO)
    log.add_action(stuck, ActionType.CREATE_TABLE, name=table("b"), tag="t", payload=CreateTablePayload())
    log.set_xid(stuck, 77, BinlogPosition(1, 16))
    log.abandon(stuck)
    before = view(log)
    old_size = log.size
    assert log.maybe_compact(force=True)
    assert store.end(log.store, BACKUP_FILE) == old_size
    assert view(log) == {stuck: before[stuck]}
    next_id = log.allocate_id()
    log.close_file()
    reopened = store.open_log()
    assert view(reopened) == {stuck: before[stuck]}
    assert reopened.allocate_id() >= next_id  # numbers are never handed out twice


def test_no_compaction_while_a_chain_is_active(store):
    log = store.open_log()
    position = log.new_chain(ChainKind.UNDO)
    log.add_action(position, ActionType.CREATE_TABLE, name=table("a"), payload=CreateTablePayload())
    assert not log.maybe_compact(force=True)


# ------------------------------------------------------------------ property: durable at every record boundary

operations = st.lists(
    st.tuples(
        st.sampled_from(["new_undo", "new_forward", "add", "phase", "xid", "retry", "close", "execute", "abandon"]),
        st.integers(0, 7),
        st.sampled_from(["a", "b", "c"]),
    ),
    min_size=1,
    max_size=25,
)


def apply_random(log: DDLLog, op: str, pick: int, name: str) -> bool:
    """Apply one operation if it makes sense in the current state; True if it wrote something."""
    chains = log.chains()
    active = [c.position for c in chains if c.active]
    if op in ("new_undo", "new_forward"):
        kind = ChainKind.UNDO if op == "new_undo" else ChainKind.FORWARD
        master = active[pick % len(active)] if active and kind is ChainKind.FORWARD and pick % 2 else None
        position = log.new_chain(kind, f"stmt {name}", master=master)
        log.add_action(
            position,
            ActionType.DROP_TABLE if kind is ChainKind.FORWARD else ActionType.CREATE_TABLE,
            name=table(name),
            tag=f"tag-{name}",
            payload=DropTablePayload(keep_files=False) if kind is ChainKind.FORWARD else CreateTablePayload(),
        )
        return True
    if not active:
        return False
    position = active[pick % len(active)]
    if op == "add":
        log.add_action(
            position,
            ActionType.RENAME_TABLE,
            name=table(name),
            from_name=table(name + "0"),
            payload=RenameTablePayload(),
        )
    elif op == "phase":
        actions = log.actions_of(position)
        log.set_phase(actions[pick % len(actions)].id, FINAL if pick % 2 else 1)
    elif op == "xid":
        log.set_xid(position, 1000 + pick, BinlogPosition(1, 16 + pick))
    elif op == "retry":
        log.bump_retry(position)
    elif op == "close":
        log.close(position)
    elif op == "execute":
        log.mark_executed(position)
    else:
        log.abandon(position)
    return True


_homes = itertools.count()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations, data=st.data())
def test_property_a_cut_anywhere_reopens_to_the_state_after_the_last_complete_write(store, ops, data):
    """A file cut anywhere (a torn write); in PostgreSQL the records not wholly before the cut are gone (a killed
    transaction), which inside a batch leaves an incomplete batch that must count for nothing."""
    home = f"log{next(_homes)}"
    log = store.open_log(home)
    snapshots = [(log.size, view(log))]
    for op in ops:
        if apply_random(log, op[0], op[1], op[2]):
            snapshots.append((log.size, view(log)))
    log.close_file()
    boundaries = [size for size, _ in snapshots]
    cuts = set(boundaries)
    cuts.update(data.draw(st.lists(st.integers(boundaries[0], boundaries[-1]), max_size=6)))
    for cut in sorted(cuts):
        trial = f"{home}-trial{cut}"
        store.copy(log.store, store.log_store(trial), LOG_FILE, cut)
        expected = [state for size, state in snapshots if size <= cut][-1]
        reopened = store.open_log(trial)
        assert view(reopened) == expected, cut
        reopened.close_file()
        store.remove_home(trial)


def test_a_flipped_bit_in_the_log_is_reported_and_nothing_is_loaded(store):
    log = store.open_log()
    for name in "abcd":
        position = log.new_chain(ChainKind.UNDO)
        log.add_action(position, ActionType.CREATE_TABLE, name=table(name), payload=CreateTablePayload())
    log.close_file()
    store.flip(log.store, LOG_FILE, log.size // 2, 0x04)
    with pytest.raises(CorruptLogError, match=r"ddl_log\.log"):
        store.open_log()
