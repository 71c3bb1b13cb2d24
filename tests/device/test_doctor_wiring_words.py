"""The doctor's wiring advice comes from the pin map (hardware/pinmap.json), never its own words:
INSTALL.md and the pin map require the beam receivers on L (light-ON); D (dark-ON) is the
setting where a cut cable reads "clear" forever (7.3.1 unguarded)."""
import copy
import re

from ringctl.device import doctor, pinmap
from ringctl.event import Event as Ev
from ringctl.fw import ringmsg as M
from test_device_doctor import FakeLink, _by

INSTALL = pinmap.ROOT / "hardware" / "INSTALL.md"


def _walk_fix(pm, silent=5):
    link = FakeLink()

    def say(msg):
        if msg.startswith("walk test"):
            for n in range(8):
                if n != silent:
                    link.q.append(Ev(0xB007, 100 + n, M.EV_BEAM, 0, n, 20000, ""))
    return _by(doctor.diagnose(lambda: link, pm, walk_s=1, say=say))["beam walk test"]["fix"]


def test_every_beam_selector_in_the_pin_map_is_light_on_as_install_md_says():
    pm = pinmap.load()
    install = INSTALL.read_text()
    assert "selector on **L (light-ON)**" in install.replace("Operation selector", "selector")
    for p in pinmap.group(pm, "beam"):
        assert pinmap.wiring_words(pm, p["name"]) == "selector on L (light-ON)", p["name"]


def test_walk_test_fix_quotes_the_pin_map_and_never_dark_on():
    pm = pinmap.load()
    fix = _walk_fix(pm)
    assert "BEAM5 (GP7" in fix and "selector on L (light-ON)" in fix
    assert not re.search(r"\bD \(dark-ON\)", fix)
    beam5 = _by(_self_test_items(pm, 1 << 5))["beam sector 5"]
    assert "selector on L (light-ON)" in beam5["fix"]


def test_the_words_follow_the_pin_map_when_it_changes():
    pm = copy.deepcopy(pinmap.load())
    for p in pm["pins"]:
        if p["name"] == "BEAM0":             # BEAM1..7 are wired "as BEAM0"
            p["electrical"] = p["electrical"].replace("selector L (light-ON)", "selector X (test-ON)")
    assert "selector on X (test-ON)" in _walk_fix(pm)


def _self_test_items(pm, mask):
    r = doctor.Report()
    for status, what, detail, fix in doctor.sensor_lines(pm, mask):
        r.add(status, what, detail, fix)
    return r


WIRING_WORDS = re.compile(r"MCP6002|LM393|optocoupler|MOSFET|flyback|24 V|\bGND\b|dark-ON|"
                          r"light-ON|selector|pull-up|E3Z", re.I)


def test_every_wiring_word_in_the_doctors_advice_is_the_pin_maps():
    """With each pin's wiring text replaced, no component or wiring word of the doctor's own
    is left in any advice it gives: it quotes the map, so it cannot drift from it."""
    pm = copy.deepcopy(pinmap.load())
    for p in pm["pins"]:
        if "electrical" in p and not p["electrical"].startswith("as "):
            p["electrical"] = "WIRING-OF-%s" % p["name"]
    fixes = [fix for _, _, _, fix in doctor.sensor_lines(pm, 0xFFFF)]
    fixes.append(_walk_fix(pm))
    link = FakeLink(dead_light=M.LIGHT_HEADS)
    report = doctor.Report()
    doctor.check_light(report, link, 0, 0.2, pm)
    fixes += [i["fix"] for i in report.items]
    for fix in fixes:
        assert not WIRING_WORDS.search(fix), fix
    joined = " ".join(fixes)
    for name in ("BEAM0", "PIEZO0", "BTN_NOSPIN", "BTN_ARM", "WALL_TRIG", "LIGHT_RED"):
        assert "WIRING-OF-%s" % name in joined, name
