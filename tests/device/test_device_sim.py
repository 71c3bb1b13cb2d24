"""Technician commands against the simulated board (the real firmware under micropython): doctor with a sensor faulted."""
import os

import pytest

from ringctl import cli
from ringctl.device import keys

from ringctl.sim import simboard


@pytest.fixture
def board(tmp_path, monkeypatch):
    monkeypatch.setenv("RING_HOME", str(tmp_path / "home"))
    key = os.urandom(32)
    b = simboard.SimBoard(tmp_path / "flash", key).start()
    keys.write_private(keys.key_path(b.device_id), key)
    assert b.wait_line("phase ", timeout=10), "simulated board did not finish booting"
    yield b
    b.stop()


def test_doctor_names_the_unplugged_piezo(board, capsys):
    board.send_sensor("floor 1 0 0")            # layout piezo 1 unplugged (firmware/SIM.md)
    rc = cli.main(["doctor", "--port", board.tty, "--flash-dir", str(board.flash),
                   "--light-hold", "0"])
    out = capsys.readouterr().out
    assert rc == 1, out
    fails = [l.split()[1:3] for l in out.splitlines() if l.startswith("  FAIL")]
    assert fails == [["self-test", "1"], ["piezo", "1"]], out
    assert "PIEZO1 (GP27, header pin 32)" in out
    assert "OK    light test" in out and "OK    beam sector 7" in out
    assert "OK    link + handshake       device %s" % board.device_id in out
    assert board.light_state()["name"] == "fault"     # the board shows the fault it found
    # Everything the doctor acknowledged is in the audit log first (nothing acked is lost).
    from ringctl.record.log import AuditLog, default_path
    with AuditLog(default_path()) as log:
        recs = [r.data for r in log.records("event")]
        assert log.verify()["ok"]
    assert recs and all(r["by"] == "ring doctor" for r in recs)
    st = [r for r in recs if r["name"] == "selftest"]
    assert st and st[-1]["b"] == 1 << 9                 # FAULT_PIEZO bit of channel 1


def test_doctor_healthy_sim_board_has_no_failures(board, capsys):
    import time
    t0 = time.monotonic()
    rc = cli.main(["doctor", "--port", board.tty, "--device-id", board.device_id,
                   "--light-hold", "0"])
    out = capsys.readouterr().out
    assert "FAIL" not in out.replace("0 FAIL", ""), out
    # Every check that ran passed; no camera was given, so the doctor does not say "ready".
    assert rc == 1 and out.rstrip().endswith("NOT ready for play (not checked: camera)"), out
    # The light test really drove the board's outputs through every state, in order.
    shown = [l.split()[1] for l in board.lines(since=t0) if l.startswith("light ")]
    want = iter(shown)
    assert all(name in want for name in ["armed", "in-flight", "barred", "heads", "tails",
                                         "odds", "unsure", "fault", "idle"]), shown


def test_technician_workflow_on_a_sim_flash_dir(tmp_path, monkeypatch, capsys):
    # provision -> build -> deploy -> boot the deployed image -> doctor confirms it;
    # then a file changed on the board is the only thing a new deploy would copy.
    from ringctl.board import build
    monkeypatch.setenv("RING_HOME", str(tmp_path / "home"))
    flash, out = tmp_path / "flash", tmp_path / "build"
    flash.mkdir()
    assert cli.main(["device", "provision", "--flash-dir", str(flash),
                     "--witness-copy", str(tmp_path / "witness.key")]) == 0
    dev = (flash / "device_id").read_text()
    assert dev.startswith("SIM") and keys.key_problem(dev) is None
    man = build.build(out_dir=out, target="sim")   # the unix port runs it
    assert cli.main(["device", "deploy", "--build-dir", str(out), "--flash-dir", str(flash)]) == 0
    capsys.readouterr()
    b = simboard.SimBoard(flash, None, firmware_dir=flash).start()   # runs the deployed .mpy
    try:
        assert b.wait_line("phase ", timeout=10), (flash / "board.log").read_text()[-2000:]
        rc = cli.main(["doctor", "--port", b.tty, "--device-id", dev, "--light-hold", "0",
                       "--build-dir", str(out)])
        report = capsys.readouterr().out
    finally:
        b.stop()
    assert "OK    image vs build         board runs the current build %s" % man["image"][:16] \
        in report, report
    assert rc == 1 and "0 FAIL" in report and "(not checked: camera)" in report, report
    (flash / "lib" / "light.mpy").write_bytes(b"M\x06 tampered")
    assert cli.main(["device", "deploy", "--build-dir", str(out), "--flash-dir", str(flash),
                     "--dry-run"]) == 0
    plan = capsys.readouterr().out
    copies = [l.split()[1] for l in plan.splitlines() if l.startswith("  copy")]
    assert copies == ["lib/light.mpy"], plan
    assert "changed on the board since the last deploy" in plan
