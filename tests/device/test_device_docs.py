"""The hardware pack stays consistent with the pin map: BOM coverage, camera table, version pin, udev rule."""
import csv
import re

from ringctl.device import camera, pinmap
from ringctl.fw import pins

HW = pinmap.ROOT / "hardware"


def test_bom_has_part_numbers_and_covers_every_external_pin():
    rows = list(csv.DictReader((HW / "bom.csv").open()))
    assert rows and all(r["part_number"].strip() and r["manufacturer"].strip() for r in rows)
    named = set()
    for r in rows:
        named.update(n.strip() for n in r["pins"].split(";") if n.strip())
    external = {p["name"] for p in pinmap.load()["pins"] if p["kind"] != "led"}
    assert external - named == set(), "pins with no part in bom.csv"
    numbers = {r["part_number"] for r in rows}
    assert {"SC0915", "SC1631", "7BB-27-4L0", "MCP6002-I/P", "LM393P", "AO3400A"} <= numbers


def test_install_camera_table_matches_the_computation():
    text = (HW / "INSTALL.md").read_text()
    rows = re.findall(r"^\| (.+?) \| (\d) \| (.+?) \| ([\d.]+) \|$", text, re.M)
    assert [(a, int(b), c, float(d)) for a, b, c, d in rows] == camera.layout_table()
    # The one-camera 4K figure is limited by the short side (the ring is round).
    assert camera.zone_coin_pixels(3840, 2160, 3000, 3000) < camera.MIN_COIN_PX
    assert camera.zone_coin_pixels(4056, 3040, 3000, 1600) >= camera.MIN_COIN_PX


def test_micropython_pin_is_the_same_everywhere():
    mp = pinmap.load()["micropython"]
    doc = (HW / "MICROPYTHON.md").read_text()
    assert pins.MICROPYTHON == mp["version"]
    for board, url in mp["files"].items():
        name = url.rsplit("/", 1)[1]
        assert name.startswith(board + "-") and name.endswith("-v%s.uf2" % mp["version"])
        assert name in doc


def test_udev_rule():
    rule = (HW / "99-ring-board.rules").read_text()
    line = next(l for l in rule.splitlines() if l.startswith('SUBSYSTEM=="tty"'))
    for part in ('ATTRS{idVendor}=="2e8a"', 'ATTRS{idProduct}=="0005"', "SYMLINK+=\"ring-",
                 'ENV{ID_MM_DEVICE_IGNORE}="1"'):
        assert part in line
