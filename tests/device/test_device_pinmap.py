"""Pin map checks (double use, wrong-function pins) and the generated firmware config staying in step."""
import copy
import json
import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import pytest

from ringctl import cli
from ringctl.device import pinmap, wiring

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mprun import run_mp  # noqa: E402


@pytest.fixture(scope="module")
def pm():
    return pinmap.load()


def _pin(m, name):
    return next(p for p in m["pins"] if p["name"] == name)


def test_committed_map_is_clean(pm):
    assert pinmap.check(pm) == []


def test_agreed_pin_numbers(pm):
    # The firmware helper wires against these; a silent renumbering would break the board.
    gp = {p["name"]: p["gpio"] for p in pm["pins"]}
    assert [gp["BEAM%d" % i] for i in range(8)] == list(range(2, 10))
    assert (gp["BTN_NOSPIN"], gp["BTN_ARM"], gp["MAT"]) == (10, 11, 12)
    assert (gp["LIGHT_RED"], gp["LIGHT_AMBER"], gp["LIGHT_GREEN"], gp["BUZZER"]) == (13, 14, 15, 16)
    assert (gp["WALL_TRIG"], gp["PIEZO0"], gp["PIEZO1"], gp["WALL"], gp["LED"]) == (20, 26, 27, 28, 25)


def test_pin_used_twice_is_an_error(pm):
    bad = copy.deepcopy(pm)
    _pin(bad, "BTN_ARM")["gpio"] = 10          # same as BTN_NOSPIN
    errs = pinmap.check(bad)
    assert any("GP10 already used by 'BTN_NOSPIN'" in e for e in errs), errs


def test_adc_on_a_digital_only_pin_is_an_error(pm):
    bad = copy.deepcopy(pm)
    _pin(bad, "PIEZO1")["gpio"] = 21
    errs = pinmap.check(bad)
    assert any("PIEZO1" in e and "cannot do ADC" in e for e in errs), errs


def test_adc_channel_must_match_the_gpio(pm):
    bad = copy.deepcopy(pm)
    _pin(bad, "WALL")["adc"] = 1
    assert any("GP28 is ADC2" in e for e in pinmap.check(bad))


@pytest.mark.parametrize("gpio", [23, 24, 29])
def test_internal_pico_pins_are_refused(pm, gpio):
    bad = copy.deepcopy(pm)
    _pin(bad, "LIGHT_RED")["gpio"] = gpio
    errs = pinmap.check(bad)
    assert any("internal" in e and "GP%d" % gpio in e for e in errs), errs


def test_led_only_on_gp25_and_gp25_only_as_led(pm):
    bad = copy.deepcopy(pm)
    _pin(bad, "BUZZER")["gpio"] = 25
    _pin(bad, "LED")["gpio"] = 17
    errs = pinmap.check(bad)
    assert any("BUZZER" in e and "internal" in e for e in errs)
    assert any("LED" in e and "GP25" in e for e in errs)


def test_pico2_pulldown_erratum_and_missing_pins(pm):
    bad = copy.deepcopy(pm)
    _pin(bad, "MAT")["pull"] = "down"
    bad["pins"] = [p for p in bad["pins"] if p["name"] != "BEAM7"]
    errs = pinmap.check(bad)
    assert any("E9" in e and "MAT" in e for e in errs)
    assert any("BEAM7" in e and "missing" in e for e in errs)
    # The same pull-down is allowed on a Pico-only map (RP2040 has no such erratum).
    bad["boards"] = [b for b in bad["boards"] if b["id"] == "pico"]
    assert not any("E9" in e for e in pinmap.check(bad))


def test_bad_defaults(pm):
    bad = copy.deepcopy(pm)
    bad["defaults"]["quiet_ms"]["value"] = 1.0     # floats are refused
    bad["defaults"]["light_type"]["value"] = "laser"
    bad["defaults"]["debounce_ms"]["value"] = 0
    errs = " | ".join(pinmap.check(bad))
    assert "quiet_ms" in errs and "light_type" in errs and "debounce_ms" in errs


def test_committed_pins_py_matches_the_map(pm):
    committed = pinmap.PINS_PY_PATH.read_text()
    assert committed == pinmap.generate_pins_py(pm), \
        "firmware/lib/pins.py is stale: run `ring device pinmap generate`"
    assert pinmap.SVG_PATH.read_text() == wiring.render_svg(pm), "hardware/wiring.svg is stale"
    assert pinmap.stale_outputs(pm) == []


def test_generation_follows_the_map(pm):
    moved = copy.deepcopy(pm)
    _pin(moved, "BUZZER")["gpio"] = 17
    moved["defaults"]["quiet_ms"]["value"] = 1500
    text = pinmap.generate_pins_py(moved)
    assert "BUZZER = const(17)" in text and "'quiet_ms': 1500" in text
    assert text != pinmap.PINS_PY_PATH.read_text()


def test_pins_py_same_values_under_both_runtimes(pm, tmp_path):
    from ringctl.fw import pins
    assert pins.PINMAP_SHA256 == pinmap.canonical_hash(pm)
    assert pins.BEAM_PINS == tuple(range(2, 10)) and pins.DEFAULTS["quiet_ms"] == 1000
    script = tmp_path / "dump.py"
    script.write_text("import pins, json\nprint(json.dumps([pins.PINS, pins.DEFAULTS, "
                      "pins.BEAM_PINS, pins.PIEZO_ADC if hasattr(pins, 'PIEZO_ADC') else 0, "
                      "pins.WALL_ADC]))\n")
    proc = run_mp(script, timeout=30)
    assert proc.returncode == 0, proc.stderr
    mp_pins, mp_defaults, mp_beams, _, mp_wall_adc = json.loads(proc.stdout)
    assert mp_defaults == pins.DEFAULTS
    assert {k: tuple(v) for k, v in mp_pins.items()} == pins.PINS
    assert tuple(mp_beams) == pins.BEAM_PINS and mp_wall_adc == pins.WALL_ADC == 2


def test_svg_is_xml_and_names_every_pin(pm):
    svg = wiring.render_svg(pm)
    xml.dom.minidom.parseString(svg)
    for p in pm["pins"]:
        assert p["name"] + ":" in svg or "GP%d %s" % (p["gpio"], p["name"]) in svg


def test_cli_check_and_bad_map(pm, tmp_path, capsys):
    assert cli.main(["device", "pinmap", "check"]) == 0
    assert "pin map OK" in capsys.readouterr().out
    bad = copy.deepcopy(pm)
    _pin(bad, "BEAM3")["gpio"] = 2
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert cli.main(["device", "pinmap", "check", "--pinmap", str(path)]) == 1
    err = capsys.readouterr().err
    assert "GP2 already used by 'BEAM0'" in err and "Traceback" not in err


def test_cli_runs_as_a_process():
    # The `ring` entry point itself (argument parsing, exit status), once.
    proc = subprocess.run([sys.executable, "-m", "ringctl.cli", "device", "pinmap", "check"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_defaults_agree_with_the_firmware_config(pm):
    # The firmware validates /config.json with its own table; the pin map's defaults must
    # fit inside it (same key names, same ranges), or the board would refuse its defaults.
    from ringctl.fw import config, pins
    for key, d in pm["defaults"].items():
        assert config.check(key, d["value"]) == d["value"], key
        if key in config.SPEC:
            assert (d["min"], d["max"]) == tuple(config.SPEC[key][1:3]), key
        else:
            assert tuple(d["choices"]) == tuple(config.CHOICES[key]), key
    assert set(config.defaults(pins.DEFAULTS)) == set(pm["defaults"])
    assert config.defaults(pins.DEFAULTS) == {k: d["value"] for k, d in pm["defaults"].items()}


def test_beams_must_fail_broken_and_the_mat_must_fail_off(pm):
    # 7.3.1: a dark-ON beam (LOW = broken, pull-up) reads "clear" with its cable cut
    bad = copy.deepcopy(pm)
    _pin(bad, "BEAM4")["active"] = "low"
    _pin(bad, "BEAM6")["pull"] = None
    errs = pinmap.check(bad)
    assert any("BEAM4" in e and "not fail-safe" in e and "7.3.1" in e for e in errs), errs
    assert any("BEAM6" in e and "floats" in e for e in errs), errs
    # the same active-low beam with a pull-DOWN fails "broken" again: allowed (Pico only, E9)
    ok = copy.deepcopy(pm)
    ok["boards"] = [b for b in ok["boards"] if b["id"] == "pico"]
    _pin(ok, "BEAM4").update(active="low", pull="down")
    assert pinmap.check(ok) == []
    # 7.3.3: a mat that reads "on the mat" when its cable is cut
    bad = copy.deepcopy(pm)
    _pin(bad, "MAT")["active"] = "high"
    assert any("MAT" in e and "7.3.3" in e for e in pinmap.check(bad))


def test_input_levels_are_the_maps_choice_but_lamps_stay_active_high(pm):
    # board_pico reads pull + active level from pins.PINS: flipping WALL_TRIG is allowed,
    # a lamp driven active-low or a beam turned into an output is not
    moved = copy.deepcopy(pm)
    _pin(moved, "WALL_TRIG")["active"] = "low"
    assert pinmap.check(moved) == []
    assert "'WALL_TRIG': (WALL_TRIG, KIND_INPUT, PULL_UP, 1, 1)" in pinmap.generate_pins_py(moved)
    bad = copy.deepcopy(pm)
    _pin(bad, "LIGHT_AMBER")["active"] = "low"
    _pin(bad, "BEAM2")["kind"] = "output"
    errs = pinmap.check(bad)
    assert any("LIGHT_AMBER" in e and "light.py" in e for e in errs), errs
    assert any("BEAM2" in e and "input" in e for e in errs), errs


def test_committed_beams_are_light_on(pm):
    for i in range(8):
        p = _pin(pm, "BEAM%d" % i)
        assert (p["pull"], p["active"]) == ("up", "high"), p
        assert pinmap.cut_reads_active(p) is True


def test_input_protection_is_enforced(pm):
    # issue 18: 1M bleed decays slower than quiet_ms; the BAV99 clamp had no series
    # resistor; button and mat cables went straight to GPIOs
    bad = copy.deepcopy(pm)
    _pin(bad, "PIEZO0")["protection"]["bleed_ohm"] = 1000000
    del _pin(bad, "PIEZO1")["protection"]["series_ohm"]
    _pin(bad, "WALL")["protection"]["series_ohm"] = 1000
    del _pin(bad, "MAT")["protection"]
    _pin(bad, "BTN_ARM")["protection"]["tvs"] = ""
    errs = pinmap.check(bad)
    assert any("PIEZO0" in e and "quiet_ms" in e for e in errs), errs
    assert any("PIEZO1" in e and "series_ohm" in e for e in errs), errs
    assert any("WALL'" in e and "series_ohm 1000" in e for e in errs), errs
    assert any("'MAT'" in e and "straight to the GPIO" in e for e in errs), errs
    assert any("BTN_ARM" in e and "TVS" in e for e in errs), errs


def test_bom_matches_the_maps_protection_values(pm):
    import csv
    rows = {r["ref"]: r for r in csv.DictReader((pinmap.ROOT / "hardware" / "bom.csv").open())}
    prot = _pin(pm, "PIEZO0")["protection"]
    assert prot["bleed_ohm"] == 100000 and "100K" in rows["R-BLEED"]["part_number"]
    assert prot["series_ohm"] == 22000 and "22K" in rows["R-SER"]["part_number"]
    assert _pin(pm, "MAT")["protection"]["series_ohm"] == 1000 and \
        rows["R-CSER"]["part_number"].endswith("-1K")
    assert rows["TVS1-TVS3"]["part_number"] == _pin(pm, "BTN_NOSPIN")["protection"]["tvs"]
    for name in ("PIEZO0", "PIEZO1", "WALL"):
        assert "1M bleed" not in _pin(pm, name)["electrical"]
