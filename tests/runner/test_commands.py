"""The host's command language (runner.commands) and its event stream (runner.events)."""
import pytest

from ringctl.errors import UserError
from ringctl.runner import commands as C
from ringctl.runner.events import EventBus


@pytest.mark.parametrize("obj, want", [
    ({"cmd": "arm"}, C.Arm()),
    ({"cmd": "nospin", "reason": " low toss "}, C.NoSpin(reason="low toss")),
    ({"cmd": "call", "result": "odds", "reason": "read by eye"}, C.Call(result="odds", reason="read by eye")),
    ({"cmd": "lost", "n": 2}, C.Lost(n=2)),
    ({"cmd": "lost-found", "n": 0}, C.LostFound(n=0)),
    ({"cmd": "lost-check", "ok": False}, C.LostCheck(ok=False)),
    ({"cmd": "lost-offer", "choice": "original"}, C.LostOffer(choice="original")),
    ({"cmd": "lost-newset", "name": "B", "continue": True}, C.LostNewSet(set_name="B", continues=True)),
    ({"cmd": "table", "op": {"op": "bets-open"}}, C.TableOp(op={"op": "bets-open"})),
    ({"cmd": "ack-alarm", "id": 17}, C.AckAlarm(id=17)),
])
def test_every_command_parses_with_who_asked(obj, want):
    got = C.parse_command(obj, user="ann", role="supervisor")
    assert type(got) is type(want)
    assert got == type(want)(**{**want.__dict__, "user": "ann", "role": "supervisor"})
    assert got.as_json()["cmd"] == obj["cmd"] and got.as_json()["user"] == "ann"


@pytest.mark.parametrize("obj, field", [
    ({"cmd": "launch"}, "'cmd'"),
    ({"cmd": "call", "result": "edge"}, "'result'"),
    ({"cmd": "call"}, "'result'"),
    ({"cmd": "lost", "n": "two"}, "'n'"),
    ({"cmd": "lost", "n": 0}, "'n'"),
    ({"cmd": "lost", "n": True}, "'n'"),
    ({"cmd": "lost-check", "ok": "yes"}, "'ok'"),
    ({"cmd": "table", "op": "bets-open"}, "'op'"),
    ({"cmd": "table", "op": {"bet": 1}}, "'op'"),
    ({"cmd": "ack-alarm"}, "'id'"),
    ({"cmd": "arm", "now": True}, "'now'"),
])
def test_a_bad_command_is_one_line_naming_the_field(obj, field):
    with pytest.raises(UserError) as exc:
        C.parse_command(obj, user="ann", role="boxer")
    assert field in str(exc.value) and "\n" not in str(exc.value)


def test_unknown_role_and_non_objects_are_refused():
    with pytest.raises(UserError, match="role"):
        C.parse_command({"cmd": "arm"}, role="croupier")
    with pytest.raises(UserError, match="JSON object"):
        C.parse_command(["arm"])


def test_the_bus_hands_every_event_to_every_subscriber_in_order():
    bus = EventBus()
    a, b = bus.subscribe(), bus.subscribe()
    for i in range(5):
        bus.publish("phase", {"i": i})
    for sub in (a, b):
        got = [sub.get(0) for _ in range(5)]
        assert [e.data["i"] for e in got] == list(range(5))
        assert [e.seq for e in got] == [1, 2, 3, 4, 5] and sub.get(0) is None
    a.close()
    bus.publish("phase", {"i": 5})
    assert a.get(0) is None and b.get(0).data == {"i": 5}


def test_a_full_queue_drops_the_oldest_and_says_so_once():
    bus = EventBus()
    sub = bus.subscribe(maxlen=2)
    for i in range(6):
        bus.publish("light", {"i": i})
    gap = sub.get(0)
    assert gap.kind == "gap" and gap.data == {"dropped": 4, "first_seq": 1, "last_seq": 4}
    assert [sub.get(0).data["i"], sub.get(0).data["i"]] == [4, 5]
    assert sub.get(0) is None


def test_a_reader_that_never_reads_holds_up_nothing():
    bus = EventBus()
    stuck = bus.subscribe(maxlen=10)
    live = bus.subscribe(maxlen=20000)
    for i in range(10000):
        bus.publish("board-event", {"i": i})
    assert [live.get(0).data["i"] for _ in range(10000)] == list(range(10000))
    assert stuck.get(0).data["dropped"] == 9990
    stuck.close()
    live.close()
