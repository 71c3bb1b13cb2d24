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


def _two_ports(sn="E6614103E7", bus="1-1.2", repl="/dev/ttyACM0", link="/dev/ttyACM1"):
    # what pyserial lists on Linux for a board running the controller: the REPL's built-in
    # CDC on interface 0, the link's own CDC (firmware/lib/usbcdc.py) on interface 2
    return [SimpleNamespace(device=repl, vid=0x2E8A, pid=0x0005, serial_number=sn,
                            description="Board CDC", location=bus + ":1.0", interface="Board CDC"),
            SimpleNamespace(device=link, vid=0x2E8A, pid=0x0005, serial_number=sn,
                            description="Board CDC", location=bus + ":1.2", interface="Ring link")]


def test_a_board_running_the_controller_is_one_board_talked_to_on_its_link_port():
    ports = _two_ports()
    found = boards.find_boards(ports)
    assert len(found) == 1, "two ports, one board"
    b = found[0]
    assert (b["port"], b["link"], b["repl"]) == ("/dev/ttyACM1", "/dev/ttyACM1", "/dev/ttyACM0")
    assert "REPL on /dev/ttyACM0" in b["description"]
    assert boards.pick_port("auto", ports) == "/dev/ttyACM1"
    assert boards.serial_for_port("/dev/ttyACM0", ports) == "E6614103E7"
    assert boards.serial_for_port("/dev/ttyACM1", ports) == "E6614103E7"


def test_the_interface_number_decides_even_when_the_link_enumerates_first():
    ports = _two_ports(repl="/dev/ttyACM5", link="/dev/ttyACM4")
    ports[1].interface = None            # no interface string: the number alone decides
    assert boards.pick_port("auto", ports) == "/dev/ttyACM4"
    # Windows: "x" for the configuration
    ports = _two_ports(bus="1-3", repl="COM3", link="COM4")
    for p in ports:
        p.location = p.location.replace(":1.", ":x.")
    assert boards.find_boards(ports)[0]["link"] == "COM4"
    # no number (e.g. macOS): the interface's name
    ports = _two_ports()
    for p in ports:
        p.location = "20-1.2"
    assert boards.find_boards(ports)[0]["link"] == "/dev/ttyACM1"


def test_a_board_at_the_repl_shows_only_its_repl_port():
    ports = _two_ports()[:1]
    b = boards.find_boards(ports)[0]
    assert b["port"] == b["repl"] == "/dev/ttyACM0" and b["link"] is None
    assert "REPL only" in b["description"]


def test_two_boards_each_with_two_ports():
    ports = _two_ports() + _two_ports(sn="X2", bus="1-4", repl="/dev/ttyACM2", link="/dev/ttyACM3")
    assert [b["link"] for b in boards.find_boards(ports)] == ["/dev/ttyACM1", "/dev/ttyACM3"]
    with pytest.raises(UserError, match="2 ring boards"):
        boards.pick_port("auto", ports)


def test_the_repl_port_given_as_the_link_port_is_named_with_the_right_one(monkeypatch):
    from ringctl.link import ports as P
    monkeypatch.setattr(boards, "comports", lambda: _two_ports())
    with pytest.raises(UserError, match="REPL port of board E6614103E7; its link is on /dev/ttyACM1"):
        P.resolve_port("/dev/ttyACM0")
    assert P.resolve_port("/dev/ttyACM1") == "/dev/ttyACM1"
    assert P.resolve_port("auto") == "/dev/ttyACM1"
