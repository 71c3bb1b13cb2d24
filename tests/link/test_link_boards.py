"""`--port auto` means: the one ring board on USB (2E8A:0005), never a file called 'auto'."""
from types import SimpleNamespace

import pytest

from ringctl.link import boards
from ringctl.errors import UserError


def port(dev, vid=0x2E8A, pid=0x0005, sn="E6614103E7"):
    return SimpleNamespace(device=dev, vid=vid, pid=pid, serial_number=sn, description="Board",
                           location="1-1")


def test_auto_picks_the_only_ring_board():
    ports = [port("/dev/ttyUSB0", vid=0x0403, pid=0x6001), port("/dev/ttyACM3")]
    assert boards.pick_port("auto", ports) == "/dev/ttyACM3"
    assert boards.pick_port(None, ports) == "/dev/ttyACM3"
    assert boards.pick_port("/dev/ttyACM9", ports) == "/dev/ttyACM9"


def test_auto_with_none_or_two_boards_says_what_to_do():
    with pytest.raises(UserError, match="--port"):
        boards.pick_port("auto", [])
    with pytest.raises(UserError, match="2 ring boards"):
        boards.pick_port("auto", [port("/dev/ttyACM0"), port("/dev/ttyACM1", sn="X")])
