"""The doctor's and deploy's view of a board link: HELLO facts, send a command, take the next event.

Wraps helper A's ringctl.link.LinkClient (authenticated session over pyserial or the
simulated board's pty). The key comes from $RING_HOME/keys/<device-id>.key; the device id
is the USB serial number, or for the simulated board the one it stores in its flash dir.
"""
import json
import time
from pathlib import Path

from ..errors import UserError
from ..fw import ringlink, ringmsg
from ..link.alarms import BoardAlarms
from ..record.log import open_audit_log
from ..record.records import record_event
from ..link import boards
from ..link.client import LinkClient
from ..link.ports import device_id_for_port
from . import keys

# Events that belong to play and must reach the audit log: the doctor never acks them away.
PLAY_EVENTS = {ringmsg.EV_BEAM, ringmsg.EV_WALL, ringmsg.EV_IMPACT, ringmsg.EV_REST,
               ringmsg.EV_BARRED, ringmsg.EV_BUTTON, ringmsg.EV_OVERFLOW}
BACKLOG_S = 0.3


class BoardLink:
    """Adapter: hello (dict), command(code, text) -> cmd id, next_event(timeout), close().

    Every event it acknowledges is first appended to the audit log (`log`, an AuditLog),
    exactly as `ring run` does: what the board said during a doctor run or a deploy stays on
    record, and an acknowledged event is never lost."""

    host_protocol = "%d.%d" % (ringlink.PROTO_MAJOR, ringlink.PROTO_MINOR)

    def __init__(self, client, log=None, by="ring doctor"):
        self.client = client
        self.log = log
        self.by = by
        self.recorded = 0
        self.board_alarms = BoardAlarms()
        info = client.peer_info or {}
        self.hello = {
            "device_id": info.get("device_id", ""),
            "protocol": "%s.%s" % (info.get("proto_major", "?"), info.get("proto_minor", "?")),
            "firmware": info.get("fw", ""),
            "image_hash": info.get("image", ""),
            "reset_cause": info.get("reset"),
            "interpreter": info.get("interp", ""),
            "boot_id": "?",
        }
        self.backlog = []

    def _ack(self, ev):
        if self.log is not None:
            record_event(self.log, ev, by=self.by)                 # durable first
            self.board_alarms.note(self.log, ev, by="board (%s)" % self.by)
            self.recorded += 1
        self.client.ack(ev)                                       # then acknowledged

    def take_backlog(self, wait_s=BACKLOG_S):
        """Events the board had queued before we asked anything. Play events among them
        stay unacknowledged (the board keeps them for `ring run` to adjudicate and record)."""
        end = time.monotonic() + wait_s
        while time.monotonic() < end:
            ev = self.client.get_event(max(0.0, end - time.monotonic()))
            if ev is None:
                break
            self.backlog.append(ev)
        if self.backlog:
            self.hello["boot_id"] = "%08x" % self.backlog[-1].boot_id
        play = [ev for ev in self.backlog if ev.code in PLAY_EVENTS]
        if not play:
            for ev in self.backlog:
                self._ack(ev)
        return play

    def record_backlog(self):
        """Record every held event in the audit log, then acknowledge it (the doctor goes on)."""
        for ev in self.backlog:
            self._ack(ev)

    def command(self, code, text=""):
        return self.client.send_cmd(code, text)

    def next_event(self, timeout):
        ev = self.client.get_event(timeout)
        if ev is None:
            return None
        self._ack(ev)
        if self.hello["boot_id"] == "?":
            self.hello["boot_id"] = "%08x" % ev.boot_id
        return ev

    def close(self):
        self.client.close()
        if self.log is not None:
            self.log.close()
            self.log = None


def sim_device_id(flash_dir):
    """Device id the simulated board uses for this flash dir (SIM...), or None."""
    d = Path(flash_dir)
    for name in ("device_id", "device_id.txt"):
        if (d / name).is_file():
            return (d / name).read_text().strip()
    cfg = d / "config.json"
    if cfg.is_file():
        try:
            return json.loads(cfg.read_text()).get("device_id")
        except ValueError:
            return None
    return None


def device_id_for(port):
    """Device id for a port: USB serial number, or a simulated board's id."""
    return device_id_for_port(port)


def open_link(port, device_id=None, timeout=5.0, usb_serial=None, log=None, by="ring doctor",
              key_file=None):
    """Authenticated link to the board on `port` -> BoardLink. UserError says what to check.
    key_file: the ring config's key (else $RING_HOME/keys/<device-id>.key)."""
    device_id = device_id or device_id_for(port)
    if not device_id and not key_file:
        if log is not None:
            log.close()
        raise UserError(f"cannot tell which board is on {port} (no USB serial number); "
                        "pass --device-id", code=1)
    try:
        from ..link.keys import load_key_file
        key = load_key_file(key_file) if key_file else keys.load_key(device_id)
    except UserError:
        if log is not None:
            log.close()
        raise
    # A USB board may come back under another ttyACM number after a reset: follow its serial.
    usb = boards.serial_for_port(port) == device_id or usb_serial == device_id
    client = LinkClient("auto" if usb else port, key, name="ring-doctor",
                        serial_number=device_id if usb else None)
    t0 = time.monotonic()
    try:
        up = client.wait_up(timeout)
    except UserError:
        client.close()
        if log is not None:
            log.close()
        raise
    if not up:
        from ..link.client import KEY_MISMATCH_MSG
        why = ("the board is at the MicroPython REPL, not running the controller: "
               "`ring device deploy`" if client.at_repl else KEY_MISMATCH_MSG
               if client.key_mismatch else
               "no authenticated handshake: wrong key (`ring device provision`), firmware "
               "not running, or another program holds the port")
        last = client.last_error
        client.close()
        if log is not None:
            log.close()
        raise UserError(f"link to {port} not up within {timeout:.0f} s: {why}"
                        + (f" ({last})" if last else ""), code=1)
    link = BoardLink(client, log, by)
    link.hello["handshake_ms"] = int((time.monotonic() - t0) * 1000)
    return link


def hello_once(port, device_id=None, timeout=10.0, usb_serial=None):
    """After a deploy's reset: the board's HELLO facts, or {} with the reason in 'error'."""
    try:
        link = open_link(port, device_id, timeout, usb_serial=usb_serial,
                         log=open_audit_log(), by="ring device deploy")
    except UserError as exc:
        return {"error": str(exc)}
    try:
        link.take_backlog()       # boot events of the new image: recorded, then acknowledged
        return dict(link.hello)
    finally:
        link.close()


def _ask_reset(link, mode, timeout):
    """Send CMD_RESET `mode` and wait for its EV_RESULT: -> None when accepted, else why not."""
    cmd = link.command(ringmsg.CMD_RESET, mode)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ev = link.next_event(end - time.monotonic())
        if ev is not None and ev.code == ringmsg.EV_RESULT and ev.a == cmd:
            return None if ev.b == ringmsg.R_OK else "controller refused the reset: " + ev.text
    return "no answer to the reset command"


def reset_board(port, device_id, timeout=5.0):
    """Ask the running controller to reset (authenticated CMD_RESET): a simulated board then
    boots whatever its flash holds. -> None when the board accepted, else why not."""
    try:
        link = open_link(port, device_id, timeout, log=open_audit_log(), by="ring device deploy")
    except UserError as exc:
        return str(exc)
    try:
        link.take_backlog()
        return _ask_reset(link, "", timeout)
    finally:
        link.close()


def escape_to_repl(port, device_id, timeout=5.0):
    """Ask the running controller to reboot into the REPL (authenticated CMD_RESET "repl",
    firmware/main.py's technician escape) so mpremote can copy files. -> None when done,
    else why not (the caller then tries mpremote directly)."""
    problem = keys.key_problem(device_id)
    if problem:
        return problem
    try:
        log = open_audit_log()
        link = open_link(port, device_id, timeout, log=log, by="ring device")
    except UserError as exc:
        return str(exc)
    try:
        play = link.take_backlog()
        if play:
            return ("the board holds %d unrecorded play event(s); run `ring run` to record "
                    "them first" % len(play))
        return _ask_reset(link, "repl", timeout)
    finally:
        link.close()


def wait_for_board(serial, timeout=10.0, gone_first=1.0):
    """After a reset the board re-enumerates: -> its (possibly new) port, or UserError."""
    time.sleep(gone_first)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for b in boards.find_boards():
            if b["serial"] == serial.upper():
                time.sleep(0.5)      # let MicroPython's REPL come up behind the USB port
                return b["port"]
        time.sleep(0.2)
    raise UserError(f"board {serial} did not come back on USB within {timeout:.0f} s after "
                    "the reset; check `ring device list` and the cable", code=1)
