"""`ring run`: the host against a real ring board and camera, with the boxer at the terminal.

Keys typed at the terminal (one per line; [reason] is free text kept in the audit log):
  a | arm                 "no more bets, come in spinner" (6.3): arm the board
  n | nospin [reason]     the boxer calls "no spin" (7.1, 7.2; final, 7.6)
  h | t | o | x [reason]  the boxer's call of an UNSURE spin (or an override): heads, tails,
                          odds, no spin
  sup n|h|t|o|x [reason]  the same, by the game supervisor (7.1); players never (7.5)
  lost N                  N coin(s) thrown out of the ring: 7.4 procedure (no spin, 7.4.1)
  lost found K | lost check ok|bad | lost offer new|original | lost newset NAME [continue]
                          its steps (7.4.2 - 7.4.5), each recorded
  ack ID                  acknowledge alarm ID (shown with each alarm); a ring board fault
                          is acknowledged by a supervisor (sup ack ID) once it re-tested clean
  clear                   the board is in FAULT: re-test its sensors (the board's self-test),
                          after fixing the cause the host names; no restart needed
  s | status              phase, light, link, camera, table state
  q | quit
  {"op": ...}             a table op in the `ring game replay` format (bets, spinner, chips)
  {"cmd": ...}            any host command as JSON (runner/commands.py)
The game state is rebuilt from the audit log at start, so a restarted host picks up the game.
The console is a thin client of RingHost: each line becomes one command, and what it prints
are the host's events (runner/events.py), the same ones a web console gets.
"""
import getpass
import json
import os
import select
import sys
import time

from ..console.options import add_console_option, ring_outline, serve_beside
from ..errors import UserError
from ..stopsignals import stop_on_signals
from .commands import parse_command
from .visionfiles import NO_CAMERA, vision_in_use

CALLS = {"h": "heads", "t": "tails", "o": "odds", "x": "no-spin"}


def register(subparsers):
    p = subparsers.add_parser("run", help="run the host against a real board and camera",
                              description=__doc__, formatter_class=_raw())
    p.add_argument("--port", default="auto", help="serial device path, or 'auto' (USB 2E8A:0005)")
    p.add_argument("--serial", default=None, help="with --port auto: the board's serial number")
    p.add_argument("--camera", action="append", default=None,
                   help="camera index, video file, RTSP/HTTP URL or image folder (none: manual calls); "
                        "several cameras: once per camera, in the order of the rig's views")
    p.add_argument("--config", default=None,
                   help="JSON file: {\"ring\": RING.json, \"model\": MODEL, \"key\": KEYFILE, "
                        "\"log\": audit.db, \"quiet_s\": 1.0}; several cameras: \"rig\": RIG.json "
                        "(ring vision calibrate-views) and \"camera\": [A, B, ...]")
    p.add_argument("--flash-dir", default=None,
                   help="a simulated board's flash dir instead of --port (ring sim board --flash)")
    p.add_argument("--key", default=None, help="key file (default: $RING_HOME/keys/<device-id>.key,"
                   " the device id read from the board's port)")
    p.add_argument("--log", default=None, help="audit log (default: $RING_HOME/audit.db)")
    p.add_argument("--link-wait", type=float, default=8.0, metavar="S",
                   help="seconds to wait at start for the board's link handshake before "
                        "saying the port is not a ring board (default 8)")
    add_console_option(p)
    p.set_defaults(func=run)
    return p


def _raw():
    import argparse
    return argparse.RawDescriptionHelpFormatter


def run(args):
    from ..link.client import LinkClient
    from ..link.portcheck import check_answers, check_path
    from ..link.keys import load_key
    from ..record.log import LogWriteError, default_path
    from ..record.rebuild import rebuild_engine
    from ..ringconfig import load_config, open_log
    from .host import RingHost

    cfg = load_config(args.config)
    port, device_id = _board(args, cfg)
    check_path(port)            # missing, not a serial port: said now, not as "LINK LOST"
    key = load_key(args.key or cfg.get("key") or device_id)
    ring_model = watcher = None
    cam_spec = args.camera or cfg.get("camera")
    if isinstance(cam_spec, (str, int)):
        cam_spec = [cam_spec]
    if cam_spec and (cfg.get("rig") or len(cam_spec) > 1):
        watcher = _rig_watcher(cam_spec, cfg)
    elif cam_spec:
        cam_spec = cam_spec[0]
        ring_model, watcher = _one_camera_watcher(cam_spec, cfg)
    try:
        vision = vision_in_use(cfg, ring_model) if watcher is not None else NO_CAMERA
    except UserError:
        watcher.stop()
        raise
    # The log last: a refused start leaves no new file behind.
    log_path = args.log or cfg.get("log") or default_path()
    log = open_log(log_path)
    engine = rebuild_engine(log)
    link = LinkClient(port, key)
    try:
        check_answers(link, port, args.link_wait)
    except UserError:
        link.close()
        log.close()
        if watcher is not None:
            watcher.stop()
        raise
    try:
        host = RingHost(link, log, engine, watcher=watcher, quiet_s=float(cfg.get("quiet_s", 1.0)),
                        stills=int(cfg.get("stills", 3)), vision=vision)
    except LogWriteError as exc:   # the vision record, before any spin: nothing has started
        link.close()
        log.close()
        if watcher is not None:
            watcher.stop()
        raise UserError(f"ring run: cannot start: {exc}", code=1) from None
    print(f"ring run: board {port}, audit log {log_path}, camera {cam_spec or 'none (manual calls)'}")
    print("keys: a=arm n=no spin h/t/o/x=boxer's call s=status q=quit, or a JSON table op")
    console = Console(host)
    web = None
    stop_on_signals()       # kill / a closed terminal close the link, console and log too
    try:
        web = serve_beside(host, log_path, args, parse_command,
                           ring=ring_outline(ring_model))
        return console.loop()
    finally:
        if web is not None:
            web.stop()
        host.close()
        link.close()
        log.close()


def _one_camera_watcher(cam_spec, cfg):
    """One camera with its ring calibration: a rig of one. -> (its RingModel, the watcher)."""
    from ..vision import FaceModel, RingModel, open_source
    from .rigwatch import RigWatcher
    if not cfg.get("ring") or not cfg.get("model"):
        raise UserError("a camera needs the ring calibration and the face model: put "
                        "\"ring\" and \"model\" in --config (ring vision calibrate / train)")
    ring_model = RingModel.load(cfg["ring"])
    face_model = FaceModel.load(cfg["model"])
    return ring_model, RigWatcher.one_camera(open_source(cam_spec), ring_model, face_model,
                                             keep=int(cfg.get("stills", 3)))


def _rig_watcher(cam_specs, cfg):
    """Several cameras: the rig's calibration, the face model, one source per camera."""
    from ..vision import FaceModel, open_source
    from ..vision.viewcal import Rig
    from .rigwatch import RigWatcher
    if not cfg.get("rig") or not cfg.get("model"):
        raise UserError("several cameras need the rig calibration and the face model: put \"rig\" "
                        "(ring vision calibrate-views) and \"model\" (ring vision train) in --config")
    rig = Rig.load(cfg["rig"])
    if len(cam_specs) != len(rig.views):
        raise UserError(f"the rig {cfg['rig']} has {len(rig.views)} cameras "
                        f"({', '.join(v.name for v in rig.views)}) but {len(cam_specs)} --camera given: "
                        "one per camera, in that order")
    sources = [open_source(c) for c in cam_specs]
    return RigWatcher(sources, rig, FaceModel.load(cfg["model"]), keep=int(cfg.get("stills", 3)))


def _board(args, cfg):
    """-> (port, device id): the port as given (or found), and the board's id read from it
    (USB serial number or the simulated board's id), so no --serial is needed to find the key."""
    from ..link.ports import device_id_for_port, resolve_port, sim_port_for_device
    if args.flash_dir:
        from ..link.ports import sim_device_id_for_flash
        dev = sim_device_id_for_flash(args.flash_dir)
        port = sim_port_for_device(dev)
        if port is None:
            raise UserError(f"no simulated board is running on flash dir {args.flash_dir}; "
                            f"start `ring sim board --flash {args.flash_dir}` first", code=1)
        return port, dev
    spec = args.port if args.port != "auto" else cfg.get("port", "auto")
    port = resolve_port(spec, args.serial)
    dev = args.serial or device_id_for_port(port)
    if dev is None and not (args.key or cfg.get("key")):
        raise UserError(f"cannot tell which board is on {port} (no USB serial number, no "
                        "simulated board registered there); give --key KEYFILE (made by "
                        "'ring device provision') or --serial DEVICE-ID")
    return port, dev


class Console:
    """The boxer's terminal: typed lines -> host commands, host events -> printed lines."""

    def __init__(self, host, stdin=None, out=print, user=None, role="boxer"):
        self.host = host
        self.stdin = stdin or sys.stdin
        self.out = out
        self.user = user or _login()
        self.role = role
        self.events = host.subscribe(maxlen=1024)   # before the loop starts: nothing missed
        self._buf = b""
        self._eof = False

    def loop(self):
        self.host.start()
        try:
            while True:
                self.show_events(0.05)
                line = self._read_line()
                if line is None:
                    continue
                if line in ("q", "quit", "exit"):
                    return 0
                try:
                    self.command(line)
                except UserError as exc:
                    self.out(f"  ! {exc}")
        finally:
            self.host.stop()
            self.events.close()

    def show_events(self, timeout=0.0):
        ev = self.events.get(timeout)
        while ev is not None:
            for line in render(ev):
                self.out(line)
            ev = self.events.get(0)

    def command(self, line):
        """One typed line: a host command (refusals raise UserError with the rule), or status."""
        if line in ("s", "status"):
            self.status()
            return
        obj, role = command_for(line, self.role)
        reply = self.host.submit(parse_command(obj, user=self.user, role=role))
        self.show_events()
        if not reply.ok:
            raise UserError(f"refused ({reply.rule}): {reply.message}" if reply.rule
                            else reply.message)

    def status(self):
        snap = self.host.snapshot()
        link = self.host.link
        st = link.stats() if hasattr(link, "stats") else {}
        up = snap["link"]["up"]
        camera = {"none": "none (manual calls)", "stalled": "STALLED", "ok": "ok"}[snap["camera"]]
        light = snap["light"] if up else f"{snap['light']} (last known)"
        self.out(f"  board phase {snap['phase']}  light {light}  link "
                 f"{'up' if up else 'LOST (the board shows link-lost)'}  camera {camera}")
        fault = snap.get("fault")
        if fault is not None:
            self.out(f"  ! FAULT: {fault['what']}. "
                     + (f"It re-tested clean: a supervisor types 'sup ack {fault['alarm']}'"
                        if fault["cleared"] else f"To clear: {fault['clear']}"))
        board = st.get("board_alarms")
        self.out(f"  link counters: alarms {st.get('alarms', 0)} (the board's own "
                 f"{'?' if board is None else board}), retransmits "
                 f"{st.get('retransmits', 0)}, reconnects {st.get('opens', 0)}")
        for a in snap["alarms"]:
            self.out(f"  alarm {a['id']}: {a['text']} (type 'ack {a['id']}')")
        self.out("  table " + json.dumps(snap["table"]))

    def _read_line(self):
        """One typed line if there is one, without blocking (raw fd reads: a buffered
        readline would hide further lines from select)."""
        if b"\n" not in self._buf and not self._eof:
            try:
                fd = self.stdin.fileno()
                r, _, _ = select.select([fd], [], [], 0)
                if r:
                    chunk = os.read(fd, 4096)
                    self._buf += chunk
                    self._eof = chunk == b""
            except (ValueError, OSError):
                self._eof = True
        if b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            return line.decode(errors="replace").strip()
        if self._eof:
            time.sleep(0.05)            # stdin closed: keep running the ring, no more commands
        return None


LOST_USAGE = "lost N | lost found K | lost check ok|bad | lost offer new|original | lost newset NAME [continue]"


def command_for(line, role="boxer"):
    """A typed line -> (command JSON, role). UserError for a line that is none of the keys."""
    if line.startswith("{"):
        from ..game.script import decode_json_line
        obj = decode_json_line(line)    # one-line UserError: bad JSON, duplicate key, nesting
        return (obj if "cmd" in obj else {"cmd": "table", "op": obj}), role
    words = line.split()
    if words[:1] == ["sup"]:
        role, line = "supervisor", line.split(" ", 1)[1] if " " in line else ""
        words = line.split()
    key, reason = (words[0] if words else ""), (line.split(" ", 1)[1].strip() if " " in line else "")
    if key in ("a", "arm"):
        return {"cmd": "arm"}, role
    if key in ("n", "nospin"):
        return {"cmd": "nospin", "reason": reason or f"{role} called no spin"}, role
    if key in CALLS:
        return {"cmd": "call", "result": CALLS[key],
                "reason": reason or f"{role}'s call at the terminal"}, role
    if key == "ack" and len(words) == 2 and words[1].isdigit():
        return {"cmd": "ack-alarm", "id": int(words[1])}, role
    if key == "clear" and len(words) == 1:
        return {"cmd": "clear-fault"}, role
    if key == "lost":
        return _lost(words[1:]), role
    raise UserError(f"unknown command {line!r}: a, n, h, t, o, x, sup, lost, ack, clear, s, q "
                    "or a JSON op")


def _lost(args):
    if len(args) == 1 and args[0].isdigit():
        return {"cmd": "lost", "n": int(args[0])}
    if args[:1] == ["found"] and len(args) == 2 and args[1].isdigit():
        return {"cmd": "lost-found", "n": int(args[1])}
    if args[:1] == ["check"] and args[1:] in (["ok"], ["bad"]):
        return {"cmd": "lost-check", "ok": args[1] == "ok"}
    if args[:1] == ["offer"] and len(args) == 2:
        return {"cmd": "lost-offer", "choice": args[1]}
    if args[:1] == ["newset"] and len(args) >= 2:
        return {"cmd": "lost-newset", "name": args[1], "continue": "continue" in args[2:]}
    raise UserError(LOST_USAGE)


def render(ev):
    """A host event -> the lines the terminal prints (none for the chatty ones)."""
    d, kind = ev.data, ev.kind
    if kind == "link":
        if d["at_repl"]:
            return ["  ! the board is at the MicroPython REPL, not running the controller: "
                    "reset it, or redeploy with 'ring device deploy'"]
        return [f"  link up: firmware {d['firmware'] or '?'} image {d['image'] or '?'}"] if d["up"] else []
    if kind == "phase":
        if d["phase"] == "armed" and d.get("spin") is not None:
            # said when the board is armed, not when asked: the board's phase is the truth
            return [f"  spin {d['spin']}: armed, come in spinner (board phase armed)"]
        return [f"  phase {d['phase']}  light {d['light']}"]
    if kind == "spin-started":
        return [f"  spin {d['spin']}: no more bets, arming the board ..."]
    if kind == "verdict":
        lines = [f"  spin {d['spin']}: {d['result'].upper()}  " + "; ".join(d["reasons"])]
        if d["unsure"]:
            lines.append("  boxer: look at the coins and type h, t, o or x (no spin)")
        return lines
    if kind == "call":
        if "kind" not in d:
            return [f"  no spin called by the {d['actor']} (7.2; final, 7.6)"]
        return [f"  spin {d['spin']}: {d['result'].upper()} ({d['actor']}'s call, recorded)"]
    if kind in ("settlement", "table"):
        return ["  " + json.dumps(e) for e in d["events"]]
    if kind == "lost-coin":
        step, todo = d["step"], d["todo"]
        return [f"  {step.get('rule', '7.4')} {step.get('what', step.get('reason', ''))} recorded; "
                + ("still to do: " + "; ".join(todo) if todo else "play may resume")]
    if kind == "selftest":
        return [("  ring sensors re-tested: pass" if d["pass"]
                 else f"  ! ring sensors re-tested: FAIL: {d['what']}")]
    if kind == "fault-clearing":
        return ["  re-testing the ring sensors (the board's self-test) ..."]
    if kind == "fault-cleared":
        return [f"  the board passed its re-test: a game supervisor acknowledges the fault with "
                f"'sup ack {d['alarm']}', then play may resume"]
    if kind == "alarm":
        if d["kind"] == "board-fault" and "sup ack" in d["text"]:
            return [f"  ! {d['text']} (alarm {d['id']})"]
        return [f"  ! {d['text']} (alarm {d['id']}: 'ack {d['id']}' when dealt with)"]
    if kind == "gap":
        return [f"  ! {d['dropped']} host event(s) not shown (the console fell behind)"]
    if kind == "log-down":
        return [f"  !! {d['text']}"]
    return []


def _login():
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "terminal"
