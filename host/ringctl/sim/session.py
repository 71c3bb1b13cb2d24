"""DemoSession: wires the simulated board, ring and camera to the live host, and plays the table as a thin client.

The host runs on its own thread exactly as under `ring run`; the session only talks to it
through its API: table ops, the arm and the boxer's call of an unsure spin go in as commands
(runner.commands), and everything it reports about a spin comes from the host's events.
"""
import hashlib
import json
import os
import time

import numpy as np

from ..errors import UserError
from ..runner.commands import Arm, Call, TableOp
from ..runner.host import RingHost
from ..runner.visionfiles import vision_in_use
from ..vision.faceid import FaceModel
from ..vision.viewcal import Rig
from .table import Table

BOARD_UP_S = 15.0
# What the summary's timing figures mean (the summary carries this as "figures").
FIGURES = {
    "result_after_rest_ms": "wall clock from the coins' true rest (the physics: both coins slow and "
    "unmoved for 0.25 s, from the first instant of that; a coin lying flat is unmoved while it "
    "neither moves in plan nor tilts past 2 deg, the engine's contact margin) to the verdict's announcement (the "
    "host's verdict event, published after its record is durable and the board is told the "
    "light), for every spin the cameras decided; all of the live path is in it: the cameras' "
    "frame period, the stillness rule's window, the watcher's rule and judge, the board's impact "
    "quiet (its at-rest), the host's decision, the record (one sync of the log) and the light "
    "command; not the board showing the light (edge_to_light_ms) nor a screen drawing it",
    "after_rest_ms_parts": "each from the true rest: the board's at-rest, the arrival of the frame "
    "that closed the cameras' still window, the watcher done with it, the host's decision, its "
    "evidence JPEGs ready, its record durable, the announcement",
    "last_motion": "per spin: the last moment in which the stillness rule saw motion before the "
    "still period that closed (ms from the true rest), and on each camera that saw it the check "
    "(previous frame, the period's anchor frame, or the full-resolution fine check), its changed "
    "pixels and their box in that camera's pixels: why a window closed when it did",
    "rest_to_result_ms": "the same announcement's decision time after the later of the true rest "
    "and the end of the board's quiet time after the last impact it can feel",
    "load_avg_1min": "the machine's 1-minute load average at the end: every wall-clock figure "
    "above depends on it (this machine has %d cores)" % (os.cpu_count() or 0),
    "simulator": "the simulated board runs the firmware in its own process (micropython); the "
    "physics and the cameras' frames of a toss are computed before the spin is armed; in the "
    "host's process during play the simulated cameras only hand out those frames (a copy of "
    "the empty ring with the coins' prepared patches while they move, nothing once they rest; "
    "sim_frames_drawn_live_share: the share drawn live) and a thread feeds the board's sensor "
    "socket",
}
WHO = {"user": "demo", "role": "boxer"}     # the scripted boxer at the table
SLOW_CLOSE_S = 1.0


class DemoSession:
    def __init__(self, work, seed=1, coin_px=44.0, fps=25.0, quiet_s=1.0, say=print,
                 ring_mm=1500.0, cameras=1):
        self.work = work
        self.ring_mm = float(ring_mm)
        self.cameras = int(cameras)
        self.after_rest_ms = []      # true rest -> announced result, everything included
        self.after_rest_parts = []   # per spin: where that time went (see play_spin)
        self._wall_minus_mono = time.time() - time.monotonic()   # event times are wall clock
        self.seed = seed
        self.coin_px = coin_px
        self.fps = fps
        self.quiet_s = quiet_s
        self.say = say
        self.records = []
        self.edge_to_light_us = []
        self.events = None
        self.rest_to_result_ms = []
        self.before_true_rest = 0
        self.board = self.link = self.log = self.host_log = self.host = self.camera = None

    # ---- set-up and tear-down ----------------------------------------------------------------
    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _start(self):
        from .simboard import SimBoard
        from ..game.engine import Engine
        from ..link.client import LinkClient
        from ..record.log import AuditLog
        from .geometry import CoinSpec, RingGeometry
        from .play import SimRing

        flash = os.path.join(self.work, "flash")
        os.makedirs(flash, exist_ok=True)
        key_path = os.path.join(flash, "key.bin")
        if not os.path.exists(key_path):
            with open(key_path, "wb") as f:          # the demo's own per-device key
                f.write(os.urandom(32))
            os.chmod(key_path, 0o600)
        with open(key_path, "rb") as f:
            key = f.read()
        self.witness_key = _provision_witness(flash, os.path.join(self.work, "witness.key"))
        with open(os.path.join(flash, "config.json"), "w") as f:
            # the board's impact quiet before "at rest": the host's own figure (vision/rest.py)
            json.dump({"quiet_ms": int(round(self.quiet_s * 1000))}, f)
        self.board = SimBoard(flash, key=key)
        self.board.start()
        self.link = LinkClient(self.board.tty, key)
        if not self.link.wait_up(BOARD_UP_S):
            raise UserError("the simulated board did not complete the handshake within %d s "
                            "(is micropython installed? run 'make venv')" % BOARD_UP_S, code=1)
        info = self.link.peer_info or {}
        self.firmware = info.get("interp") or "?"
        self.log_path = os.path.join(self.work, "audit.db")
        # The host writes through its own connection; `self.log` is the session's (and the
        # tests') reader, so reading never shares a connection with the host's writes.
        self.host_log = AuditLog(self.log_path)
        self.log = AuditLog(self.log_path)
        from .cameras import camera_rig, commission
        from ..runner.rigwatch import RigWatcher
        self.ring = RingGeometry(layout_radius_m=self.ring_mm / 2000.0)
        cams = camera_rig(self.ring, self.cameras, self.coin_px)
        self.simring = SimRing(self.ring, sensor_socket=self.board.send_sensor,
                               camera={"fps": self.fps}, seed=self.seed, cams=cams)
        self.camera = self.simring.camera
        # on-site set-up as the technician does it: the calibration sheet and the empty ring
        # photographed by every camera, then ten photos of each coin face
        self.rig, face_model = commission(cams, self.ring, CoinSpec(), np.random.default_rng(self.seed + 7),
                                          render=self.camera.render)
        for cam in self.simring.cameras:
            cam.frame_at(0.0)            # the renderer's one-off empty-ring drawing, before play
        # saved as the technician's files are and judged from them, so the log names what judged
        # the spins (as `ring run`); named by their content, so a work folder used again keeps
        # the files an earlier session's log names
        files = {"rig": self._saved(self.rig.to_json(), "rig-%s.json"),
                 "model": self._saved(json.dumps(face_model.to_dict()), "coins-%s.model")}
        self.rig, face_model = Rig.load(files["rig"]), FaceModel.load(files["model"])
        watcher = RigWatcher(self.simring.cameras, self.rig, face_model, stale_s=2.0)
        self.host = RingHost(self.link, self.host_log, Engine(), watcher=watcher, quiet_s=self.quiet_s,
                             camera_stale_s=2.0, vision=vision_in_use(files))
        self.events = self.host.subscribe(maxlen=100000)   # before it runs: nothing is missed
        self.table = Table(np.random.default_rng(self.seed))
        self.host.start()
        self._read_events(0.3)                       # boot, self-test and light events

    def _saved(self, text, name):
        """`text` saved in the work folder as `name` % the first 12 hex of its SHA-256 -> the path."""
        path = os.path.join(self.work, name % hashlib.sha256(text.encode("utf-8")).hexdigest()[:12])
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    @property
    def board_tty(self):
        return self.board.tty if self.board else "?"

    def close(self):
        parts = [("the host", self.host), ("its event feed", self.events),
                 ("the simulated ring", getattr(self, "simring", None)), ("the link", self.link),
                 ("the simulated board", self.board), ("the host's log", self.host_log),
                 ("the audit log", self.log)]
        for name, part in parts:
            if part is None:
                continue
            t0 = time.monotonic()
            try:
                part.close() if hasattr(part, "close") else part.stop()
            except Exception as exc:
                self.say("shutdown: %s failed to close: %s" % (name, exc))
            took = time.monotonic() - t0
            if took > SLOW_CLOSE_S:     # a slow stop names itself (a rare hung Ctrl-C was seen)
                self.say("shutdown: %s took %.1f s to close" % (name, took))

    # ---- one spin ----------------------------------------------------------------------------
    def play_spin(self, seed, force=None, during=None, boxer_calls=True, call_wait_s=120.0):
        """One spin end to end. `during(toss)`, if given, runs on a thread once the coins
        are released (fault drills: kill the board, stall the camera). With
        `boxer_calls=False` an unsure spin waits up to `call_wait_s` for someone else's call
        (the boxer at the web console)."""
        host = self.host
        table_lines = []
        while True:                                   # bets and calls until the spin is on
            op = self.table.next_op(host.snapshot()["table"])
            if op is None:
                break
            reply = host.submit(TableOp(op=op, **WHO))
            if "events" not in reply.data:
                raise UserError("the host did not take table op %s: %s" % (json.dumps(op),
                                                                          reply.message), code=1)
            for ev in reply.data["events"]:
                table_lines.append(_table_line(op, ev))
        toss = self._toss_for(seed, force)           # physics first: not part of the spin's time
        self.simring.prepare(toss)                   # so are the cameras' frames (CameraSource.prepare)
        number, seen = self._arm()
        self.simring.play(toss)
        self.last_toss = toss
        t0 = toss.t0                                  # release of the coins (host clock)
        if during is not None:
            import threading
            threading.Thread(target=during, args=(toss,), daemon=True).start()
        if force == "low":
            # 7.1.2: the boxer sees the coins not spun above the spinner's head and presses
            # "no spin" before they come to rest (7.2).
            self._press_nospin(t0 + 0.4)
        wait_s = (toss.duration_s + self.quiet_s + host.still_timeout_s + host.rest_timeout_s
                  + 5.0)
        seen += self._read_events(wait_s, _for(number, "verdict"), "spin %d's verdict" % number)
        verdict = seen[-1].data
        t_announced = seen[-1].t - self._wall_minus_mono     # published: recorded, board told
        window = getattr(host.watcher, "window_closed", None)
        motion = getattr(host.watcher, "last_motion", None)
        truth = toss.truth["outcome"]
        check = _check(verdict["result"], truth)
        if verdict["unsure"] and boxer_calls:
            # The boxer looks at the coins and calls it (recorded with the reason).
            reply = host.submit(Call(result=truth, reason="boxer read the coins on the layout",
                                     **WHO))
            if not reply.ok:
                raise UserError("the boxer's call was refused (%s): %s" % (reply.rule,
                                                                         reply.message), code=1)
        seen += self._read_events(call_wait_s if verdict["unsure"] and not boxer_calls else 10.0,
                                  _for(number, "settlement"), "spin %d's settlement" % number)
        result = [e.data for e in seen if _for(number, "result")(e)][-1]
        settled = [_table_line({"op": "spin"}, ev) for ev in seen[-1].data["events"]]
        self.simring.wait(2.0)
        # The coins are picked up (a coin left on the boundary unblocks its beam) before the
        # next arm, so nothing of this spin is blamed on the next one.
        self.simring.clear()
        seen += self._read_events(0.1)
        t_release = t0
        t = verdict["t_mono"]
        net_ms = None
        truth_rest = toss.truth.get("rest_t")
        if truth_rest is not None and t["result"] is not None and result["result"] != "no-spin":
            # Net latency (issue 6): from the later of the coins' true rest and the end of the
            # configured quiet time after the last impact the board can feel, to the result.
            quiet_end = _last_felt_impact(toss) + self.quiet_s
            net_ms = (t["result"] - t_release - max(truth_rest, quiet_end)) * 1000.0
            self.rest_to_result_ms.append(net_ms)
        after_ms = parts = last_motion = None
        if truth_rest is not None and t["result"] is not None and verdict.get("camera_decided") \
                and not verdict["unsure"]:
            # issue 13: from the coins' true rest to the announcement (the verdict published,
            # after its record and the board's light), everything included (the board's quiet,
            # the cameras' still window, adjudication, the record), for every spin the
            # cameras decided (a sensor's or a person's no spin may come before rest, 7.2; an
            # unsure verdict announces nothing: the boxer looks and calls)
            rest_abs = t_release + truth_rest
            after_ms = (t_announced - rest_abs) * 1000.0
            self.after_rest_ms.append(after_ms)
            if after_ms < 0:
                self.before_true_rest += 1
            # where the time went, each from the true rest (ms): the board's "at rest" (impact
            # quiet), the frame that closed the cameras' still window (its arrival, then the
            # watcher done with it), the host's decision, its record durable, and the
            # announcement
            ms = lambda x: None if x is None else round((x - rest_abs) * 1000.0, 1)  # noqa: E731
            parts = {"board_rest": ms(t["rest"]), "window_frame": ms(window[1] if window else None),
                     "window_closed": ms(window[0] if window else None), "decided": ms(t["result"]),
                     "evidence": ms(t.get("evidence")), "recorded": ms(t.get("recorded")),
                     "announced": round(after_ms, 1)}
            self.after_rest_parts.append(parts)
            if motion is not None:
                # what the stillness rule last saw move before the still period that closed
                # (vision.rest.StillnessWatch.motion per camera): why a window closed late
                last_motion = {"frame": ms(motion[0]), "seen": [dict(m or {}, camera=k) for k, m in motion[1]]}
        e2l = [e.data["edge_to_light_us"] / 1000.0 for e in seen
               if e.kind == "light" and e.data.get("spin") == number
               and e.data["edge_to_light_us"] >= 0]
        scenario = force if not toss.truth.get("force_not_achieved") else force + "?"
        rec = {"spin": number, "scenario": scenario, "seed": toss.seed,
               "outcome": result["result"], "reasons": result["reasons"], "truth": truth,
               "truth_reasons": toss.truth.get("reasons", []), "check": check,
               "light": host.snapshot()["light"], "edge_to_light_ms": max(e2l) if e2l else None,
               "rest_to_result_ms": net_ms, "result_after_rest_ms": after_ms,
               "after_rest_ms_parts": parts, "last_motion": last_motion,
               "board_restarted": verdict["board_restarted"],
               "camera_fault": verdict["camera_fault"],
               "timings_s": {k: (None if t[k] is None else round(t[k] - t_release, 3))
                             for k in ("landed", "rest", "result")},
               "true_rest_s": toss.truth.get("rest_t"),
               "table": [s for s in table_lines if s], "settled": [s for s in settled if s]}
        self.records.append(rec)
        return rec

    def _arm(self, tries=20):
        """Arm as the boxer does: when the board says "not now" (its self-test after a
        restart), wait and arm again. -> (spin number, events seen)."""
        seen = []
        for _ in range(tries):
            reply = self.host.submit(Arm(**WHO))
            if not reply.ok:
                raise UserError("the host refused to arm (%s): %s" % (reply.rule, reply.message),
                                code=1)
            number = reply.data["spin"]
            # the board's own word that it is armed: a toss played to a board not yet armed
            # (a loaded machine can delay the simulated board's answer by seconds) is never
            # seen landing, so the spin would wait forever for its verdict
            def answer(e):
                return (e.kind == "phase" and e.data["phase"] in ("armed", "in-flight")) or \
                    (e.kind == "alarm" and e.data["kind"] == "board-refused" and e.data["spin"] == number)
            got = self._read_events(BOARD_UP_S, answer)
            seen += got
            if not (got and answer(got[-1])):
                raise UserError("the board did not say it was armed for spin %d within %.0f s "
                                "(is the machine overloaded?)" % (number, BOARD_UP_S), code=1)
            if not (got and got[-1].kind == "alarm"):
                return number, seen
            time.sleep(0.5)
        raise UserError("the board kept refusing to arm: %s" % seen[-1].data["text"], code=1)

    def _read_events(self, timeout, until=None, what=None):
        """The host's events for `timeout` s, or until one satisfies `until` (then it is the
        last one returned; UserError naming `what` if it never comes)."""
        seen = []
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            ev = self.events.get(max(0.0, left)) if left > 0 else self.events.get(0)
            if ev is None:
                if left <= 0:
                    if what is not None:
                        raise UserError("the host did not report %s within %.0f s"
                                        % (what, timeout), code=1)
                    return seen
                continue
            seen.append(ev)
            if ev.kind == "light" and ev.data["edge_to_light_us"] >= 0:
                self.edge_to_light_us.append(ev.data["edge_to_light_us"])
            elif ev.kind == "alarm":
                self.say("  ! " + ev.data["text"])
            elif ev.kind == "log-down":
                raise UserError(ev.data["text"], code=1)
            if until is not None and until(ev):
                return seen

    def _toss_for(self, seed, force, tries=8):
        """A toss showing the forced case: re-rolled (seeded) until its ground truth cites
        the rule, at most `tries` times; otherwise the last one, labelled as not achieved."""
        from .physics import simulate_toss
        for k in range(tries):
            toss = simulate_toss(seed + 7919 * k, ring=self.ring, force=force)
            if shows_forced_case(toss.truth, force):
                return toss
        toss.truth["force_not_achieved"] = True
        return toss

    def _press_nospin(self, at):
        import threading

        def press():
            time.sleep(max(0.0, at - time.monotonic()))
            self.simring.feeder.send_line("button nospin 1")
            time.sleep(0.08)
            self.simring.feeder.send_line("button nospin 0")
        threading.Thread(target=press, daemon=True).start()

    def summary(self):
        recs = self.records
        e2l = [b / 1000.0 for b in self.edge_to_light_us]
        return {"spins": len(recs),
                "agree": sum(r["check"] == "agree" for r in recs),
                "wrong": sum(r["check"] == "wrong" for r in recs),
                "unsure": sum(r["check"] == "unsure" for r in recs),
                "false_no_spin": sum(r["check"] == "false-no-spin" for r in recs),
                "no_spin": sum(r["outcome"] == "no-spin" for r in recs),
                "rest_to_result_ms_p50": _pct(self.rest_to_result_ms, 50),
                "rest_to_result_ms_p99": _pct(self.rest_to_result_ms, 99),
                "results_before_true_rest": self.before_true_rest,
                "cameras": len(self.rig.views),
                "ring_mm": self.ring_mm,
                "coin_px_min": self.rig.report["coverage"]["coin_px_min"],
                "result_after_rest_ms_p50": _pct(self.after_rest_ms, 50),
                "result_after_rest_ms_p99": _pct(self.after_rest_ms, 99),
                "after_rest_ms_parts_p50": {k: _pct([p[k] for p in self.after_rest_parts if p[k] is not None], 50)
                                            for k in ("board_rest", "window_frame", "window_closed",
                                                      "decided", "evidence", "recorded", "announced")},
                "after_rest_ms_parts_p99": {k: _pct([p[k] for p in self.after_rest_parts if p[k] is not None], 99)
                                            for k in ("board_rest", "window_frame", "window_closed",
                                                      "decided", "evidence", "recorded", "announced")},
                "load_avg_1min": round(os.getloadavg()[0], 2),
                "figures": FIGURES,
                # the simulated cameras' frames drawn live while the host ran (the rest were
                # drawn before each release: CameraSource.prepare)
                "sim_frames_drawn_live_share": self._live_share(),
                "adjudicate_ms_p50": _pct(self.host.watcher.judge_ms, 50) if self.host else None,
                # judged moments whose evidence the host encoded itself (the watcher's evidence
                # thread had not got to it by the decision)
                "evidence_encoded_late": self.host.watcher.late_evidence if self.host else None,
                "edge_to_light_ms_p99": _pct(e2l, 99),
                "firmware": self.firmware,
                "audit_log": self.log_path,
                "chain_ok": bool(self.log.verify()["ok"]),
                "results": {k: sum(r["outcome"] == k for r in recs)
                            for k in ("heads", "tails", "odds", "no-spin")},
                "truth": {k: sum(r["truth"] == k for r in recs)
                          for k in ("heads", "tails", "odds", "no-spin")},
                "open": self.open_at_end(),
                "mix": {"clean": sum(r["scenario"] is None for r in recs),
                        "clean_valid": sum(r["scenario"] is None and r["outcome"] in
                                           ("heads", "tails", "odds") for r in recs),
                        "forced": sum(r["scenario"] is not None for r in recs)}}

    def _live_share(self):
        cams = self.simring.cameras if getattr(self, "simring", None) else []
        live = sum(c.live_frames for c in cams)
        total = live + sum(c.prepared_frames for c in cams)
        return round(live / total, 3) if total else None

    def open_at_end(self):
        """What the game leaves open when the demo stops: the spinner's game and the wagers
        still on the layout (the engine keeps only open wagers)."""
        table = self.host.snapshot()["table"]
        return {"game": table["game"], "spinning": table["spinning"],
                "betting": table["betting"], "wagers": table["open_wagers"]}


# the rule a forced scenario is meant to show (a forced toss does not always produce it)
FORCE_RULE = {"outside": "7.3.1", "wall": "7.3.2", "mat": "7.3.3", "stack": "7.3.4",
              "low": "7.1.2"}


def shows_forced_case(truth, force):
    """Does the toss's ground truth show what `force` asked for? A lean: a coin ends leaning
    (tilted, resting on the ring wall from the gutter: outside the ring, so the rule it
    breaks is 7.3.1 and it does not lie flat); the others: their rule is among the reasons."""
    if force is None:
        return True
    if force == "lean":
        return any(c["leaning"] for c in truth["coins"])
    return any(r.startswith(FORCE_RULE[force]) for r in truth.get("reasons", []))


def _last_felt_impact(toss):
    """Time (s after release) of the last piezo level the board counts as "not quiet":
    above the simulated noise floor by the configured rest threshold."""
    from ..fw import pins
    from .sensors import DEFAULT_FLOOR
    level = DEFAULT_FLOOR + pins.DEFAULTS["rest_threshold"]
    times = [t for (t, kind, ch, value) in toss.sensor_timeline if kind == "impact" and value > level]
    return max(times) if times else 0.0


def _for(spin, kind):
    return lambda e: e.kind == kind and e.data.get("spin") == spin


def _check(result, truth):
    """agree | unsure | false-no-spin (a needless re-spin) | wrong (a result that would be paid
    against the truth, or a valid result called on a spin that was invalid)."""
    if result == truth:
        return "agree"
    if result == "unsure":
        return "unsure"
    if result == "no-spin":
        return "false-no-spin"
    return "wrong"


def _pct(values, q):
    return round(float(np.percentile(values, q)), 2) if values else None


def _table_line(op, ev):
    kind = ev.get("event")
    if kind == "settled":
        return "settled %s (%s) %s, pays %s [%s]" % (ev["bet"], ev.get("on", ""), ev["outcome"],
                                                  ev.get("pays", 0), ev.get("rule", "8.1"))
    if kind == "rejected":
        return "refused %s: %s [%s]" % (op.get("op"), ev["reason"], ev["rule"])
    if kind in ("spinner", "game-over", "spinner-retires", "substitute", "excluded", "void",
                "election"):
        rest = {k: v for k, v in ev.items() if k not in ("event", "line")}
        return "%s %s" % (kind, json.dumps(rest, sort_keys=True))
    if kind == "placed":
        return "bet %s on %s %s [%s]" % (ev["bet"], ev["on"], ev["amount"], ev.get("rule", "4.5"))
    if kind in ("bets-open", "bets-closed"):
        return {"bets-open": "\"place your bets\" [6.2]",
                "bets-closed": "\"no more bets, come in spinner\" [6.3]"}[kind]
    return None


def _provision_witness(flash, copy_path):
    """The demo board's audit-log witness key (made once, as `ring device provision
    --witness-copy` would) and the surveillance copy at `copy_path`, so that `ring log verify
    --witness W/flash --witness-key W/witness.key` works on a demo log."""
    from ..fw import witness
    from ..fw.ringlink import hmac_key
    board_key = os.path.join(flash, witness.KEY_FILE)
    if not os.path.exists(board_key):
        wkey = os.urandom(witness.KEY_LEN)
        for path, data in ((board_key, wkey), (os.path.join(flash, witness.STATE_FILE),
                                               witness.pack_state(hmac_key, wkey, 0, witness.GENESIS))):
            with open(path, "wb") as f:
                f.write(data)
            os.chmod(path, 0o600)
    if not os.path.exists(copy_path):
        with open(board_key, "rb") as src, open(copy_path, "wb") as f:
            f.write(src.read())
        os.chmod(copy_path, 0o600)
    return copy_path
