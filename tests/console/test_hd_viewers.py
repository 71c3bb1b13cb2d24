"""The bench's 1080p viewers (sim/console_hd_bench.py) against the served console: a login
through the form, /ws/camera frames that decode, counted per second."""
import time

import numpy as np
import pytest
from websockets.exceptions import InvalidStatus

from ringctl.console.server import ConsoleServer
from ringctl.runner.commands import parse_command
from ringctl.sim.console_hd_bench import Viewer, _login

from fakehost import FakeHost


def test_three_viewers_receive_decodable_frames(tmp_path):
    host = FakeHost(str(tmp_path / "audit.db"))
    host.frame = np.random.default_rng(1).integers(0, 255, (1080, 1920, 3), dtype=np.uint8)
    users = str(tmp_path / "users.json")
    server = ConsoleServer(host, str(tmp_path / "audit.db"), users, parse_command,
                           bind="127.0.0.1:0").start()
    viewers = []
    try:
        cookie = _login(server.url, users)
        url = server.url.replace("http", "ws", 1) + "/ws/camera"
        viewers = [Viewer(url, cookie) for _ in range(3)]
        t0 = time.monotonic()
        time.sleep(2.0)
        t1 = time.monotonic()
        for v in viewers:
            assert v.bad == 0 and v.size == [1280, 720]     # scaled to the screen's width
            assert v.fps(t0, t1) > 1.0
    finally:
        for v in viewers:
            v.close()
        server.stop()


def test_a_viewer_without_a_session_is_refused(tmp_path):
    host = FakeHost(str(tmp_path / "audit.db"))
    server = ConsoleServer(host, str(tmp_path / "audit.db"), str(tmp_path / "users.json"),
                           parse_command, bind="127.0.0.1:0").start()
    try:
        with pytest.raises(InvalidStatus) as refused:
            Viewer(server.url.replace("http", "ws", 1) + "/ws/camera", "")
        assert refused.value.response.status_code == 403
    finally:
        server.stop()
