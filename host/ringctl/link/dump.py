"""Decode a captured ring-link byte stream (either direction, or both mixed) into readable lines.

With the device key, HELLO frames are authenticated, session keys are rebuilt from the
nonces in the device's HELLO (sent in the clear), and every frame is checked and shown
with its direction and session. Without the key only framing and CRC are checked and
payloads stay "sealed" (not verified, so not shown unless --unverified).
"""
import binascii

from ..event import Event
from ..fw import ringlink as rl, ringmsg


def _hexs(b, n=8):
    return binascii.hexlify(bytes(b[:n])).decode()


def _describe_payload(mtype, payload):
    try:
        if mtype == rl.MT_EVENT:
            return Event.decode(payload).describe()
        if mtype == rl.MT_CMD:
            code, cmd_id, text = ringmsg.unpack_cmd(payload)
            s = "cmd %s id=%d" % (ringmsg.CMD_NAMES.get(code, "cmd%d" % code), cmd_id)
            return s + (" " + repr(text) if text else "")
        if mtype == rl.MT_ACK:
            ch, echo, alarms, key_errors = rl.parse_ack(payload)
            return "challenge=%d echo=%d alarms=%d key_errors=%d" % (ch, echo, alarms, key_errors)
    except (ValueError, UnicodeError) as exc:
        return "undecodable payload (%s): %s" % (exc, _hexs(payload, 32))
    return "payload %d bytes" % len(payload) if payload else ""


def _hello_text(direction, flags, seq, ack, payload):
    try:
        if direction == "h2d":
            d = rl.parse_hello_host(payload)
            return "host HELLO proto %d.%d name=%r stream=%08x tx_base=%d Nh=%s.." % (
                d["proto_major"], d["proto_minor"], d["name"], seq, ack, _hexs(d["nh"], 4))
        d = rl.parse_hello_device(payload)
    except ValueError as exc:         # the parsers' only error (UnicodeError is one)
        return "HELLO (unparsable: %s)" % exc
    kind = "device ADVERT" if flags & rl.FL_ADVERT else "device HELLO"
    s = ("%s proto %d.%d fw=%s image=%s boot=%08x reset=%s device=%s interp=%r tx_base=%d"
         % (kind, d["proto_major"], d["proto_minor"], d["fw"], d["image"], seq,
            ringmsg.RESET_NAMES.get(d["reset"], str(d["reset"])), d["device_id"],
            d["interp"], ack))
    if not flags & rl.FL_ADVERT:
        s += " Nh=%s.. Nd=%s.." % (_hexs(d["nh"], 4), _hexs(d["nd"], 4))
    return s


class Dumper:
    """Feed bytes, get lines. Keeps the session keys it has rebuilt."""

    def __init__(self, key=None, unverified=False):
        self.key = key
        self.unverified = unverified
        self.deframer = rl.Deframer(verbose=True)
        self.hello = rl.hello_keys(key) if key else None
        self.sessions = []        # [(number, h2d, d2h)], newest last
        self.n = 0
        self.counts = {"frames": 0, "crc_errors": 0, "malformed": 0, "oversize": 0,
                       "unauthenticated": 0, "repl": 0}
        self._repl_seen = 0

    def feed(self, data):
        lines = []
        for kind, item in self.deframer.feed(data):
            if kind == "frame":
                self.n += 1
                self.counts["frames"] += 1
                lines.append("#%d %s" % (self.n, self.frame_line(item)))
            elif kind == "crc":
                self.counts["crc_errors"] += 1
                lines.append("-- bad CRC, %d-byte frame dropped" % len(item))
            else:
                self.counts[kind] += 1
                lines.append("-- %d bytes of garbage (%s)" % (len(item), kind))
        if self.deframer.repl_seen != self._repl_seen:
            self._repl_seen = self.deframer.repl_seen
            self.counts["repl"] += 1
            lines.append("-- REPL text between frames: the board is at the MicroPython "
                         "REPL, not running the controller")
        return lines

    def frame_line(self, fr):
        mtype, flags, seq, ack, payload = rl.parse_header(fr)
        name = rl.MT_NAMES.get(mtype, "type%d" % mtype)
        head = "%s seq=%d ack=%d" % (name, seq, ack)
        if flags & rl.FL_GAP:
            head += " GAP"
        if mtype == rl.MT_HELLO:
            if self.hello is None:
                guess = "h2d" if len(payload) < 2 * rl.NONCE_LEN + 3 + rl.IMAGE_LEN + 3 else "d2h"
                return "%s (sealed: no key) | %s" % (head, self._maybe(
                    _hello_text(guess, flags, seq, ack, payload)))
            for direction, kp in (("h2d", self.hello[0]), ("d2h", self.hello[1])):
                if rl.verify(kp, fr):
                    if direction == "d2h" and not flags & rl.FL_ADVERT:
                        self._learn(payload)
                    return "%s %s | %s" % (direction, head,
                                           _hello_text(direction, flags, seq, ack, payload))
            return self._bad(head)
        if self.key is None:
            who = {rl.MT_EVENT: "d2h ", rl.MT_CMD: "h2d "}.get(mtype, "")
            return "%s%s len=%d (sealed: no key, tag not checked)%s" % (
                who, head, len(payload),
                self._maybe(_describe_payload(mtype, payload)) if self.unverified else "")
        for number, h2d, d2h in reversed(self.sessions):
            for direction, kp in (("h2d", h2d), ("d2h", d2h)):
                if rl.verify(kp, fr):
                    text = _describe_payload(mtype, payload)
                    return "%s s%d %s%s" % (direction, number, head,
                                            " | " + text if text else "")
        if not self.sessions:
            return "%s len=%d (session keys unknown: the capture has no device HELLO)%s" % (
                head, len(payload),
                self._maybe(_describe_payload(mtype, payload)) if self.unverified else "")
        return self._bad(head)

    def _maybe(self, text):
        return " | UNVERIFIED " + text if self.unverified else ""

    def _bad(self, head):
        self.counts["unauthenticated"] += 1
        return "%s SECURITY: bad tag (forged, replayed from an unknown session, or wrong key)" % head

    def _learn(self, payload):
        try:
            d = rl.parse_hello_device(payload)
        except (ValueError, IndexError, UnicodeError):
            return
        h2d, d2h = rl.session_keys(self.key, d["nh"], d["nd"])
        self.sessions.append((len(self.sessions) + 1, h2d, d2h))
        if len(self.sessions) > 64:
            del self.sessions[0]

    def summary(self):
        c = self.counts
        return ("%d frames, %d bad CRC, %d malformed, %d oversize, %d unauthenticated, "
                "%d session(s) rebuilt%s" % (
                    c["frames"], c["crc_errors"], c["malformed"], c["oversize"],
                    c["unauthenticated"], len(self.sessions),
                    ", REPL text seen" if c["repl"] else ""))
