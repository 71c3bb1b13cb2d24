"""LinkClient: the host end of the ring link on pyserial, in a background thread that survives replug.

    client = LinkClient("auto" or "/dev/ttyACM0", key, on_event=None)
    client.wait_up(timeout_s)        -> True when the session is up (raises LinkVersionError)
    for ev in client.events(timeout_s): record(ev); client.ack(ev)   # ack AFTER durable record
    cmd_id = client.send_cmd(ringmsg.CMD_ARM, "")
    client.wait_cmds_acked(timeout_s)   -> True when the board acked every command sent
    client.link_up, client.peer_info, client.at_repl, client.stats(), client.close()
    client.alarms                    -> security alarms so far (== stats()["alarms"])
    client.key_mismatch              -> True: the board's HELLOs fail under our key and no
                                        session was ever up (a configuration error, said once)
    client.board_alarms              -> the board's own security alarms (it sends the count in
                                        every ACK; None before its first) and board_key_errors
    client.board_link                -> the board's latest EV_LINK (alarms, key_errors, text) or None
    LinkClient(..., on_alarm=f): f(new, total) runs in the link thread when alarms rise.
    LinkClient(..., on_event=f): f(ev) runs in the link thread, in order, instead of the
    queue; if f raises, the same event is offered again every 0.5 s (it stays unacked).

Security alarms: a frame with a good CRC and a bad authentication tag inside a session
(forged, tampered, reflected, or replayed from an old session). HELLOs that fail before any
session are a wrong key, not an attack: counted as key_errors and reported once as
KEY_MISMATCH_MSG. The board counts its own and sends the counts in every ACK
(board_alarms, stats()["board_alarms"]) and, for the audit log, in EV_LINK events. The count only grows for the LinkClient's
life (reconnects and board reboots included) and a host restart does not cause any (the
board sends nothing under the previous host's keys once it has answered the new HELLO),
so a rise is always worth recording: the runner appends each rise to the audit log.

Exactly-once toward the app: the link keeps sequence numbers across reconnects of one
LinkClient, and events are also deduplicated on (boot_id, event_id) (ringmsg), so an event
the board resends after a reconnect is handed over once. Across host restarts the app's
durable record must dedup on (boot_id, event_id) itself: it acks only what it has stored.
"""
import collections
import logging
import os
import queue
import select
import termios
import threading
import time

from ..errors import UserError
from ..event import Event
from ..fw import ringlink, ringmsg
from .ports import resolve_port

log = logging.getLogger("ringctl.link")

LINE_ERRORS = (OSError, termios.error)   # serial.SerialException is an OSError subclass
DEDUP_KEEP = 100000


class LinkError(UserError):
    """The link cannot do what was asked (no board, queue full, closed)."""

    def __init__(self, message, code=1):
        super().__init__(message, code)


WRONG_KEY_HELLOS = 3       # board HELLOs (ADVERTs every 0.5 s) failing our key: a wrong key
KEY_MISMATCH_MSG = ("the board does not accept this key: provision it (`ring device provision`) "
                    "or pass the right --key")


class LinkVersionError(LinkError):
    """The board speaks an incompatible protocol major version: refused."""


def now_ms():
    return int(time.monotonic() * 1000)


class LinkClient:
    """Background-thread link to one board. Thread-safe; callbacks run in the link thread."""

    def __init__(self, port, key, on_event=None, serial_number=None, name="ringctl",
                 on_state=None, reopen_ms=250, ring_slots=64, window=8, start=True,
                 capture=None, on_alarm=None):
        self.port_spec = port
        self.serial_number = serial_number
        self.on_event = on_event
        self.on_state = on_state
        self.on_alarm = on_alarm      # f(new, total), link thread, when the alarm count rises
        self.reopen_ms = reopen_ms
        self.capture = capture        # binary file: every byte read and written (ring link dump)
        self._cap_rx = bytearray()
        self.session = ringlink.Session(key, ringlink.ROLE_HOST, {"name": name},
                                        ring_slots=ring_slots, window=window)
        self._lock = threading.RLock()
        self._acked = threading.Condition(self._lock)
        self._events = queue.Queue()
        self._seen = collections.OrderedDict()
        self._done = set()            # seqs the app acked, waiting for earlier ones
        self._ser = None
        self.port = None
        self._stop = False
        self._cmd_id = (int(time.time() * 1000) & 0x3FFFFFFF) or 1
        self._wake_r, self._wake_w = os.pipe()
        self._released = False      # line and wake pipe closed (once, by close() or the thread)
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._was_up = False
        self._alarms_logged = 0
        self._key_warned = False
        self.board_link = None        # latest EV_LINK: {"alarms", "key_errors", "text", "at"}
        self.opens = 0
        self.line_errors = 0
        self.app_duplicates = 0
        self.unknown = 0
        self.bad_events = 0
        self.thread_errors = 0
        self.callback_errors = 0
        self._cb_pending = collections.deque()
        self._cb_retry_at = 0
        self.last_error = None
        # the port in the name: a thread dump (a hung shutdown) or a test names the line held
        self._thread = threading.Thread(target=self._run, name="ring-link %s" % port, daemon=True)
        if start:
            self._thread.start()

    # ---- app API -----------------------------------------------------------------
    def start(self):
        if not self._thread.is_alive():
            self._thread.start()

    def close(self):
        self._stop = True
        self._wake()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(5)
        if not self._thread.is_alive():
            self._release()
        # else the link thread is still busy (a loaded machine): it releases the line and its
        # pipe itself on its way out. Closing them under it could close or read a descriptor
        # number the process has since reused for something else.

    def _release(self):
        with self._lock:
            if self._released:
                return
            self._released = True
        self._close_line()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def link_up(self):
        return self.session.connected and self._ser is not None

    @property
    def alarms(self):
        """Security alarms so far (good CRC, bad tag); only grows for this client's life."""
        return self.session.alarms

    @property
    def board_alarms(self):
        return self.session.peer_alarms

    @property
    def board_key_errors(self):
        return self.session.peer_key_errors

    @property
    def key_mismatch(self):
        """The board's frames fail under our key and no session was ever up: wrong key."""
        s = self.session
        return s.key_errors > 0 and s.handshakes == 0

    @property
    def peer_info(self):
        return self.session.peer_info

    @property
    def at_repl(self):
        """The board printed a MicroPython REPL banner/traceback: it is not running the controller."""
        with self._lock:
            return self.session.repl_detected(now_ms())

    def wait_up(self, timeout):
        """Block until the session is up; False on timeout, or as soon as the board's
        HELLOs have failed our key WRONG_KEY_HELLOS times with no session ever up
        (key_mismatch: waiting longer would not help). Raises LinkVersionError."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self._check_refused()
            if self.session.connected:
                return True
            if self.key_mismatch and self.session.key_errors >= WRONG_KEY_HELLOS:
                return False
            time.sleep(0.005)
        self._check_refused()
        return self.session.connected

    def _check_refused(self):
        if self.session.state == ringlink.ST_REFUSED:
            raise LinkVersionError("refused: " + self.session.error)

    def send_cmd(self, code, text=""):
        """Queue a command (ringmsg.CMD_*); delivered exactly once, in order. -> cmd_id."""
        with self._lock:
            cmd_id = self._cmd_id
            self._cmd_id = (self._cmd_id + 1) & 0xFFFFFFFF or 1
            payload = ringmsg.pack_cmd(code, cmd_id, text)
            if len(payload) > ringlink.MAX_PAYLOAD:
                raise LinkError("command text too long (%d bytes, at most %d)"
                                % (len(payload) - ringmsg.CMD_HDR,
                                   ringlink.MAX_PAYLOAD - ringmsg.CMD_HDR), code=2)
            if self.session.send(ringlink.MT_CMD, payload, now_ms()) < 0:
                raise LinkError("command queue full: the board has not acknowledged %d "
                                "commands; check the link (ring link status)"
                                % self.session.unacked)
        self._wake()
        return cmd_id

    @property
    def cmds_unacked(self):
        return self.session.unacked

    def wait_cmds_acked(self, timeout):
        """Block until the board has acknowledged every command sent; False on timeout."""
        with self._acked:
            return self._acked.wait_for(lambda: self.session.unacked == 0, timeout)

    def events(self, timeout=None):
        """Iterate over received events; stops after `timeout` s without one (None: forever)."""
        while not self._stop:
            try:
                yield self._events.get(timeout=timeout)
            except queue.Empty:
                return

    def get_event(self, timeout=None):
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def ack(self, ev):
        """The app has durably recorded this event (Event or its seq): let the board forget it."""
        seq = ev.seq if isinstance(ev, Event) else int(ev)
        with self._lock:
            self._ack_seq(seq)
        self._wake()

    def _ack_seq(self, seq):
        s = self.session
        base = s.rx_acked
        if seq < base:
            return
        self._done.add(seq)
        while base in self._done:         # acks may come out of order; the wire ack is cumulative
            self._done.discard(base)
            base += 1
        if base > s.rx_acked:
            s.ack(base - 1)
        if len(self._done) > 4 * 4096:
            self._done = {x for x in self._done if x >= base}

    def stats(self):
        with self._lock:
            st = self.session.stats()
            st.update({"port": self.port, "opens": self.opens, "line_errors": self.line_errors,
                       "app_duplicates": self.app_duplicates, "unknown": self.unknown,
                       "bad_events": self.bad_events, "thread_errors": self.thread_errors,
                       "callback_errors": self.callback_errors,
                       "link_up": self.session.connected,
                       "peer_silent_ms": (self.session.peer_silent_ms(now_ms())
                                          if self.session.connected else None),
                       "key_mismatch": self.key_mismatch,
                       # the board's own counts, in every ACK it sends (fresh, authentic)
                       "board_alarms": self.session.peer_alarms,
                       "board_key_errors": self.session.peer_key_errors,
                       "at_repl": self.session.repl_detected(now_ms()),
                       "queued_events": self._events.qsize()})
            return st

    # ---- link thread -------------------------------------------------------------
    def _wake(self):
        if self._released:
            return
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass

    def _open_line(self):
        import serial
        path = resolve_port(self.port_spec, self.serial_number)
        # a pyserial URL (socket://host:port, rfc2217://host:port: a board behind a serial
        # server) or a device path; serial_for_url handles both, serial.Serial() only paths
        ser = serial.serial_for_url(path, do_not_open=True)
        ser.baudrate = 115200
        ser.timeout = 0
        ser.write_timeout = 1.0
        if "://" not in path:
            ser.exclusive = True    # a device path: no second program on the same line
        ser.dsrdtr = False
        ser.rtscts = False
        ser.open()
        try:
            ser.dtr = True      # a Pico drops output when the host does not assert DTR
        except LINE_ERRORS:
            pass
        self._ser = ser
        self.port = path
        self.opens += 1
        self.last_error = None
        with self._lock:
            self.session.start(now_ms())

    def _close_line(self):
        ser, self._ser = self._ser, None
        if ser is not None:
            try:
                ser.close()
            except Exception:     # closing a vanished device must never kill the thread
                pass

    def _run(self):
        try:
            self._loop()
        finally:
            if self._stop:
                self._release()

    def _loop(self):
        while not self._stop:
            if self._ser is None:
                try:
                    self._open_line()
                except (UserError, *LINE_ERRORS, ValueError) as exc:
                    self.last_error = str(exc)
                    self._sleep(self.reopen_ms / 1000)
                    continue
            try:
                self._service()
            except LINE_ERRORS as exc:     # unplugged: SerialException, EIO, termios.error
                self.line_errors += 1
                self.last_error = str(exc)
                log.warning("ring link: line %s lost (%s); reopening", self.port, exc)
                self._close_line()
                with self._lock:
                    self.session.start(now_ms())   # session over; re-handshake on reopen
                self._note_state()
                self._sleep(self.reopen_ms / 1000)
            except Exception:                  # a bug must not silently stop the link thread
                self.thread_errors += 1
                log.exception("ring link: unexpected error; reopening the line")
                self._close_line()
                with self._lock:
                    self.session.start(now_ms())
                self._sleep(self.reopen_ms / 1000)

    def _sleep(self, s):
        try:
            select.select([self._wake_r], [], [], s)
            os.read(self._wake_r, 4096)
        except (OSError, ValueError):
            time.sleep(s)

    def _service(self):
        ser = self._ser
        fd = ser.fileno()
        r, _, _ = select.select([fd, self._wake_r], [], [], 0.01)
        if self._wake_r in r:
            try:
                os.read(self._wake_r, 4096)
            except OSError:
                pass
        data = ser.read(4096) if fd in r else b""
        if data and self.capture is not None:
            # write whole received frames only, so frames we send never split them
            self._cap_rx += data
            k = self._cap_rx.rfind(b"\x00")
            if k >= 0:
                self.capture.write(self._cap_rx[:k + 1])
                del self._cap_rx[:k + 1]
        with self._lock:
            now = now_ms()
            if data:
                self.session.feed(data, now)
                self._deliver()
                if self.session.unacked == 0:
                    self._acked.notify_all()
            if self._cb_pending:
                self._flush_callbacks(now)
            out = []
            while True:
                b = self.session.poll(now)
                if b is None:
                    break
                out.append(b)
        if out:
            out = b"".join(out)
            ser.write(out)
            if self.capture is not None:
                self.capture.write(out)
        self._note_state()

    def _note_state(self):
        s = self.session
        if not self._key_warned and self.key_mismatch:
            self._key_warned = True
            log.warning("ring link: %s", KEY_MISMATCH_MSG)
        if s.alarms != self._alarms_logged:
            new, total = s.alarms - self._alarms_logged, s.alarms
            log.warning("ring link SECURITY ALARM: %d frame(s) with a good CRC and a bad "
                        "tag (forged, replayed or reflected); total %d", new, total)
            self._alarms_logged = total
            if self.on_alarm:
                try:
                    self.on_alarm(new, total)
                except Exception:
                    log.exception("ring link: on_alarm callback failed")
        up = s.connected and self._ser is not None
        if up != self._was_up:
            self._was_up = up
            log.info("ring link %s (%s)", "up" if up else "down", self.port)
            if self.on_state:
                try:
                    self.on_state(up)
                except Exception:
                    log.exception("ring link: on_state callback failed")

    def _flush_callbacks(self, now):
        """Hand events to on_event in order; one that raises is retried (unacked) later."""
        while self._cb_pending and now >= self._cb_retry_at:
            ev = self._cb_pending[0]
            try:
                self.on_event(ev)
            except Exception:
                self.callback_errors += 1
                self._cb_retry_at = now + 500
                log.exception("ring link: on_event failed for event %08x/%d; retrying in "
                              "0.5 s", ev.boot_id, ev.event_id)
                return
            self._cb_pending.popleft()

    def _deliver(self):
        s = self.session
        while True:
            m = s.recv()
            if m is None:
                return
            mtype, payload, seq = m
            if mtype != ringlink.MT_EVENT:
                self.unknown += 1
                self._ack_seq(seq)
                continue
            try:
                ev = Event.decode(payload, seq)          # decoded once, here
            except (ValueError, UnicodeError):
                self.bad_events += 1
                log.warning("ring link: undecodable event payload (%d bytes)", len(payload))
                self._ack_seq(seq)
                continue
            k = ev.key
            if k in self._seen:
                self.app_duplicates += 1       # resent after a reconnect: recorded already
                self._ack_seq(seq)
                continue
            self._seen[k] = None
            if len(self._seen) > DEDUP_KEEP:
                self._seen.popitem(last=False)
            if ev.code == ringmsg.EV_LINK:    # the board's own counters (still the app's event)
                self.board_link = {"alarms": ev.a, "key_errors": ev.b, "text": ev.text,
                                   "boot_id": ev.boot_id, "at": time.time()}
            if self.on_event is not None:
                self._cb_pending.append(ev)
            else:
                self._events.put(ev)
