"""The generated parts of firmware/LINK.md: code tables from ringmsg.py / ringlink.py and worked examples.

    python tests/link/linkdoc.py          # rewrite the generated blocks in firmware/LINK.md
    python tests/link/linkdoc.py --check  # exit 1 if LINK.md differs (test_link_doc.py does this)

Each block sits between `<!-- generated: NAME -->` and `<!-- end generated -->`; the text
around the blocks is written by hand. Descriptions come from the comments beside each
constant in ringmsg.py, so the spec and the code cannot drift apart.
"""
import binascii
import re
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK_MD = ROOT / "firmware" / "LINK.md"
sys.path.insert(0, str(ROOT / "firmware" / "lib"))

import ringlink as rl  # noqa: E402
import ringmsg as M  # noqa: E402

BLOCK = re.compile(r"(<!-- generated: (\w+) -->\n)(.*?)(<!-- end generated -->)", re.S)
CONST = re.compile(r"^([A-Z][A-Z0-9_]*) = const\((.+?)\)\s*(?:#\s*(.*))?$")


def _consts(path, prefix):
    """[(name, value, comment)] for `NAME = const(v)  # comment` lines, in file order."""
    mod = M if path.name == "ringmsg.py" else rl
    out = []
    for line in path.read_text().splitlines():
        m = CONST.match(line)
        if m and m.group(1).startswith(prefix) and not m.group(1).endswith("_HDR"):
            out.append((m.group(1), getattr(mod, m.group(1)), (m.group(3) or "").strip()))
    return out


def _md(s):
    return s.replace("|", "\\|")


def _table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_md(str(c)) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


RINGMSG = ROOT / "firmware" / "lib" / "ringmsg.py"
RINGLINK = ROOT / "firmware" / "lib" / "ringlink.py"


def block_events():
    rows = [("%d" % v, "`%s`" % n, M.EVENT_NAMES[v], c) for n, v, c in _consts(RINGMSG, "EV_")]
    return _table(("code", "constant", "name", "a, b, text"), rows)


def block_commands():
    rows = [("%d" % v, "`%s`" % n, M.CMD_NAMES[v], c) for n, v, c in _consts(RINGMSG, "CMD_")]
    return _table(("code", "constant", "name (`ring link send`)", "meaning, text argument"), rows)


def block_results():
    rows = [("%d" % v, "`%s`" % n, M.RESULT_NAMES[v], c) for n, v, c in _consts(RINGMSG, "R_")]
    return _table(("b", "constant", "name", "meaning"), rows)


def block_values():
    """Phases, lights, bar reasons, buttons, reset causes, fault bits: value tables."""
    out = []
    for title, prefix, names, fmt in (
            ("Spin phases (EV_PHASE a, b)", "PH_", M.PHASE_NAMES, "%d"),
            ("Lights (EV_LIGHT a; CMD_LIGHT text = the decimal value)", "LIGHT_", M.LIGHT_NAMES,
             "%d"),
            ("Why the board barred a spin (EV_BARRED a)", "BAR_", M.BAR_NAMES, "%d"),
            ("Buttons (EV_BUTTON a)", "BTN_", None, "%d"),
            ("Reset causes (HELLO reset, EV_BOOT a)", "RESET_", M.RESET_NAMES, "%d"),
            ("Fault bits (EV_SELFTEST b, EV_FAULT a)", "FAULT_", None, "0x%05x")):
        rows = []
        for n, v, c in _consts(RINGMSG, prefix):
            name = names[v] if names is not None else ""
            rows.append((fmt % v, "`%s`" % n, name, c))
        out.append("**%s**\n\n" % title + _table(("value", "constant", "name", "note"), rows))
    return "\n".join(out)


def block_link_constants():
    rows = []
    for prefix in ("MT_", "FL_", "HB_", "HOST_", "DEVICE_", "HELLO_", "ADVERT_", "RTO_",
                   "OLD_", "CH_", "REPORT_", "PROTO_", "MAX_", "MIN_", "NONCE_", "IMAGE_",
                   "ACK_", "TAG_", "HDR_", "CRC_"):
        for n, v, c in _consts(RINGLINK, prefix):
            rows.append(("`%s`" % n, "0x%02x" % v if prefix in ("MT_", "FL_") else "%d" % v, c))
    return _table(("constant (ringlink.py)", "value", "note"), rows)


# ---- worked examples --------------------------------------------------------------------
EX_KEY = bytes(range(32))
EX_NH = bytes(range(0x10, 0x20))
EX_ND = bytes(range(0x20, 0x30))


def _hex(b):
    return binascii.hexlify(bytes(b)).decode()


def _spaced(b, per=32):
    h = _hex(b)
    return "\n".join(" ".join(h[i:i + 2] for i in range(j, min(j + 2 * per, len(h)), 2))
                     for j in range(0, len(h), 2 * per))


def example_values():
    """Every byte string of the worked examples (also read by the independent client test)."""
    k_hello_h2d = rl.hmac_key(EX_KEY, b"ring-link hello h2d")
    k_hello_d2h = rl.hmac_key(EX_KEY, b"ring-link hello d2h")
    k_h2d = rl.hmac_key(EX_KEY, b"ring-link h2d" + EX_NH + EX_ND)
    k_d2h = rl.hmac_key(EX_KEY, b"ring-link d2h" + EX_NH + EX_ND)
    hello_payload = rl.build_hello_host(EX_NH, "ring run")
    hello = rl.seal(rl._keypair(k_hello_h2d), rl.MT_HELLO, 0, 0x12345678, 1, hello_payload)
    ack = rl.seal(rl._keypair(k_d2h), rl.MT_ACK, 0, 1, 1, struct.pack("<IIII", 5, 3, 0, 2))
    cmd_payload = M.pack_cmd(M.CMD_LIGHT, 7, str(M.LIGHT_HEADS))
    cmd = rl.seal(rl._keypair(k_h2d), rl.MT_CMD, 0, 1, 1, cmd_payload)
    ev_payload = M.pack_event(0xB007, 42, M.EV_RESULT, 1234567, 7, M.R_OK)
    ev = rl.seal(rl._keypair(k_d2h), rl.MT_EVENT, 0, 3, 2, ev_payload)
    cobs_in = bytes([0x11, 0x22, 0x00, 0x33, 0x00, 0x00, 0x44])
    return {"key": EX_KEY, "nh": EX_NH, "nd": EX_ND, "k_hello_h2d": k_hello_h2d,
            "k_hello_d2h": k_hello_d2h, "k_h2d": k_h2d, "k_d2h": k_d2h,
            "hello_payload": hello_payload, "hello_frame": hello, "hello_wire": rl.encode(hello),
            "ack_frame": ack, "ack_wire": rl.encode(ack), "cmd_payload": cmd_payload,
            "cmd_frame": cmd, "cmd_wire": rl.encode(cmd), "event_payload": ev_payload,
            "event_frame": ev, "event_wire": rl.encode(ev), "cobs_in": cobs_in,
            "cobs_out": rl.cobs_encode(cobs_in)}


def block_examples():
    v = example_values()
    x = []

    def show(label, b):
        x.append("%s (%d bytes):\n```\n%s\n```\n" % (label, len(b), _spaced(b)))

    x.append("Device key K = bytes 0x00, 0x01 … 0x1f; Nh = 0x10 … 0x1f; Nd = 0x20 … 0x2f.\n")
    show('Khello_h2d = HMAC-SHA256(K, "ring-link hello h2d")', v["k_hello_h2d"])
    show('Khello_d2h = HMAC-SHA256(K, "ring-link hello d2h")', v["k_hello_d2h"])
    show('K_h2d = HMAC-SHA256(K, "ring-link h2d" || Nh || Nd) — the message is 13 + 16 + 16 '
         '= 45 bytes', v["k_h2d"])
    show('K_d2h = HMAC-SHA256(K, "ring-link d2h" || Nh || Nd)', v["k_d2h"])
    show("COBS: data 11 22 00 33 00 00 44 encodes to", v["cobs_out"])
    show('Host HELLO payload: Nh, major %d, minor %d, name "ring run" (lp)'
         % (rl.PROTO_MAJOR, rl.PROTO_MINOR), v["hello_payload"])
    show("Host HELLO frame: mtype 01, flags 00, seq = stream id 0x12345678, ack = tx_base 1, "
         "payload, tag under Khello_h2d, CRC-32", v["hello_frame"])
    show("… on the wire (00, COBS, 00)", v["hello_wire"])
    show("Device ACK under K_d2h: seq 1 (its next seq), ack 1, payload challenge 5, echo 3, "
         "alarms 0, key_errors 2",
         v["ack_frame"])
    show("CMD payload: CMD_LIGHT, cmd_id 7, text \"%d\" (LIGHT_HEADS)" % M.LIGHT_HEADS,
         v["cmd_payload"])
    show("CMD frame under K_h2d: seq 1, ack 1", v["cmd_frame"])
    show("… on the wire", v["cmd_wire"])
    show("EVENT payload: boot_id 0xb007, event_id 42, EV_RESULT, t_us 1234567, a = cmd_id 7, "
         "b = R_OK", v["event_payload"])
    show("EVENT frame under K_d2h: seq 3, ack 2", v["event_frame"])
    return "\n".join(x)


BLOCKS = {"events": block_events, "commands": block_commands, "results": block_results,
          "values": block_values, "link_constants": block_link_constants,
          "examples": block_examples}


def render(text):
    def sub(m):
        name = m.group(2)
        if name not in BLOCKS:
            raise SystemExit("LINK.md names an unknown generated block %r" % name)
        return m.group(1) + BLOCKS[name]() + m.group(4)
    return BLOCK.sub(sub, text)


def main(argv):
    text = LINK_MD.read_text()
    new = render(text)
    if "--check" in argv:
        if new != text:
            print("firmware/LINK.md is out of date: run python tests/link/linkdoc.py")
            return 1
        return 0
    LINK_MD.write_text(new)
    print("wrote", LINK_MD)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
