"""The spec's own proof: a ring-link client written from firmware/LINK.md alone talks to the simulated board.

Nothing here imports ringlink or ringmsg: framing, keys, HELLO, liveness and delivery are
implemented from LINK.md's sections 3-9, the message codes are read from LINK.md's
generated tables (section 12), and the worked examples (section 13) are reproduced byte for
byte. The board is the real firmware under the MicroPython unix port (the simulated board).
"""
import hashlib
import hmac
import os
import re
import select
import struct
import time
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = (ROOT / "firmware" / "LINK.md").read_text()


# ---- what LINK.md says, read from its text ------------------------------------------------
def spec_codes(prefix):
    """{constant: value} from a generated table row: | 16 | `EV_RESULT` | result | ..."""
    return {m.group(2): int(m.group(1), 0) for m in
            re.finditer(r"^\| (0x[0-9a-f]+|\d+) \| `(%s\w+)` \|" % prefix, SPEC, re.M)}


EV = spec_codes("EV_")
CMD = spec_codes("CMD_")
R = spec_codes("R_")
LIGHT = spec_codes("LIGHT_")
VERSION = tuple(int(x) for x in re.match(r"# Ring link protocol, version (\d+)\.(\d+)",
                                         SPEC).groups())


def spec_examples():
    """{label: bytes} of section 13."""
    sec = SPEC.split("## 13. Worked examples", 1)[1].split("## 14.", 1)[0]
    return {m.group(1).strip(): bytes.fromhex(m.group(3).replace("\n", " "))
            for m in re.finditer(r"^([^\n]+?) \((\d+) bytes\):\n```\n(.*?)\n```", sec, re.M | re.S)}


# ---- section 3: framing -------------------------------------------------------------------
def cobs_enc(data):
    out, block = bytearray(), bytearray()
    for b in data:
        if b == 0:
            out += bytes([len(block) + 1]) + block
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out += b"\xff" + block
                block = bytearray()
    out += bytes([len(block) + 1]) + block
    return bytes(out)


def cobs_dec(data):
    out, i = bytearray(), 0
    while i < len(data):
        c = data[i]
        if c == 0 or i + c > len(data):
            return None
        out += data[i + 1:i + c]
        i += c
        if c < 255 and i < len(data):
            out.append(0)
    return bytes(out)


def wire(frame):
    return b"\x00" + cobs_enc(frame) + b"\x00"


# ---- sections 4, 5: frames and keys -------------------------------------------------------
def mac(key, msg):
    return hmac.new(key, msg, hashlib.sha256).digest()


def seal(key, mtype, flags, seq, ack, payload):
    body = struct.pack("<BBII", mtype, flags, seq, ack) + payload
    body += mac(key, body)[:16]
    return body + struct.pack("<I", zlib.crc32(body))


def opened(key, frame):
    """Tag check (constant time): -> (mtype, flags, seq, ack, payload) or None."""
    n = len(frame) - 20
    if not hmac.compare_digest(mac(key, frame[:n])[:16], frame[n:n + 16]):
        return None
    mtype, flags, seq, ack = struct.unpack_from("<BBII", frame)
    return mtype, flags, seq, ack, frame[10:n]


def lp(s):
    b = s.encode()
    return bytes([len(b)]) + b


class SpecClient:
    """A host end from LINK.md: handshake, liveness, in-order delivery, commands."""

    HELLO, ACK, EVENT, CMDT = 0x01, 0x02, 0x10, 0x11

    def __init__(self, key, fd):
        self.k = key
        self.fd = fd
        self.hello_h2d = mac(key, b"ring-link hello h2d")
        self.hello_d2h = mac(key, b"ring-link hello d2h")
        self.stream = struct.unpack("<I", os.urandom(4))[0]
        self.buf = bytearray()
        self.up = False
        self.info = None
        self.events = []            # (boot_id, event_id, code, t_us, a, b, text)
        self.rx_next = None         # the board's next event seq
        self.board_stream = None
        self.tx_next = 1            # our command seqs
        self.unacked = {}           # seq -> payload
        self.sent_at = 0.0
        self.alarms = 0
        self.board_counts = None    # (alarms, key_errors) the board sends in its ACKs
        self.handshakes = 0
        self.new_session()

    def ms(self):
        return time.monotonic() * 1000

    def new_session(self):
        self.up = False
        self.nh = None
        self.hello_at = -1e9
        self.k_h2d = self.k_d2h = None
        self.my_ch, self.ch_time = 0, {}
        self.peer_ch = 0
        self.answer = False
        self.last_ack_tx = -1e9
        self.alive_at = None

    # ---- line
    def write(self, frame):
        os.write(self.fd, wire(frame))

    def read(self):
        while select.select([self.fd], [], [], 0)[0]:
            try:
                data = os.read(self.fd, 4096)
            except BlockingIOError:
                break
            self.buf += data
        while b"\x00" in self.buf:
            piece, _, rest = bytes(self.buf).partition(b"\x00")
            self.buf = bytearray(rest)
            if not piece or len(piece) > 129:
                continue
            fr = cobs_dec(piece)
            if fr is None or not 30 <= len(fr) <= 128:
                continue
            if zlib.crc32(fr[:-4]) != struct.unpack("<I", fr[-4:])[0]:
                continue
            self.frame(fr)

    # ---- receive
    def frame(self, fr):
        if fr[0] == self.HELLO:
            f = opened(self.hello_d2h, fr)
            if f is None:
                self.alarms += self.up
                return
            self.on_hello(*f)
            return
        f = opened(self.k_d2h, fr) if self.k_d2h else None
        if f is None:
            return                  # before the session, or an older one's leftovers
        mtype, flags, seq, ack, payload = f
        for s in [s for s in self.unacked if s < ack]:
            del self.unacked[s]
        if mtype == self.ACK:
            ch, echo, alarms, key_errors = struct.unpack_from("<IIII", payload)
            if ch >= self.peer_ch:
                self.board_counts = (alarms, key_errors)
            if ch > self.peer_ch:
                self.peer_ch = ch
                self.answer = True
            if 1 <= echo <= self.my_ch and self.my_ch - echo < 16:
                t = self.ch_time[echo]
                self.alive_at = t if self.alive_at is None else max(self.alive_at, t)
        elif mtype >= 0x10:
            if seq == self.rx_next:
                self.rx_next += 1
                if mtype == self.EVENT:
                    head = struct.unpack_from("<IIBqii", payload)
                    self.events.append(head + (payload[25:].decode(),))
            self.answer = True          # ack at once (in order, duplicate or gap)

    def on_hello(self, mtype, flags, seq, ack, p):
        major = p[32]
        if flags & 1:               # ADVERT: no session on the board
            if self.up:
                self.new_session()
            return
        if self.up or self.nh is None or p[:16] != self.nh or major != VERSION[0]:
            return                  # a reply to an older HELLO (or another major)
        nd = p[16:32]
        i = 43
        fields = []
        for _ in range(3):
            n = p[i]
            fields.append(p[i + 1:i + 1 + n].decode())
            i += 1 + n
        self.info = {"proto": (major, p[33]), "reset": p[34], "image": p[35:43].hex(),
                     "fw": fields[0], "device_id": fields[1], "interp": fields[2],
                     "boot_id": seq}
        self.k_h2d = mac(self.k, b"ring-link h2d" + self.nh + nd)
        self.k_d2h = mac(self.k, b"ring-link d2h" + self.nh + nd)
        if seq != self.board_stream:        # a new board stream (boot): start at tx_base
            self.board_stream = seq
            self.rx_next = ack
        self.alive_at = self.hello_at       # the reply echoes the Nh we sent then
        self.up = True
        self.handshakes += 1
        self.nh = None
        self.answer = True                  # our first sealed frame confirms the session
        self.sent_at = 0.0                  # resend everything unacknowledged, oldest first

    # ---- send
    def tick(self):
        now = self.ms()
        self.read()
        if self.up and now - self.alive_at > 1000:
            self.new_session()              # link lost: handshake again
        if not self.up:
            if now - self.hello_at >= 250:
                self.nh = os.urandom(16)
                self.hello_at = now
                base = min(self.unacked) if self.unacked else self.tx_next
                self.write(seal(self.hello_h2d, self.HELLO, 0, self.stream, base,
                                self.nh + bytes(VERSION) + lp("spec client")))
            return
        if self.answer or now - self.last_ack_tx >= 200:
            if self.my_ch == 0 or now - self.ch_time[self.my_ch] >= 100:
                self.my_ch += 1
                self.ch_time[self.my_ch] = now
            self.write(seal(self.k_h2d, self.ACK, 0, self.tx_next, self.rx_next,
                            struct.pack("<IIII", self.my_ch, self.peer_ch, self.alarms, 0)))
            self.answer = False
            self.last_ack_tx = now
        if self.unacked and now - self.sent_at > 300:     # (re)send what is unacknowledged
            for s in sorted(self.unacked)[:8]:
                self.write(seal(self.k_h2d, self.CMDT, 0, s, self.rx_next, self.unacked[s]))
            self.sent_at = now

    def command(self, code, cmd_id, text=""):
        payload = struct.pack("<BI", code, cmd_id) + text.encode()
        self.unacked[self.tx_next] = payload
        self.tx_next += 1
        self.sent_at = 0.0                  # send at the next tick

    def run_until(self, pred, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.tick()
            if pred():
                return True
            time.sleep(0.002)
        return pred()

    def result(self, cmd_id):
        for e in self.events:
            if e[2] == EV["EV_RESULT"] and e[4] == cmd_id:
                return e
        return None


# ---- section 13 reproduced ----------------------------------------------------------------
def test_spec_tables_were_read():
    assert VERSION[0] >= 2
    for name in ("EV_RESULT", "EV_LINK", "EV_LIGHT", "EV_HOST", "EV_BOOT"):
        assert name in EV
    for name in ("CMD_STATUS", "CMD_LIGHT", "CMD_CONFIG_GET"):
        assert name in CMD
    assert R["R_OK"] == 0 and "R_INVALID" in R and "R_UNKNOWN" in R
    assert LIGHT["LIGHT_HEADS"] == 5


def test_worked_examples_from_the_text():
    ex = spec_examples()
    k = bytes(range(32))
    nh, nd = bytes(range(0x10, 0x20)), bytes(range(0x20, 0x30))

    def get(prefix):
        (v,) = [b for label, b in ex.items() if label.startswith(prefix)]
        return v
    kh = mac(k, b"ring-link hello h2d")
    assert get("Khello_h2d") == kh
    assert get("Khello_d2h") == mac(k, b"ring-link hello d2h")
    k_h2d = mac(k, b"ring-link h2d" + nh + nd)
    k_d2h = mac(k, b"ring-link d2h" + nh + nd)
    assert get("K_h2d") == k_h2d and get("K_d2h") == k_d2h
    assert get("COBS") == cobs_enc(bytes.fromhex("11220033000044"))
    assert cobs_dec(get("COBS")) == bytes.fromhex("11220033000044")
    hello_p = nh + bytes([2, 0]) + lp("ring run")
    assert get("Host HELLO payload") == hello_p
    hello = seal(kh, 0x01, 0, 0x12345678, 1, hello_p)
    assert get("Host HELLO frame") == hello
    wires = [b for label, b in ex.items() if label.startswith("… on the wire")]
    assert wires[0] == wire(hello)
    assert get("Device ACK") == seal(k_d2h, 0x02, 0, 1, 1, struct.pack("<IIII", 5, 3, 0, 2))
    cmd_p = struct.pack("<BI", CMD["CMD_LIGHT"], 7) + str(LIGHT["LIGHT_HEADS"]).encode()
    assert get("CMD payload") == cmd_p
    assert get("CMD frame") == seal(k_h2d, 0x11, 0, 1, 1, cmd_p)
    assert ex["… on the wire"] == wire(seal(k_h2d, 0x11, 0, 1, 1, cmd_p))
    ev_p = struct.pack("<IIBqii", 0xB007, 42, EV["EV_RESULT"], 1234567, 7, R["R_OK"])
    assert get("EVENT payload") == ev_p
    assert get("EVENT frame") == seal(k_d2h, 0x10, 0, 3, 2, ev_p)
    assert zlib.crc32(b"123456789") == 0xCBF43926           # the check value LINK.md gives


# ---- against the simulated board ----------------------------------------------------------
@pytest.fixture
def board(tmp_path):
    from ringctl.sim.simboard import SimBoard     # the board under test, not the client
    key = os.urandom(32)
    b = SimBoard(tmp_path / "flash", key).start()
    fd = os.open(b.tty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        yield key, fd, b
    finally:
        os.close(fd)
        b.stop()


def test_spec_client_session_commands_and_events(board):
    key, fd, sim = board
    c = SpecClient(key, fd)
    assert c.run_until(lambda: c.up, 15), "no session with the board"
    assert c.info["proto"][0] == VERSION[0] and c.info["device_id"] == sim.device_id
    assert c.info["interp"].startswith("micropython")
    # the board's boot events arrive, in order, exactly once
    assert c.run_until(lambda: any(e[2] == EV["EV_SELFTEST"] for e in c.events), 15)
    ids = [e[1] for e in c.events]
    assert ids == sorted(set(ids)) and EV["EV_BOOT"] in [e[2] for e in c.events]
    assert any(e[2] == EV["EV_HOST"] and e[4] == 1 for e in c.events), "the board saw us alive"

    # commands: status, a verdict light, a bad light, an unknown command, config
    c.command(CMD["CMD_STATUS"], 101)
    c.command(CMD["CMD_LIGHT"], 102, str(LIGHT["LIGHT_HEADS"]))
    c.command(CMD["CMD_LIGHT"], 103, "heads")
    c.command(200, 104)
    c.command(CMD["CMD_CONFIG_GET"], 105, "")
    assert c.run_until(lambda: all(c.result(i) for i in range(101, 106)), 10), c.events[-5:]
    assert c.result(101)[5] == R["R_OK"]
    codes = [e[2] for e in c.events]
    for name in ("EV_PHASE", "EV_HEAP", "EV_MAT", "EV_STATS", "EV_LINK"):
        assert EV[name] in codes, name
    link = [e for e in c.events if e[2] == EV["EV_LINK"]][-1]
    assert link[4] == 0 and link[5] == 0 and "crc=" in link[6], link    # no alarms, no key errors
    assert c.result(102)[5] == R["R_OK"]
    assert any(e[2] == EV["EV_LIGHT"] and e[4] == LIGHT["LIGHT_HEADS"] for e in c.events)
    assert sim.wait_light("heads", 5)
    assert c.result(103)[5] == R["R_INVALID"] and "light" in c.result(103)[6]
    assert c.result(104)[5] == R["R_UNKNOWN"]
    assert c.result(105)[5] == R["R_OK"]
    assert any(e[2] == EV["EV_CONFIG"] and "=" in e[6] for e in c.events)
    assert not c.unacked, "the board acknowledged every command"

    # liveness both ways: 3 s of heartbeats, and the board never thought us lost
    t0 = len(c.events)
    assert not c.run_until(lambda: not c.up, 3.0), "the board went silent"
    assert not [e for e in c.events[t0:] if e[2] == EV["EV_HOST"] and e[4] == 0]
    assert c.alarms == 0 and c.handshakes == 1 and c.board_counts == (0, 0)

    # silent for 2.5 s: the board must count us lost (its EV_HOST a=0 arrives after we
    # come back), then a new handshake resumes the same event stream exactly once
    time.sleep(2.5)
    while select.select([fd], [], [], 0)[0]:      # what the board said meanwhile: lost
        if not os.read(fd, 65536):
            break
    c.buf = bytearray()
    c.new_session()
    assert c.run_until(lambda: c.up and any(e[2] == EV["EV_HOST"] and e[4] == 0
                                            for e in c.events[t0:]), 10)
    assert c.handshakes == 2
    ids = [e[1] for e in c.events]
    assert ids == sorted(set(ids)), "exactly once, in order, across the reconnect"
