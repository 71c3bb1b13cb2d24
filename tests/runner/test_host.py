"""RingHost with a fake link and camera, driven through its command/event API: record-before-ack,
record-then-announce, board restart, camera stall, a clean spin, refusals with their rule."""
import json
import queue
import time

import cv2
import numpy as np
import pytest

from ringctl.fw import ringmsg as rm
from ringctl.game.engine import Engine
from ringctl.event import Event
from ringctl.record.log import AuditLog
from ringctl.runner.commands import AckAlarm, Arm, Call, NoSpin, TableOp
from ringctl.runner.host import RingHost

BOXER = {"user": "ann", "role": "boxer"}


class FakeLink:
    def __init__(self, log):
        self.q = queue.Queue()
        self.log = log
        self.acked = []
        self.cmds = []
        self.acked_unrecorded = 0
        self.next_id = 1
        self.alarms = 0

    def push(self, code, a=0, b=0, boot=0xB007, text=""):
        eid = self.next_id
        self.next_id += 1
        self.q.put(Event(boot, eid, code, int(time.monotonic() * 1e6), a, b, text, seq=eid))

    def get_event(self, timeout=None):
        try:
            return self.q.get(timeout=timeout or 0.0001)
        except queue.Empty:
            return None

    def ack(self, ev):
        if not self.log.has_event(ev.boot_id, ev.event_id):
            self.acked_unrecorded += 1
        self.acked.append(ev.event_id)

    def stats(self):
        return {"alarms": self.alarms}

    def send_cmd(self, code, text=""):
        # what the board is told must already be justified by a durable record
        self.cmds.append((code, text, self.log.count()))
        return len(self.cmds)

    def sent(self, code):
        return [c[1] for c in self.cmds if c[0] == code]


class StillCamera:
    """Returns the same frame forever, or nothing at all (a stalled camera)."""

    fps = 25.0

    def __init__(self, stalled=False):
        self.stalled = stalled

    def read(self):
        time.sleep(0.01)
        if self.stalled:
            return None, None
        return np.full((40, 40, 3), 120, np.uint8), time.monotonic()

    def close(self):
        pass


@pytest.fixture
def host(tmp_path, monkeypatch):
    import ringctl.runner.rigwatch as rigwatch
    from ringctl.vision.ring import RingModel

    class AlwaysStill:
        def __init__(self, ring, **kw):
            pass

        def update(self, frame, t, small=None):
            return {"still_s": 1.0, "moving": False}

    coins = [{"center": [10, 10], "radius": 5, "face": "heads", "flat": True,
              "inside": True, "confidence": 0.9}] * 2
    verdict = {"result": "heads", "reasons": ["both coins heads"], "ms": 1.0,
               "coins": [dict(c, camera="A", cameras=["A"]) for c in coins],
               "views": [{"result": "heads", "reasons": [], "coins": coins}]}
    monkeypatch.setattr(rigwatch, "StillnessWatch", AlwaysStill)
    monkeypatch.setattr(rigwatch, "judge_views", lambda frames, rig, model: dict(verdict))
    log = AuditLog(str(tmp_path / "audit.db"))
    link = FakeLink(log)
    camera = StillCamera()
    ring = RingModel((40, 40), (20, 20), (18, 18), 0.0, np.zeros((40, 40, 3), np.uint8), 25.0, 1000.0)
    watcher = rigwatch.RigWatcher.one_camera(camera, ring, object(), keep=3, stale_s=0.3)
    h = RingHost(link, log, Engine(), watcher=watcher, still_timeout_s=1.0, camera_stale_s=0.3)
    h.test_camera = camera
    for op in ({"op": "spinner", "calls": "heads"}, {"op": "bets-open"},
               {"op": "bet", "id": "s1", "on": "spinner", "amount": 10}, {"op": "bets-closed"}):
        assert h.submit(TableOp(op=op, **BOXER)).ok
    yield h
    h.close()
    log.close()


def land_and_rest(link):
    link.push(rm.EV_PHASE, rm.PH_IN_FLIGHT, rm.PH_ARMED)
    link.push(rm.EV_IMPACT, 0, 20000)
    link.push(rm.EV_PHASE, rm.PH_LANDED, rm.PH_IN_FLIGHT)
    link.push(rm.EV_REST, 1000, 300)
    link.push(rm.EV_PHASE, rm.PH_AT_REST, rm.PH_LANDED)


def arm(h):
    reply = h.submit(Arm(**BOXER))
    assert reply.ok, reply
    return reply.data["spin"]


def run_until(h, pred, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        h.step(0.01)
        if pred():
            return True
    return False


def kinds(sub):
    out = []
    while (ev := sub.get(0)) is not None:
        out.append(ev)
    return out


def test_every_event_is_recorded_before_it_is_acknowledged(host):
    arm(host)
    land_and_rest(host.link)
    host.wait_rest(2.0)
    host.pump(0.05)
    assert host.link.acked == [1, 2, 3, 4, 5]
    assert host.link.acked_unrecorded == 0


def test_clean_spin_is_called_from_the_camera_recorded_then_lit_then_settled(host):
    sub = host.subscribe()
    arm(host)
    assert host.link.sent(rm.CMD_ARM) == [""]
    land_and_rest(host.link)
    assert run_until(host, lambda: host.spin.finished)
    assert host.spin.outcome.result == "heads"
    assert host.link.sent(rm.CMD_LIGHT) == [str(rm.LIGHT_HEADS)]
    # record, then the board: the spin record was durable when the light was commanded
    (code, _, n_records), = [c for c in host.link.cmds if c[0] == rm.CMD_LIGHT]
    spin_seq = list(host.log.records(kind="spin", with_blobs=False))[0].seq
    assert n_records >= spin_seq
    evs = kinds(sub)
    order = [e.kind for e in evs if e.kind in ("spin-started", "verdict", "result", "settlement")]
    assert order == ["spin-started", "verdict", "result", "settlement"]
    verdict = next(e.data for e in evs if e.kind == "verdict")
    assert verdict["result"] == "heads" and not verdict["unsure"] and verdict["rules"] == ["6.9"]
    assert [e.seq for e in evs] == sorted(e.seq for e in evs)
    snap = host.snapshot()
    assert snap["results"][-1]["result"] == "heads" and snap["spin"]["state"] == "settled"
    json.loads(json.dumps(snap))                                  # what a web console sends on
    json.loads(json.dumps([e.as_json() for e in evs]))
    assert snap["spinner"] is None or snap["spinner"]["by"] == "player"


def test_every_announcement_follows_its_record(host):
    """A subscriber looking at the audit log when an event arrives always finds the record
    that justifies it (record, then announce)."""
    sub = host.subscribe()
    checked = []

    def reader():
        while (ev := sub.get(2.0)) is not None:
            kind = {"verdict": "spin", "spin-started": "arm", "settlement": "op",
                    "board-event": "event", "table": "op"}.get(ev.kind)
            if kind:
                recs = list(AuditLog(host.log.path).records(kind=kind, with_blobs=False))
                checked.append((ev.kind, bool(recs)))
            if ev.kind == "settlement":
                return

    import threading
    t = threading.Thread(target=reader)
    t.start()
    arm(host)
    land_and_rest(host.link)
    run_until(host, lambda: host.spin.finished)
    t.join(5)
    assert {k for k, _ in checked} >= {"verdict", "spin-started", "settlement", "board-event"}
    assert all(ok for _, ok in checked), checked


def test_board_restart_mid_spin_voids_the_spin(host):
    host.link.push(rm.EV_BOOT, rm.RESET_POWER_ON, 0, boot=1)
    host.pump(0.05)
    sub = host.subscribe()
    arm(host)
    host.link.push(rm.EV_PHASE, rm.PH_IN_FLIGHT, rm.PH_ARMED, boot=1)
    host.link.push(rm.EV_BOOT, rm.RESET_WATCHDOG, 0, boot=2)     # the board came back
    assert host.wait_rest(2.0)
    out = host.adjudicate()
    assert out.result == "no-spin"
    alarms = [e.data for e in kinds(sub) if e.kind == "alarm"]
    assert alarms and alarms[0]["kind"] == "board-restarted"
    assert host.snapshot()["alarms"][0]["id"] == alarms[0]["id"]


def test_stalled_camera_gives_fault_light_and_a_manual_call(host):
    host.test_camera.stalled = True
    arm(host)
    land_and_rest(host.link)
    host.wait_rest(2.0)
    time.sleep(0.4)
    out = host.adjudicate()
    assert out.result == "unsure"
    assert host.link.sent(rm.CMD_LIGHT) == [str(rm.LIGHT_FAULT)]
    reply = host.submit(Call(result="tails", reason="read by eye: both tails", **BOXER))
    assert reply.ok and host.spin.outcome.result == "tails" and host.spin.finished
    assert host.link.sent(rm.CMD_LIGHT)[-1] == str(rm.LIGHT_TAILS)
    assert host.snapshot()["alarms"][0]["kind"] == "camera-stalled"
    override = list(host.log.records(kind="override", with_blobs=False))[0].data
    assert override["user"] == "ann" and override["role"] == "boxer"


def test_players_may_not_call_and_the_refusal_is_recorded(host):
    arm(host)
    land_and_rest(host.link)
    host.wait_rest(2.0)
    reply = host.submit(NoSpin(reason="I saw it roll out", user="pat", role="player"))
    assert not reply.ok and reply.rule == "7.5"
    refused = list(host.log.records(kind="refused", with_blobs=False))
    assert refused[0].data["user"] == "pat" and refused[0].data["rule"] == "7.5"
    reply = host.submit(NoSpin(reason="coins not spun high", user="sue", role="supervisor"))
    assert reply.ok
    assert host.adjudicate().result == "no-spin"


def test_boundary_break_reported_by_the_board_makes_a_no_spin(host):
    arm(host)
    host.link.push(rm.EV_BEAM, 3, 4000)
    host.link.push(rm.EV_BARRED, rm.BAR_BEAM, 3)
    land_and_rest(host.link)
    host.wait_rest(2.0)
    out = host.adjudicate()
    assert out.result == "no-spin"
    assert any(r.startswith("7.3.1") for r in out.reasons)


def test_arm_is_refused_until_betting_is_closed_and_the_last_spin_is_settled(tmp_path):
    log = AuditLog(str(tmp_path / "a.db"))
    h = RingHost(FakeLink(log), log, Engine())
    assert h.submit(Arm(**BOXER)).rule == "4.2"
    h.submit(TableOp(op={"op": "spinner", "calls": "tails"}, **BOXER))
    h.submit(TableOp(op={"op": "bets-open"}, **BOXER))
    assert h.submit(Arm(**BOXER)).rule == "6.3"
    h.submit(TableOp(op={"op": "bet", "id": "s", "on": "spinner", "amount": 5}, **BOXER))  # 4.2
    h.submit(TableOp(op={"op": "bets-closed"}, **BOXER))
    assert h.submit(Arm(**BOXER)).ok
    again = h.submit(Arm(**BOXER))
    assert not again.ok and "not finished" in again.message
    assert h.submit(Arm(user="x", role=None)).message.startswith("the command has no role")
    assert h.link.sent(rm.CMD_ARM) == [""]
    assert [r.data["rule"] for r in log.records(kind="refused", with_blobs=False)] == \
        ["4.2", "6.3", "6.9", None]
    log.close()


def test_new_security_alarms_are_recorded_then_shown_and_acknowledged(host):
    host.link.alarms = 2
    host.check_alarms()
    host.check_alarms()                     # nothing new: no second record
    host.link.alarms = 3
    host.check_alarms()
    recs = list(host.log.records(kind="security-alarm", with_blobs=False))
    assert [r.data["new"] for r in recs] == [2, 1]
    ids = [a["id"] for a in host.snapshot()["alarms"]]
    assert ids == [r.seq for r in recs]
    assert not host.submit(AckAlarm(id=ids[0], user="pat", role="player")).ok
    assert host.submit(AckAlarm(id=ids[0], user="sue", role="supervisor")).ok
    assert [a["id"] for a in host.snapshot()["alarms"]] == ids[1:]
    assert not host.submit(AckAlarm(id=ids[0], **BOXER)).ok          # already acknowledged


def test_board_alarms_from_ev_link_are_recorded_after_the_event(host):
    host.link.push(rm.EV_LINK, 0, 0, text="crc=0")          # a status answer: no alarm
    host.link.push(rm.EV_LINK, 5, 1, text="crc=2")          # the board counted 5 forgeries
    host.pump(0.2)
    recs = list(host.log.records(kind="security-alarm", with_blobs=False))
    assert [(r.data["by"], r.data["new"], r.data["alarms_total"]) for r in recs] == [
        ("board", 5, 5)]
    assert host.link.acked_unrecorded == 0 and host.link.acked == [1, 2]
    assert host.log.has_event(0xB007, 2)                    # the event itself is on record


def test_every_still_frame_that_decided_the_spin_is_kept(host):
    arm(host)
    land_and_rest(host.link)
    host.wait_rest(2.0)
    host.adjudicate()
    frames = list(host.log.records(kind="frame"))
    assert all(r.blob[:2] == b"\xff\xd8" for r in frames)
    # each still frame, then its annotated copy (ring, coins and verdict drawn on: issue 12)
    raw, drawn = frames[0::2], frames[1::2]
    assert len(raw) == len(drawn) == host.stills
    for r, d in zip(raw, drawn):
        assert not r.data["meta"].get("annotated") and d.data["meta"]["annotated"] is True
        assert d.data["meta"]["result"] == r.data["meta"]["result"]
        a, b = (cv2.imdecode(np.frombuffer(x.blob, np.uint8), cv2.IMREAD_COLOR) for x in (r, d))
        assert a.shape == b.shape and np.abs(a.astype(int) - b.astype(int)).mean() > 1
    spin = list(host.log.records(kind="spin", with_blobs=False))[-1]
    assert spin.data["frames"] == [r.seq for r in frames]


def test_commands_from_other_threads_run_on_the_hosts_loop(host):
    import threading
    host.start()
    got = []

    def client(k):
        cmd = Arm(**BOXER) if k == 0 else TableOp(
            op={"op": "bet", "id": "t%d" % k, "on": "heads", "amount": 1}, **BOXER)
        got.append((k, host.submit(cmd)))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    replies = [r for _, r in got]
    # every client thread had its reply (by its number: a finished thread's get_ident() may be
    # handed to the next one started, which once made four threads look like three)
    assert sorted(k for k, _ in got) == [0, 1, 2, 3]
    # the arm is taken; bets after "no more bets" are refused by the rules, with the rule
    assert sum(r.ok for r in replies) == 1 and all(r.ok or r.rule for r in replies)
    land_and_rest(host.link)
    end = time.monotonic() + 10           # generous: a loaded machine is slow, not wrong
    while not host.spin.finished and time.monotonic() < end:
        time.sleep(0.02)
    assert host.spin.finished and host.snapshot()["results"][-1]["result"] == "heads"
    frame, t_s, coins = host.camera_view()
    assert frame is not None and len(coins) == 2 and coins[0]["face"] == "heads"
    host.stop()


def test_a_stuck_subscriber_never_delays_the_spin_and_learns_of_its_gap(host):
    stuck = host.subscribe(maxlen=3)          # never read during the spin
    arm(host)
    land_and_rest(host.link)
    t0 = time.monotonic()
    assert run_until(host, lambda: host.spin.finished)
    first = stuck.get(0)
    assert first.kind == "gap" and first.data["dropped"] > 0
    rest = kinds(stuck)
    assert len(rest) == 3 and rest[0].seq == first.data["last_seq"] + 1
    stuck.close()
    assert stuck.get(0) is None


def test_a_lost_link_is_an_alarm_recorded_before_it_is_shown(host):
    sub = host.subscribe()
    host.link.link_up = True
    host.step(0.01)
    host.link.link_up = False
    host.step(0.01)
    evs = [e for e in kinds(sub) if e.kind in ("link", "alarm")]
    assert [(e.kind, e.data.get("up")) for e in evs] == [("link", True), ("link", False),
                                                          ("alarm", None)]
    rec, = host.log.records(kind="alarm", with_blobs=False)
    assert rec.data["alarm"] == "link-lost" and evs[-1].data["id"] == rec.seq
    assert host.snapshot()["link"]["up"] is False


def test_an_error_in_the_loop_is_an_alarm_and_the_loop_goes_on(host):
    sub = host.subscribe()
    real = host.link.get_event
    failures = [RuntimeError("pty vanished")] * 3

    def flaky(timeout=None):
        if failures:
            raise failures.pop()
        return real(timeout)
    host.link.get_event = flaky
    host.start()
    reply = host.submit(Arm(**BOXER))           # answered by the loop that survived
    host.stop()
    assert reply.ok
    alarms = [e.data for e in kinds(sub) if e.kind == "alarm"]
    assert len(alarms) == 1 and "RuntimeError: pty vanished" in alarms[0]["text"]
    assert list(host.log.records(kind="alarm", with_blobs=False))[0].seq == alarms[0]["id"]


def test_a_board_command_the_link_refuses_is_an_alarm_not_a_stuck_spin(host):
    from ringctl.link.client import LinkError

    def full(code, text=""):
        raise LinkError("command queue full")
    sub = host.subscribe()
    arm(host)
    land_and_rest(host.link)
    host.link.send_cmd = full                 # the light cannot be queued any more
    assert run_until(host, lambda: host.spin.finished)
    evs = kinds(sub)
    assert [e.data["kind"] for e in evs if e.kind == "alarm"] == ["board-command", "board-command"]
    assert "verdict" in [e.kind for e in evs] and host.spin.outcome.result == "heads"


def test_an_arm_the_board_cannot_be_sent_is_refused_and_leaves_no_spin(host):
    from ringctl.link.client import LinkError

    def full(code, text=""):
        raise LinkError("command queue full")
    host.link.send_cmd = full
    refused = host.submit(Arm(**BOXER))
    assert not refused.ok and "could not be told to arm" in refused.message
    assert host.snapshot()["spin"] is None
    assert [a["kind"] for a in host.snapshot()["alarms"]] == ["board-command"]


def test_an_arm_the_board_refuses_is_shown_and_leaves_no_spin(host):
    sub = host.subscribe()
    arm(host)
    cmd_id = len(host.link.cmds)                    # FakeLink's id of the CMD_ARM just sent
    host.link.push(rm.EV_RESULT, cmd_id, rm.R_REFUSED, text="self-test running; arm again")
    host.pump(0.05)
    alarm, = [e.data for e in kinds(sub) if e.kind == "alarm"]
    assert alarm["kind"] == "board-refused" and "self-test running" in alarm["text"]
    assert host.snapshot()["spin"] is None
    assert arm(host) == 2                           # the boxer arms again


def test_a_barred_spin_with_no_rest_report_is_still_decided_once_the_ring_is_quiet(host):
    host.quiet_s = 0.1
    arm(host)
    host.link.push(rm.EV_PHASE, rm.PH_IN_FLIGHT, rm.PH_ARMED)
    host.link.push(rm.EV_BARRED, rm.BAR_BEAM, 5)
    host.link.push(rm.EV_BEAM, 5, 0)                 # a coin lies on the boundary: no rest report
    t0 = time.monotonic()
    assert run_until(host, lambda: host.spin.finished, timeout=5.0)
    assert time.monotonic() - t0 >= host.quiet_s + 2.0     # not before the ring went quiet
    assert host.spin.outcome.result == "no-spin"
