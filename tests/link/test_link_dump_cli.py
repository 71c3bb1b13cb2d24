"""`ring link dump` and the `ring link` CLI group: readable lines, authentication, sealed without key."""
import subprocess
import sys

from ringctl.cli import main
from ringctl.fw import ringlink as rl, ringmsg

import linksim
from linksim import KEY


def _capture(tmp_path):
    """Both directions of a short session, as whole frames, plus noise and a forgery."""
    host = rl.Session(KEY, rl.ROLE_HOST, {"name": "cap"})
    dev = rl.Session(KEY, rl.ROLE_DEVICE, linksim.DEV_INFO)
    host.start(0)
    dev.start(0)
    dev.send(rl.MT_EVENT, ringmsg.pack_event(0xB007, 1, ringmsg.EV_BARRED, 5, ringmsg.BAR_WALL, 0), 0)
    host.send(rl.MT_CMD, ringmsg.pack_cmd(ringmsg.CMD_ARM, 77), 0)
    wire = bytearray()
    for t in range(0, 20):
        for a, b in ((host, dev), (dev, host)):
            while (out := a.poll(t)) is not None:
                wire += out
                b.feed(out, t)
        while (m := host.recv()) is not None:
            host.ack(m[2])
    wire += b"MicroPython v1.29.0 on 2026-07-05; Raspberry Pi Pico\r\n>>> "
    forged = rl.seal(rl._keypair(bytes(32)), rl.MT_EVENT, 0, 9, 0, b"x" * 25)
    wire += rl.encode(forged)
    bad = bytearray(rl.encode(rl.seal(dev._tx, rl.MT_ACK, 0, 1, 1, b"")))
    bad[-3] ^= 0x10
    wire += bad
    cap = tmp_path / "cap.bin"
    cap.write_bytes(bytes(wire))
    keyf = tmp_path / "dev.key"
    keyf.write_bytes(KEY)
    keyf.chmod(0o600)
    return cap, keyf


def test_dump_with_key_authenticates_and_describes(tmp_path, capsys):
    cap, keyf = _capture(tmp_path)
    assert main(["link", "dump", str(cap), "--key", str(keyf)]) == 0
    out = capsys.readouterr().out
    assert "d2h hello" in out and "device HELLO proto %d.%d fw=0.1.0" % (rl.PROTO_MAJOR, rl.PROTO_MINOR) in out and "device=SIM0001" in out
    assert "h2d hello" in out and "host HELLO" in out
    assert "d2h s1 event seq=1" in out and "barred" in out and "7.3.2" in out
    assert "h2d s1 cmd seq=1" in out and "cmd arm id=77" in out
    assert "SECURITY: bad tag" in out and "1 unauthenticated" in out
    assert "REPL" in out and ("bad CRC" in out or "garbage" in out)
    assert KEY.hex() not in out


def test_dump_without_key_keeps_payloads_sealed(tmp_path, capsys):
    cap, _ = _capture(tmp_path)
    assert main(["link", "dump", str(cap)]) == 0
    out = capsys.readouterr().out
    assert "sealed" in out and "barred" not in out and "cmd arm" not in out
    assert main(["link", "dump", str(cap), "--unverified"]) == 0
    out = capsys.readouterr().out
    assert "UNVERIFIED event" in out


def test_dump_bad_key_file_is_one_line_error(tmp_path):
    cap, _ = _capture(tmp_path)
    bad = tmp_path / "bad.key"
    bad.write_bytes(b"short")
    r = subprocess.run([sys.executable, "-m", "ringctl.cli", "link", "dump", str(cap),
                        "--key", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "not a 32-byte key" in r.stderr


def test_link_group_help_lists_subcommands(capsys):
    try:
        main(["link", "--help"])
    except SystemExit:
        pass
    out = capsys.readouterr().out
    for name in ("dump", "ports", "status", "monitor", "send"):
        assert name in out
