"""`ring run`: the host against a real ring board and camera, with the boxer at the terminal.

Keys typed at the terminal (one per line):
  a | arm            "no more bets, come in spinner" (6.3): arm the board
  n | nospin         the boxer calls "no spin" (7.2; final, 7.6)
  h | t | o | x      the boxer's call when the ring says UNSURE: heads, tails, odds, no spin
  s | status         phase, light, link, camera, table state
  q | quit
  {"op": ...}        a table op in the `ring game replay` format (bets, spinner, chips, ...)
The game state is rebuilt from the audit log at start, so a restarted host picks up the game.
"""
import json
import os
import select
import sys
import time

from ..errors import UserError

CALLS = {"h": "heads", "t": "tails", "o": "odds", "x": "no-spin"}


def register(subparsers):
    p = subparsers.add_parser("run", help="run the host against a real board and camera",
                              description=__doc__, formatter_class=_raw())
    p.add_argument("--port", default="auto", help="serial device path, or 'auto' (USB 2E8A:0005)")
    p.add_argument("--serial", default=None, help="with --port auto: the board's serial number")
    p.add_argument("--camera", default=None,
                   help="camera index, video file, RTSP/HTTP URL or image folder (none: manual calls)")
    p.add_argument("--config", default=None,
                   help="JSON file: {\"ring\": RING.json, \"model\": MODEL, \"key\": KEYFILE, "
                        "\"log\": audit.db, \"quiet_s\": 1.0}")
    p.add_argument("--key", default=None, help="key file (default: $RING_HOME/keys/<serial>.key)")
    p.add_argument("--log", default=None, help="audit log (default: $RING_HOME/audit.db)")
    p.set_defaults(func=run)
    return p


def _raw():
    import argparse
    return argparse.RawDescriptionHelpFormatter


def load_config(path):
    if path is None:
        return {}
    try:
        with open(path) as f:
            cfg = json.load(f)
    except FileNotFoundError:
        raise UserError(f"config file {path} not found; give an existing --config or leave it out")
    except json.JSONDecodeError as exc:
        raise UserError(f"config file {path} is not valid JSON (line {exc.lineno}: {exc.msg})")
    if not isinstance(cfg, dict):
        raise UserError(f"config file {path} must hold a JSON object")
    unknown = set(cfg) - {"ring", "model", "key", "log", "quiet_s", "stills", "port", "camera"}
    if unknown:
        raise UserError(f"config file {path}: unknown keys {sorted(unknown)}")
    return cfg


def run(args):
    from ..link.client import LinkClient
    from ..link.keys import load_key
    from ..link.ports import resolve_port
    from ..record.log import AuditLog, default_path
    from ..record.rebuild import rebuild_engine
    from .host import RingHost

    cfg = load_config(args.config)
    port = resolve_port(args.port if args.port != "auto" else cfg.get("port", "auto"), args.serial)
    key_src = args.key or cfg.get("key") or args.serial
    if key_src is None:
        raise UserError("no key: give --key KEYFILE (made by 'ring device provision') or --serial")
    key = load_key(key_src)
    log_path = args.log or cfg.get("log") or default_path()
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    log = AuditLog(log_path)
    engine = rebuild_engine(log)
    ring_model = face_model = camera = None
    cam_spec = args.camera or cfg.get("camera")
    if cam_spec is not None:
        from ..vision import FaceModel, RingModel, open_source
        if not cfg.get("ring") or not cfg.get("model"):
            raise UserError("a camera needs the ring calibration and the face model: put "
                            "\"ring\" and \"model\" in --config (ring vision calibrate / train)")
        ring_model = RingModel.load(cfg["ring"])
        face_model = FaceModel.load(cfg["model"])
        camera = open_source(cam_spec)
    link = LinkClient(port, key)
    host = RingHost(link, log, engine, camera=camera, ring_model=ring_model,
                    face_model=face_model, quiet_s=float(cfg.get("quiet_s", 1.0)),
                    stills=int(cfg.get("stills", 3)), say=print)
    print(f"ring run: board {port}, audit log {log_path}, camera {cam_spec or 'none (manual calls)'}")
    print("keys: a=arm n=no spin h/t/o/x=boxer's call s=status q=quit, or a JSON table op")
    try:
        return Console(host).loop()
    finally:
        host.close()
        link.close()
        log.close()


class Console:
    """The boxer's terminal: live status lines and typed commands."""

    def __init__(self, host, stdin=None, out=print):
        self.host = host
        self.stdin = stdin or sys.stdin
        self.out = out
        self.link_state = None
        self.shown_phase = None
        self.waiting_call = False
        self._buf = b""
        self._eof = False

    def loop(self):
        host = self.host
        while True:
            host.pump(0.05)
            self._show_link()
            spin = host.spin
            if host.phase != self.shown_phase:
                self.shown_phase = host.phase
                self.out(f"  phase {host.phase}  light {host.light}")
            if spin is not None and spin.outcome is None and (spin.t_rest or spin.board_restarted):
                self._decide()
            line = self._read_line()
            if line is None:
                continue
            if line in ("q", "quit", "exit"):
                return 0
            try:
                self.command(line)
            except UserError as exc:
                self.out(f"  ! {exc}")

    def _show_link(self):
        if getattr(self.host.link, "at_repl", False) and not getattr(self, "repl_shown", False):
            self.repl_shown = True
            self.out("  ! the board is at the MicroPython REPL, not running the controller: "
                     "reset it, or redeploy with 'ring device deploy'")
        up = bool(self.host.link.link_up)
        if up != self.link_state:
            self.link_state = up
            if up:
                info = self.host.link.peer_info or {}
                self.out(f"  link up: firmware {info.get('fw', '?')} image {info.get('image', '?')}")
            else:
                self.out("  ! LINK LOST: light shows link-lost on the board; calls are manual")

    def _decide(self):
        out = self.host.adjudicate()
        self.out(f"  spin {self.host.spin.number}: {out.result.upper()}  " + "; ".join(out.reasons))
        if out.result == "unsure":
            self.out("  boxer: look at the coins and type h, t, o or x (no spin)")
            self.waiting_call = True
        else:
            self._settle()

    def _settle(self):
        for ev in self.host.finish():
            self.out("  " + json.dumps(ev))
        self.waiting_call = False

    def command(self, line):
        host = self.host
        if line.startswith("{"):
            try:
                op = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"not a JSON table op ({exc.msg}); e.g. {{\"op\": \"bets-open\"}}")
            from ..game.engine import MalformedOp
            try:
                events = host.apply(op)
            except MalformedOp as exc:
                raise UserError(str(exc))
            for ev in events:
                self.out("  " + json.dumps(ev))
        elif line in ("a", "arm"):
            spin = host.arm()
            self.out(f"  spin {spin.number}: armed, come in spinner")
        elif line in ("n", "nospin"):
            if host.spin is None or host.spin.outcome is not None:
                raise UserError("no spin in progress to call 'no spin' on")
            host.spin.adj.call_no_spin("boxer", "7.1.1", "boxer called no spin at the terminal")
        elif line in CALLS:
            if host.spin is None or host.spin.outcome is None:
                raise UserError("nothing to call: no decided spin")
            host.boxer_call(CALLS[line], "boxer's call at the terminal")
            self._settle()
        elif line in ("s", "status"):
            st = host.link.stats() if hasattr(host.link, "stats") else {}
            self.out(f"  phase {host.phase} light {host.light} link {'up' if host.link.link_up else 'LOST'} "
                     f"camera {'stalled' if host.camera_fault else 'ok'} link-stats {st}")
            self.out("  table " + json.dumps(host.engine.state()))
        elif line:
            raise UserError(f"unknown command {line!r}: a, n, h, t, o, x, s, q or a JSON op")

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
