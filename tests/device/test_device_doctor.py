"""`ring doctor` report logic against a scripted fake link: faults named per sensor with what to check."""
import collections
import os
import time

import cv2
import pytest

from ringctl.device import doctor, pinmap
from ringctl.event import Event as Ev
from ringctl.fw import ringmsg as M



class FakeLink:
    """Answers like the firmware: self-test, status, light; `fault` is the self-test mask."""

    host_protocol = "1.0"

    def __init__(self, fault=0, image="1122334455667788", protocol="1.0", dead_light=None,
                 backlog=(), in_fault=False):
        self.in_fault = in_fault     # e.g. still in the boot self-test: light refused
        self.hello = {"device_id": "SIMFAKE1", "protocol": protocol, "firmware": "0.1.0",
                      "image_hash": image, "reset_cause": M.RESET_POWER_ON,
                      "interpreter": "micropython 1.29.0 linux", "boot_id": "0000b007"}
        self.fault, self.dead_light = fault, dead_light
        self.q = collections.deque(backlog)
        self.sent, self.acked, self.closed, self.n = [], 0, False, 0
        self.board_alarms = 0        # the board's own link security alarms (EV_LINK a)

    def take_backlog(self):
        return [e for e in self.q if e.code in (M.EV_BEAM, M.EV_IMPACT)]

    def record_backlog(self):
        self.recorded = [self.q.popleft() for _ in range(len(self.q))]

    def _ev(self, code, a=0, b=0, text=""):
        self.n += 1
        self.q.append(Ev(0xB007, self.n, code, self.n * 1000, a, b, text))

    def command(self, code, text=""):
        self.sent.append((code, text))
        cmd_id = len(self.sent)
        if code == M.CMD_SELFTEST:
            self._ev(M.EV_HEAP, 100000, 2000)          # unrelated event in between
            self._ev(M.EV_SELFTEST, 1 if self.fault else 0, self.fault,
                     "beam 3 blocked" if self.fault else "")
            self.in_fault = bool(self.fault)
        elif code == M.CMD_STATUS:
            self._ev(M.EV_PHASE, M.PH_IDLE, M.PH_IDLE)
            self._ev(M.EV_MAT, 0)
            self._ev(M.EV_LINK, self.board_alarms, 0, "crc=0 mal=0 ovr=0 stale=0 dup=0 hs=1 lost=0")
        elif code == M.CMD_LIGHT:
            if self.in_fault:
                self._ev(M.EV_RESULT, cmd_id, 3, "fault light stays until the fault is cleared")
            elif int(text) == self.dead_light:
                self._ev(M.EV_RESULT, cmd_id, 5, "light driver fault")
            else:
                self._ev(M.EV_LIGHT, int(text), -1)
                self._ev(M.EV_RESULT, cmd_id, 0)
        return cmd_id

    def next_event(self, timeout):
        if not self.q:
            time.sleep(min(timeout, 0.01))     # a real link blocks until the timeout
            return None
        return self.q.popleft()

    def close(self):
        self.closed = True


@pytest.fixture
def pm():
    return pinmap.load()


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RING_HOME", str(tmp_path / "home"))


def _by(report):
    return {i["check"]: i for i in report.items}


def test_healthy_board_is_ready(pm):
    link = FakeLink()
    r = doctor.diagnose(lambda: link, pm, build_image="1122334455667788aabb")
    items = _by(r)
    assert not r.failed and link.closed
    assert all(items["beam sector %d" % n]["status"] == "OK" for n in range(8))
    assert items["image vs build"]["status"] == "OK"
    assert items["light test"]["status"] == "OK"
    lights = [int(t) for c, t in link.sent if c == M.CMD_LIGHT]
    assert lights == list(doctor.LIGHT_SEQUENCE) and lights[-1] == M.LIGHT_IDLE
    # The camera was not checked: every check that ran passed, but that is not "ready".
    assert items["camera"]["status"] == "SKIP" and not r.ready
    assert r.text().endswith("-> NOT ready for play (not checked: camera)")


def _video(tmp_path, w=320, h=240):
    import numpy as np
    path = str(tmp_path / "cam.avi")
    out = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 30, (w, h))
    for i in range(5):
        out.write(np.full((h, w, 3), i * 20, np.uint8))
    out.release()
    return path


def _ring_json(tmp_path, image=(320, 240), ring_radius_px=110.0, ring_mm=1200.0):
    import numpy as np
    from ringctl.vision.ring import RingModel
    m = RingModel(image, (160, 120), (ring_radius_px, ring_radius_px), 0.0,
                  np.zeros((24, 32, 3), np.uint8), 30.8, ring_mm)
    m.save(tmp_path / "ring.json")
    return tmp_path / "ring.json"


def test_ready_only_when_every_check_ran_and_passed(pm, tmp_path):
    # A camera whose calibration gives enough px per coin: every check OK -> ready.
    ring = _ring_json(tmp_path, ring_radius_px=110.0, ring_mm=150.0)   # 45 px per coin
    r = doctor.diagnose(lambda: FakeLink(), pm, build_image="1122334455667788aabb",
                        camera_spec=_video(tmp_path), config={"ring": str(ring)})
    items = _by(r)
    assert items["coin size"]["status"] == "WARN", items["coin size"]   # 45 < 60 px margin
    assert "from the ring calibration, 150 mm ring" in items["coin size"]["detail"]
    assert items["face model"]["status"] == "FAIL" and not r.ready  # the config names none
    assert "-> NOT ready for play" in r.text()


def test_coin_size_comes_from_the_configured_calibration_not_a_3m_ring(pm, tmp_path):
    cam = _video(tmp_path)
    default = _by(doctor.diagnose(lambda: FakeLink(), pm, camera_spec=cam))["coin size"]
    ring = _ring_json(tmp_path, ring_radius_px=110.0, ring_mm=1200.0)
    conf = _by(doctor.diagnose(lambda: FakeLink(), pm, camera_spec=cam,
                               config={"ring": str(ring)}))["coin size"]
    assert "3 px" in default["detail"] or "2 px" in default["detail"]
    assert conf["detail"].startswith("6 px")            # 220 px / 1200 mm * 30.8 mm
    assert "1200 mm ring" in conf["detail"]


def test_config_files_are_each_checked(pm, tmp_path):
    (tmp_path / "bad.model").write_text("{}")
    (tmp_path / "k.key").write_bytes(os.urandom(32))
    os.chmod(tmp_path / "k.key", 0o644)
    items = _by(doctor.diagnose(lambda: FakeLink(), pm, config={
        "ring": str(tmp_path / "missing.json"), "model": str(tmp_path / "bad.model"),
        "key": str(tmp_path / "k.key")}))
    assert items["ring calibration"]["status"] == "FAIL"
    assert "cannot read ring calibration" in items["ring calibration"]["detail"]
    assert items["face model"]["status"] == "FAIL" and "not a face model" in items["face model"]["detail"]
    assert items["key file"]["status"] == "WARN" and "chmod 600" in items["key file"]["fix"]


def test_link_security_line_shows_the_boards_own_alarms(pm):
    link = FakeLink()
    items = _by(doctor.diagnose(lambda: link, pm))
    assert items["link security"]["status"] == "OK"
    assert "board: 0 alarm(s)" in items["link security"]["detail"]
    link = FakeLink()
    link.board_alarms = 4
    r = doctor.diagnose(lambda: link, pm)
    sec = _by(r)["link security"]
    assert r.failed and sec["status"] == "FAIL" and "board: 4 alarm(s)" in sec["detail"]
    assert "security-alarm" in sec["fix"]


def test_one_faulted_beam_fails_with_where_to_look(pm):
    r = doctor.diagnose(lambda: FakeLink(fault=1 << 3), pm, build_image="1122334455667788")
    items = _by(r)
    assert r.failed
    bad = [i for i in r.items if i["status"] == "FAIL"]
    assert [i["check"] for i in bad] == ["self-test", "beam sector 3"]
    assert "1 fault(s), mask 0x8" in bad[0]["detail"]
    assert "GP5" in bad[1]["fix"] and "header pin 7" in bad[1]["fix"]
    assert "7.3.1" in bad[1]["detail"]
    assert items["beam sector 2"]["status"] == "OK"
    text = r.text()
    assert "FAIL  beam sector 3" in text and "check: beam alignment" in text
    assert "NOT ready" in text


def test_piezo_wall_button_bits(pm):
    mask = (1 << 9) | M.FAULT_WALL | (1 << 13)
    bad = {i["check"]: i for i in doctor.diagnose(lambda: FakeLink(fault=mask), pm).items
           if i["status"] == "FAIL"}
    assert set(bad) == {"self-test", "piezo 1", "wall piezo", "arm button"}
    assert "GP27" in bad["piezo 1"]["fix"] and "GP11" in bad["arm button"]["fix"]


def test_link_down_still_reports_camera_and_disk(pm, tmp_path):
    def opener():
        raise OSError("[Errno 2] could not open port /dev/ttyACM9")
    r = doctor.diagnose(opener, pm, device_id="E6614103E7452D2F")
    items = _by(r)
    assert items["link + handshake"]["status"] == "FAIL"
    assert "ring device list" in items["link + handshake"]["fix"]
    assert items["host key"]["status"] == "FAIL" and "provision" in items["host key"]["detail"]
    assert items["self-test"]["status"] == "SKIP"
    assert items["audit log disk"]["status"] in ("OK", "WARN", "FAIL")
    assert "MB free" in items["audit log disk"]["detail"]


def test_stale_image_protocol_and_light(pm):
    link = FakeLink(image="deadbeefdeadbeef", protocol="2.0", dead_light=M.LIGHT_HEADS)
    items = _by(doctor.diagnose(lambda: link, pm, build_image="1122334455667788"))
    assert items["image vs build"]["status"] == "FAIL"
    assert "ring device deploy" in items["image vs build"]["fix"]
    assert items["protocol version"]["status"] == "FAIL"
    assert items["light test"]["status"] == "FAIL" and "heads" in items["light test"]["detail"]


def test_backlog_of_play_events_is_recorded_and_the_doctor_goes_on(pm):
    held = Ev(1, 7, M.EV_BEAM, 0, 2, 900, "")
    link = FakeLink(backlog=[held])
    r = doctor.diagnose(lambda: link, pm)
    items = _by(r)
    assert items["events from play"]["status"] == "WARN"
    assert "held 1 event(s) from play (first: beam): recorded" in items["events from play"]["detail"]
    assert link.recorded == [held]               # recorded (then acked) before any command
    assert items["self-test"]["status"] == "OK" and items["light test"]["status"] == "OK"


def test_camera_from_a_video_file(pm, tmp_path):
    import numpy as np
    path = str(tmp_path / "cam.avi")
    w = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 30, (320, 240))
    for i in range(5):
        w.write(np.full((240, 320, 3), i * 20, np.uint8))
    w.release()
    items = _by(doctor.diagnose(lambda: FakeLink(), pm, camera_spec=path, zone=(3000, 3000)))
    assert items["camera"]["detail"].startswith("320x240")
    assert items["coin size"]["status"] == "FAIL"          # 240 px over 3 m: 2.5 px per coin
    assert "2 px" in items["coin size"]["detail"] or "3 px" in items["coin size"]["detail"]
    assert "more cameras" in items["coin size"]["fix"]


def test_zone_parsing():
    assert doctor.parse_zone("3000") == (3000, 3000)
    assert doctor.parse_zone("3000x1600") == (3000, 1600)
    with pytest.raises(Exception, match="--zone"):
        doctor.parse_zone("big")


def test_doctor_cli_over_the_real_link_client(tmp_path, capsys):
    # The whole path: `ring doctor` -> devlink -> LinkClient (pyserial on a pty) -> a device
    # ringlink Session that answers like the firmware, with beam sector 5 blocked.
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    from pty_board import PtyBoard
    from ringctl import cli
    from ringctl.device import keys
    key = os.urandom(32)
    keys.write_private(keys.key_path("SIMPTY01"), key)
    board = PtyBoard(key, fault=1 << 5)
    try:
        rc = cli.main(["doctor", "--port", board.path, "--device-id", "SIMPTY01",
                       "--light-hold", "0", "--build-dir", str(_fake_build(tmp_path))])
    finally:
        board.close()
    out = capsys.readouterr().out
    assert rc == 1, out
    fails = [l for l in out.splitlines() if l.startswith("  FAIL")]
    assert len(fails) == 2 and "self-test" in fails[0] and "beam sector 5" in fails[1], out
    assert "GP7" in out and "OK    link + handshake       device SIMPTY01" in out
    assert "OK    image vs build" in out and "OK    spinner mat" in out
    assert board.lights == list(doctor.LIGHT_SEQUENCE)


def test_doctor_says_wrong_key_once_and_counts_no_alarm(capsys):
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    from pty_board import PtyBoard
    from ringctl import cli
    from ringctl.device import keys
    from ringctl.link.client import KEY_MISMATCH_MSG
    keys.write_private(keys.key_path("SIMPTY01"), os.urandom(32))   # not the board's key
    board = PtyBoard(os.urandom(32))
    try:
        rc = cli.main(["doctor", "--port", board.path, "--device-id", "SIMPTY01",
                       "--light-hold", "0"])
    finally:
        board.close()
    out = capsys.readouterr().out
    assert rc == 1
    link = [l for l in out.splitlines() if "link + handshake" in l]
    assert len(link) == 1 and link[0].startswith("  FAIL") and KEY_MISMATCH_MSG in link[0], out
    assert "SECURITY" not in out and board.s.alarms == 0 and board.s.key_errors > 0


def _fake_build(tmp_path):
    import json
    d = tmp_path / "build"
    d.mkdir()
    (d / "manifest.json").write_text(json.dumps({"files": {}, "image": "1122334455667788ff"}))
    return d


def test_walk_test_names_the_silent_sector(pm):
    link = FakeLink()
    said = []

    def say(msg):
        said.append(msg)
        if msg.startswith("walk test"):           # the technician walks round the ring now;
            for n in (0, 1, 2, 3, 4, 6, 7):        # sector 5's receiver cable is cut
                link.q.append(Ev(0xB007, 100 + n, M.EV_BEAM, 0, n, 20000, ""))
    items = _by(doctor.diagnose(lambda: link, pm, walk_s=1, say=say))
    assert items["beam walk test"]["status"] == "FAIL"
    assert "sector(s) 5 " in items["beam walk test"]["detail"]
    assert "BEAM5 (GP7" in items["beam walk test"]["fix"]
    assert "  sector 7 seen (7/8)" in said


def test_board_in_fault_self_tests_then_retries_the_light(pm):
    link = FakeLink(in_fault=True)
    r = doctor.diagnose(lambda: link, pm)
    assert not r.failed, r.text()
    codes = [c for c, _ in link.sent]
    first_test = codes.index(M.CMD_SELFTEST)
    assert codes.count(M.CMD_LIGHT) == 2 * len(doctor.LIGHT_SEQUENCE)
    assert codes[first_test + 2:].count(M.CMD_LIGHT) == len(doctor.LIGHT_SEQUENCE)
    # Still faulted after the self-test: the light test is reported as not run, once.
    r = doctor.diagnose(lambda: FakeLink(in_fault=True, fault=1 << 12), pm)
    light = [i for i in r.items if i["check"] == "light test"]
    assert len(light) == 1 and light[0]["status"] == "FAIL" and "not run" in light[0]["detail"]
    assert any(i["check"] == "no-spin button" and i["status"] == "FAIL" for i in r.items)


def test_escape_to_repl_asks_the_controller_over_the_link(tmp_path):
    # deploy/provision on a running controller: authenticated CMD_RESET "repl" first.
    import sys
    sys.path.insert(0, os.path.dirname(__file__))
    from pty_board import PtyBoard
    from ringctl.device import devlink, keys
    assert "provision" in devlink.escape_to_repl("/dev/null", "SIMNOKEY1")   # no key: no try
    key = os.urandom(32)
    keys.write_private(keys.key_path("SIMPTY02"), key)
    board = PtyBoard(key, device_id="SIMPTY02")
    try:
        assert devlink.escape_to_repl(board.path, "SIMPTY02") is None
    finally:
        board.close()
    assert board.cmds == [(M.CMD_RESET, "repl")]
    board = PtyBoard(key, device_id="SIMPTY02", backlog=[(M.EV_IMPACT, 0, 20000)])
    try:
        why = devlink.escape_to_repl(board.path, "SIMPTY02")
    finally:
        board.close()
    assert "unrecorded play event" in why and board.cmds == []


@pytest.mark.parametrize("interp,status", [
    ("micropython 1.28.0 pico", "OK"), ("MicroPython v1.28.0 on 2026-04-06; Raspberry Pi Pico", "OK"),
    ("micropython 1.24.1 pico2", "WARN"), ("micropython 1.28.01 pico", "WARN")])
def test_firmware_version_against_the_pin(pm, interp, status):
    link = FakeLink()
    link.hello.update(device_id="E6614103E7452D2F", interpreter=interp)
    r = doctor.Report()
    doctor.check_link(r, link, pm)
    assert _by(r)["firmware version"]["status"] == status


def test_camera_coin_size_measured_from_a_rendered_ring(pm, tmp_path):
    # An image folder of the simulator's overhead frames: the doctor finds the ring and
    # measures the coin size instead of estimating it from the zone.
    import numpy as np
    from ringctl.sim.render import render_scene
    img, _ = render_scene({"size": [960, 720]}, np.random.default_rng(1))
    (tmp_path / "cam").mkdir()
    cv2.imwrite(str(tmp_path / "cam" / "f000.png"), img)
    items = _by(doctor.diagnose(lambda: FakeLink(), pm, camera_spec=str(tmp_path / "cam")))
    assert items["camera"]["detail"].startswith("960x720")
    cs = items["coin size"]
    assert cs["status"] == "FAIL" and "measured from the ring in view" in cs["detail"]
    px = float(cs["detail"].split()[0])
    assert 4 <= px <= 9       # 0.42 * 720 px radius over a 3 m ring: about 6 px per coin
