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
  s | status              phase, light, link, camera, table state
  q | quit
  {"op": ...}             a table op in the `ring game replay` format (bets, spinner, chips)
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
        else:
            self._settle()

    def _settle(self):
        for ev in self.host.finish():
            self.out("  " + json.dumps(ev))

    def command(self, line):
        from ..game.adjudicate import AdjudicationError
        try:
            self._command(line)
        except AdjudicationError as exc:
            raise UserError(f"refused ({exc.rule}): {exc.reason}")

    def _command(self, line):
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
        elif line.split(" ", 1)[0] == "lost":
            self.lost_coin(line.split()[1:])
        else:
            words = line.split(" ", 1)
            actor = "boxer"
            if words[0] == "sup":
                actor = "supervisor"
                words = (words[1] if len(words) > 1 else "").split(" ", 1)
            key, reason = words[0], (words[1].strip() if len(words) > 1 else "")
            if key in ("n", "nospin") and (host.spin is not None and host.spin.outcome is None):
                host.spin.adj.call_no_spin(actor, "7.1.1", reason or f"{actor} called no spin")
                self.out(f"  no spin called by the {actor} (7.2; final, 7.6)")
            elif key in CALLS or key in ("n", "nospin"):
                if host.spin is None or host.spin.outcome is None:
                    raise UserError("nothing to call: no decided spin")
                if host.spin.finished:
                    raise UserError(f"spin {host.spin.number} was already announced and settled "
                                    "(6.9); a correction is a supervisor matter outside the ring")
                result = CALLS.get(key, "no-spin")
                host.boxer_call(result, reason or f"{actor}'s call at the terminal", actor=actor)
                self.out(f"  spin {host.spin.number}: {result.upper()} ({actor}'s call, recorded)")
                if not host.spin.finished:
                    self._settle()
            elif key in ("s", "status"):
                self.status()
            elif line:
                raise UserError(f"unknown command {line!r}: a, n, h, t, o, x, sup, lost, s, q "
                                "or a JSON op")

    def status(self):
        host = self.host
        st = host.link.stats() if hasattr(host.link, "stats") else {}
        camera = "none (manual calls)" if host.camera is None else \
            "STALLED" if host.camera_fault else "ok"
        link = "up" if host.link.link_up else "LOST (the board shows link-lost)"
        light = host.light if host.link.link_up else f"{host.light} (last known)"
        self.out(f"  phase {host.phase}  light {light}  link {link}  camera {camera}")
        self.out(f"  link counters: alarms {st.get('alarms', 0)}, retransmits "
                 f"{st.get('retransmits', 0)}, reconnects {st.get('opens', 0)}")
        self.out("  table " + json.dumps(host.engine.state()))

    def lost_coin(self, args):
        """Rule 7.4, step by step, each step recorded in the audit log."""
        from ..game.adjudicate import AdjudicationError
        host = self.host
        spin = host.spin
        if spin is None:
            raise UserError("no spin: the lost-coin procedure belongs to a spin")
        try:
            if args and args[0].isdigit():
                spin.adj.coin_out_of_ring(int(args[0]), actor="boxer")
            elif spin.adj.lost is None:
                raise UserError("7.4: start with 'lost N' (N coins thrown out of the ring)")
            elif args[:1] == ["found"] and len(args) == 2 and args[1].isdigit():
                spin.adj.lost.retrieve(int(args[1]))
            elif args[:1] == ["check"] and args[1:] in (["ok"], ["bad"]):
                spin.adj.lost.check_found(args[1] == "ok")
            elif args[:1] == ["offer"] and len(args) == 2:
                spin.adj.lost.offer(args[1])
            elif args[:1] == ["newset"] and len(args) >= 2:
                spin.adj.lost.bring_new_set(args[1], current_spinner_continues="continue" in args)
            else:
                raise UserError("lost N | lost found K | lost check ok|bad | lost offer new|original"
                                " | lost newset NAME [continue]")
        except AdjudicationError as exc:
            raise UserError(f"{exc.rule}: {exc.reason}")
        step = spin.adj.steps[-1]
        host.log.append("lost-coin", {"spin": spin.number, "step": step})
        todo = spin.adj.lost.missing
        self.out(f"  {step.get('rule', '7.4')} {step.get('what', step.get('reason', ''))} recorded; "
                 + ("still to do: " + "; ".join(todo) if todo else "play may resume"))

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
