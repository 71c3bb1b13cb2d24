"""A real game day on RingHost (issue 17): the lost coin voids the spin for good, arming only
what the rules accept, the board's fault as the truth and its clearing, spin numbers per log."""
import pytest

from ringctl.fw import ringmsg as rm
from ringctl.game.engine import Engine
from ringctl.record.log import AuditLog
from ringctl.record.rebuild import rebuild_engine
from ringctl.runner import commands as C
from ringctl.runner.host import RingHost
from test_host import BOXER, FakeLink, land_and_rest, run_until

SUP = {"user": "sue", "role": "supervisor"}
OPENING = ({"op": "spinner", "calls": "heads"}, {"op": "bets-open"},
           {"op": "bet", "id": "s1", "on": "spinner", "amount": 10},
           {"op": "bet", "id": "h1", "on": "heads", "amount": 5}, {"op": "bets-closed"})


def manual_host(path, ops=OPENING):
    """A host with no camera: every landed spin is UNSURE, the boxer's to call."""
    log = AuditLog(str(path))
    h = RingHost(FakeLink(log), log, rebuild_engine(log))
    for op in ops:
        assert h.submit(C.TableOp(op=op, **BOXER)).ok, op
    return h


@pytest.fixture
def host(tmp_path):
    h = manual_host(tmp_path / "audit.db")
    yield h
    h.close()
    h.log.close()


def unsure_spin(h):
    assert h.submit(C.Arm(**BOXER)).ok
    land_and_rest(h.link)
    assert run_until(h, lambda: h.spin.outcome is not None)
    assert h.spin.outcome.result == "unsure"


def test_lost_coin_on_an_unsure_spin_voids_it_and_later_calls_are_refused_with_7_6(host):
    unsure_spin(host)
    reply = host.submit(C.Lost(n=1, **BOXER))
    assert reply.ok and reply.rule == "7.4.1"
    assert host.spin.outcome.result == "no-spin" and host.spin.outcome.final
    assert host.spin.finished                       # settled as no spin (4.7), nothing paid
    assert host.link.sent(rm.CMD_LIGHT)[-1] == str(rm.LIGHT_BARRED)
    for who, result in ((BOXER, "heads"), (SUP, "odds"), (BOXER, "tails")):
        r = host.submit(C.Call(result=result, reason="looked fine", **who))
        assert not r.ok and r.rule == "7.6", r
    ops = [r.data for r in host.log.records(kind="op", with_blobs=False)]
    spins = [o for o in ops if o["op"]["op"] == "spin"]
    assert [s["op"]["result"] for s in spins] == ["no-spin"]
    assert not any(e.get("event") in ("paid", "lost") for s in spins for e in s["events"])
    assert host.engine.state()["wagers"]                 # wagers still on the layout
    refused = [r.data["rule"] for r in host.log.records(kind="refused", with_blobs=False)]
    assert refused == ["7.6", "7.6", "7.6"]
    void = list(host.log.records(kind="override", with_blobs=False))[-1].data
    assert void["result"] == "no-spin" and void["outcome"]["override"]["from"] == "unsure"


def test_lost_coin_before_the_coins_rest_decides_no_spin_at_once(host):
    assert host.submit(C.Arm(**BOXER)).ok
    host.link.push(rm.EV_PHASE, rm.PH_IN_FLIGHT, rm.PH_ARMED)
    assert host.submit(C.Lost(n=1, **BOXER)).ok
    assert run_until(host, lambda: host.spin.finished, 2.0)   # no at-rest needed (7.6)
    assert host.spin.outcome.result == "no-spin" and host.spin.outcome.final
    assert not host.submit(C.Call(result="heads", reason="x", **SUP)).ok


def test_lost_twice_is_refused_and_a_settled_result_stands(host):
    unsure_spin(host)
    assert host.submit(C.Call(result="tails", reason="both tails by eye", **BOXER)).ok
    r = host.submit(C.Lost(n=1, **BOXER))
    assert not r.ok and r.rule == "7.4.1" and "TAILS" in r.message
    assert host.spin.outcome.result == "tails"


def test_arm_is_refused_with_the_rules_reason_when_the_spin_would_be(tmp_path):
    """The rules engine's own precondition: arming must not light a spin the rules refuse."""
    h = manual_host(tmp_path / "a.db", OPENING[:-1] + ({"op": "bets-closed"},))
    h.engine.game.wager = None                  # the spinner's wager came off the layout
    r = h.submit(C.Arm(**BOXER))
    assert not r.ok and r.rule == "4.2" and "spinner's wager" in r.message
    assert h.link.sent(rm.CMD_ARM) == []
    assert h.engine.spin_refusal() == ("4.2", "the spinner's wager must be placed before the "
                                              "spinner spins (4.2)")
    h.close()
    h.log.close()


def test_arm_is_refused_after_three_opening_no_spins_until_the_spinner_elects(host):
    for _ in range(3):
        assert host.submit(C.Arm(**BOXER)).ok
        assert host.submit(C.NoSpin(reason="not high enough", **BOXER)).ok
        land_and_rest(host.link)
        assert run_until(host, lambda: host.spin.finished)
    r = host.submit(C.Arm(**BOXER))
    assert not r.ok and r.rule == "6.5"


def test_spin_numbers_are_never_reused_across_restarts_on_one_log(tmp_path):
    path = tmp_path / "audit.db"
    numbers = []
    for run in range(2):                         # two `ring run`s on the same log
        h = manual_host(path, OPENING if run == 0 else ())
        for _ in range(2 - run):                 # (a third opening no-spin is the last: 6.5)
            assert h.submit(C.Arm(**BOXER)).ok
            numbers.append(h.spin.number)
            assert h.submit(C.NoSpin(reason="not spun", **BOXER)).ok
            land_and_rest(h.link)
            assert run_until(h, lambda: h.spin.finished)
        h.close()
        h.log.close()
    assert numbers == [1, 2, 3]
    log = AuditLog(str(path))
    arms = [r.data["spin"] for r in log.records(kind="arm", with_blobs=False)]
    assert arms == [1, 2, 3]
    log.close()


def test_rebuild_on_a_log_with_an_op_the_engine_refuses_is_one_line(tmp_path):
    from ringctl.errors import UserError
    from ringctl.record import records
    log = AuditLog(str(tmp_path / "old.db"))
    records.record_op(log, {"op": "bets-open"}, [])
    records.record_op(log, {"op": "bet", "id": "b1", "on": "heads", "amount": 5, "colour": "red"})
    with pytest.raises(UserError) as exc:
        rebuild_engine(log)
    msg = str(exc.value)
    assert "\n" not in msg and "record 2" in msg and "--log" in msg
    assert log.count() == 2 and log.verify()["ok"]
    log.close()


def beam_fault(link, mask=0x01, text="beam broken at idle for 2000 ms: sectors 0x01 blocked or misaligned"):
    link.push(rm.EV_PHASE, rm.PH_FAULT, rm.PH_IDLE)
    link.push(rm.EV_LIGHT, rm.LIGHT_FAULT, -1)
    link.push(rm.EV_FAULT, mask, 0, text=text)


def retest(link, passed):
    link.push(rm.EV_SELFTEST, 0 if passed else 1, 0 if passed else 0x01,
              text="pass" if passed else "beams 0x01 broken at idle (blocked/misaligned)")
    if passed:
        link.push(rm.EV_PHASE, rm.PH_IDLE, rm.PH_FAULT)
    else:
        link.push(rm.EV_FAULT, 0x01, 0, text="beams 0x01 broken at idle (blocked/misaligned)")


def test_board_fault_is_the_truth_named_and_cleared_without_a_restart(host):
    sub = host.subscribe()
    beam_fault(host.link)
    host.pump(0.05)
    snap = host.snapshot()
    assert snap["phase"] == "fault" and snap["light"] == "fault"
    fault = snap["fault"]
    assert "beam sector 0" in fault["what"] and "'clear'" in fault["clear"]
    assert f"sup ack {fault['alarm']}" in fault["clear"]
    r = host.submit(C.Arm(**BOXER))                     # never "armed" while the board is not
    assert not r.ok and "FAULT" in r.message and "beam sector 0" in r.message
    assert host.link.sent(rm.CMD_ARM) == []
    # a supervisor cannot wave it through before the re-test
    assert not host.submit(C.AckAlarm(id=fault["alarm"], **SUP)).ok
    # the re-test fails while the beam is still blocked: still in fault, one alarm only
    assert host.submit(C.ClearFault(**BOXER)).ok
    assert host.link.sent(rm.CMD_SELFTEST) == [""]
    retest(host.link, passed=False)
    host.pump(0.05)
    assert host.snapshot()["phase"] == "fault" and not host.submit(C.Arm(**BOXER)).ok
    # the beam is cleared, re-tested clean: the board is idle, a supervisor acknowledges
    assert host.submit(C.ClearFault(**BOXER)).ok
    retest(host.link, passed=True)
    host.pump(0.05)
    assert host.snapshot()["phase"] == "idle"
    r = host.submit(C.Arm(**BOXER))
    assert not r.ok and f"sup ack {fault['alarm']}" in r.message
    assert not host.submit(C.AckAlarm(id=fault["alarm"], **BOXER)).ok   # a supervisor's word
    assert host.submit(C.AckAlarm(id=fault["alarm"], **SUP)).ok
    assert host.snapshot()["fault"] is None and host.snapshot()["alarms"] == []
    assert host.submit(C.Arm(**BOXER)).ok
    kinds = [e.kind for e in iter(lambda: sub.get(0), None)]
    assert kinds.count("alarm") == 1
    assert {"fault", "fault-clearing", "selftest", "fault-cleared"} <= set(kinds)
    assert [r.data["user"] for r in host.log.records(kind="fault-clear", with_blobs=False)] == \
        ["ann", "ann"]


def test_clear_is_refused_when_there_is_no_fault_and_for_an_integrity_fault(host):
    host.link.push(rm.EV_PHASE, rm.PH_IDLE, rm.PH_FAULT)
    host.pump(0.05)
    r = host.submit(C.ClearFault(**BOXER))
    assert not r.ok and "not in fault" in r.message
    beam_fault(host.link, rm.FAULT_INTEGRITY, "locked: integrity lib/app.py")
    host.pump(0.05)
    r = host.submit(C.ClearFault(**BOXER))
    assert not r.ok and "ring device deploy" in r.message


def test_an_arm_the_board_refuses_is_not_a_spin_and_its_number_is_not_reused(host):
    assert host.submit(C.Arm(**BOXER)).ok
    cmd_id = len(host.link.cmds)                  # FakeLink: command ids count from 1
    host.link.push(rm.EV_RESULT, cmd_id, rm.R_REFUSED, text="beam broken at sectors 0x01")
    host.pump(0.05)
    snap = host.snapshot()
    assert snap["spin"] is None
    assert any(a["kind"] == "board-refused" and "0x01" in a["text"] for a in snap["alarms"])
    assert host.submit(C.Arm(**BOXER)).ok and host.spin.number == 2   # numbers never reused


def test_a_barred_spin_whose_coins_never_land_is_decided_without_a_rest(host):
    host.quiet_s = 0.1
    assert host.submit(C.Arm(**BOXER)).ok
    host.link.push(rm.EV_PHASE, rm.PH_IN_FLIGHT, rm.PH_ARMED)
    host.link.push(rm.EV_BARRED, rm.BAR_BEAM, 1)          # both coins out over the boundary
    host.link.push(rm.EV_BEAM, 1, 0)
    assert run_until(host, lambda: host.spin.finished, 4.0)
    assert host.spin.outcome.result == "no-spin" and host.spin.outcome.final


def test_the_console_says_armed_only_when_the_board_is(host):
    from ringctl.runner.cli import Console
    out = []
    con = Console(host, out=out.append)
    con.command("a")
    assert not any("armed, come in spinner" in line for line in out)
    host.link.push(rm.EV_PHASE, rm.PH_ARMED, rm.PH_IDLE)
    host.pump(0.05)
    con.show_events()
    assert any("spin 1: armed, come in spinner (board phase armed)" in line for line in out)


def test_a_board_still_in_its_boot_self_test_is_no_fault_to_acknowledge(host):
    host.link.push(rm.EV_PHASE, rm.PH_FAULT, rm.PH_FAULT)          # the status answer
    host.link.push(rm.EV_STATS, 500, 1000, text="l99=-1 lmax=0 loop=9 lost=0 gl=0 f=0 w=0 rs=0")
    host.link.push(rm.EV_SELFTEST, 0, 0, text="pass")
    host.link.push(rm.EV_PHASE, rm.PH_IDLE, rm.PH_FAULT)
    host.pump(0.05)
    assert host.snapshot()["fault"] is None and host.submit(C.Arm(**BOXER)).ok


def test_a_board_already_in_fault_when_the_host_connects_is_named_from_its_status(host):
    host.link.push(rm.EV_PHASE, rm.PH_FAULT, rm.PH_FAULT)          # the status answer
    host.link.push(rm.EV_STATS, 500, 1000, text="l99=-1 lmax=0 loop=9 live=1 base=1 lost=0 gl=0 f=8")
    host.pump(0.05)
    fault = host.snapshot()["fault"]
    assert fault is not None and "beam sector 3" in fault["what"]
    r = host.submit(C.Arm(**BOXER))
    assert not r.ok and "beam sector 3" in r.message and "'clear'" in r.message
