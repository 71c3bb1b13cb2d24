"""Technician commands against the simulated board (the real firmware under micropython): doctor with a sensor faulted."""
import os

import pytest

from ringctl import cli
from ringctl.device import keys

simboard = pytest.importorskip("ringctl.board.simboard")


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
    rc = cli.main(["doctor", "--port", board.tty, "--device-id", board.device_id,
                   "--light-hold", "0"])
    out = capsys.readouterr().out
    assert rc == 1, out
    fails = [l.split()[1:3] for l in out.splitlines() if l.startswith("  FAIL")]
    assert fails == [["self-test", "1"], ["piezo", "1"]], out
    assert "PIEZO1 (GP27, header pin 32)" in out
    assert "OK    light test" in out and "OK    beam sector 7" in out
    assert "OK    link + handshake       device %s" % board.device_id in out
    assert board.light_state()["name"] == "fault"     # the board shows the fault it found


def test_doctor_healthy_sim_board_has_no_failures(board, capsys):
    rc = cli.main(["doctor", "--port", board.tty, "--device-id", board.device_id,
                   "--light-hold", "0"])
    out = capsys.readouterr().out
    assert "FAIL" not in out.replace("0 FAIL", ""), out
    assert rc == 0
