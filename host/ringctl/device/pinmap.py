"""Pin map: load hardware/pinmap.json, check it against the boards' silicon, generate pins.py.

The pin map is the single source of truth for the ring board's wiring. `check()` lists
every problem (pin used twice, a function on a pin that cannot do it, bad defaults);
`generate_pins_py()` renders firmware/lib/pins.py; `stale_outputs()` says which committed
generated files no longer match the map (the firmware build refuses to run then).
"""
import hashlib
import json
import keyword
import re
from pathlib import Path

from ..errors import UserError

ROOT = Path(__file__).resolve().parents[3]
PINMAP_PATH = ROOT / "hardware" / "pinmap.json"
PINS_PY_PATH = ROOT / "firmware" / "lib" / "pins.py"
SVG_PATH = ROOT / "hardware" / "wiring.svg"

# ---- what the silicon and the board can do (datasheets: Pico, Pico 2, RP2040, RP2350) ----
# Both boards: GPIO 0..29 exist; GP23 (SMPS mode), GP24 (VBUS sense), GP25 (LED) and
# GP29 (VSYS/3 on ADC3) are wired on the board itself and are not on the header.
# ADC: GPIO26..29 = ADC0..3 on RP2040 and on RP2350A (QFN-60, the Pico 2's chip).
_COMMON = {
    "gpios": set(range(30)),
    "internal": {23: "SMPS power-save", 24: "VBUS sense", 25: "on-board LED",
                 29: "VSYS/3 sense (ADC3)"},
    "led": 25,
    "adc": {26: 0, 27: 1, 28: 2, 29: 3},
}
BOARD_CAPS = {
    "pico": dict(_COMMON, mcu="RP2040", pulldown_ok=True),
    # RP2350 erratum E9: an input with the internal pull-down can latch at ~2.2 V.
    "pico2": dict(_COMMON, mcu="RP2350A", pulldown_ok=False),
}
KINDS = ("input", "output", "adc", "led")
# board_pico.py / board_sim.py take pull and active level of every input from pins.PINS, so
# the map may change them; what it may not change is the kind, and the lamp outputs (light.py
# writes 1 = on; the MOSFET gate pull-down keeps them off while the board boots).
_FIRMWARE_KINDS = {"BEAM#": "input", "BTN_NOSPIN": "input", "BTN_ARM": "input", "MAT": "input",
                   "WALL_TRIG": "input"}
_OUTPUTS_HIGH = ("LIGHT_RED", "LIGHT_AMBER", "LIGHT_GREEN", "BUZZER")
# Which way an input must read when its cable is cut (the pin then sits at its pull level):
# a beam must read "broken" (7.3.1: a dead or unplugged receiver must bar and show in the
# self-test, never read "clear"); the mat must read "off the mat" (7.3.3: bars, never lets a
# spin through). Buttons: a cut NO contact reads "not pressed" (covered by the doctor's
# button test); no rule is forced here.
_FAILSAFE = {"beam": (True, "broken", "7.3.1: a cut cable or dead receiver would read 'clear' "
                      "and the ring would never bar a boundary crossing; wire the receivers "
                      "light-ON and set active 'high' with pull 'up'"),
             "mat": (False, "on the mat", "7.3.3: a cut mat cable would read 'spinner on the "
                     "mat'; use a contact that closes when stood on, active 'low', pull 'up'")}
PULLS = ("up", "down", None)

# Pico / Pico 2 40-pin header (same on both): physical pin -> label.
HEADER = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND",
    9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
    16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15", 21: "GP16", 22: "GP17",
    23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND", 29: "GP22",
    30: "RUN", 31: "GP26", 32: "GP27", 33: "AGND", 34: "GP28", 35: "ADC_VREF",
    36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}
GPIO_TO_PHYS = {int(v[2:]): k for k, v in HEADER.items() if v.startswith("GP")}


def load(path=None):
    """Read the pin map JSON -> dict. UserError if missing or not JSON."""
    p = Path(path) if path else PINMAP_PATH
    try:
        return json.loads(p.read_text())
    except FileNotFoundError:
        raise UserError(f"pin map {p} not found; pass --pinmap or restore hardware/pinmap.json")
    except IsADirectoryError:
        raise UserError(f"pin map {p} is a folder; pass --pinmap FILE (hardware/pinmap.json)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read pin map {p} ({getattr(exc, 'strerror', None) or exc}); "
                        "pass --pinmap FILE (hardware/pinmap.json)") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"pin map {p} is not valid JSON ({exc}); fix the file") from None


def canonical_hash(pm):
    """sha256 of the map's canonical JSON: whitespace edits do not change it."""
    blob = json.dumps(pm, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()


def check(pm):
    """Every problem in the pin map as a list of one-line strings (empty = good)."""
    errs = []
    boards = [b.get("id") for b in pm.get("boards", [])]
    if not boards:
        errs.append("no boards listed; add {'id': 'pico'} and/or {'id': 'pico2'}")
    for b in boards:
        if b not in BOARD_CAPS:
            errs.append(f"unknown board '{b}'; known: {', '.join(BOARD_CAPS)}")
    caps = [BOARD_CAPS[b] for b in boards if b in BOARD_CAPS]
    pins = pm.get("pins")
    if not isinstance(pins, list) or not pins:
        return errs + ["'pins' must be a non-empty list"]
    by_gpio, by_name, by_adc, by_slot = {}, {}, {}, {}
    for i, p in enumerate(pins):
        name = p.get("name")
        where = f"pin '{name}'" if name else f"pins[{i}]"
        if not isinstance(name, str) or not re.fullmatch(r"[A-Z][A-Z0-9_]*", name) \
                or keyword.iskeyword(name):
            errs.append(f"{where}: name must be an UPPER_CASE identifier")
        elif name in by_name:
            errs.append(f"{where}: name used twice")
        by_name[name] = p
        gpio, kind = p.get("gpio"), p.get("kind")
        if not isinstance(gpio, int) or isinstance(gpio, bool):
            errs.append(f"{where}: gpio must be an integer")
            continue
        if gpio in by_gpio:
            errs.append(f"{where}: GP{gpio} already used by '{by_gpio[gpio]}' (pin used twice)")
        else:
            by_gpio[gpio] = name
        if kind not in KINDS:
            errs.append(f"{where}: kind '{kind}' unknown; use one of {', '.join(KINDS)}")
            continue
        for b, cap in zip(boards, caps):
            if gpio not in cap["gpios"]:
                errs.append(f"{where}: GP{gpio} does not exist on {b} ({cap['mcu']})")
                continue
            if kind == "led":
                if gpio != cap["led"]:
                    errs.append(f"{where}: the on-board LED is GP{cap['led']} on {b}, not GP{gpio}")
            elif gpio in cap["internal"]:
                errs.append(f"{where}: GP{gpio} is internal on {b} ({cap['internal'][gpio]}), "
                            "not on the header; pick a free header GPIO")
            if kind == "adc" and gpio not in cap["adc"]:
                errs.append(f"{where}: GP{gpio} cannot do ADC on {b} ({cap['mcu']}); "
                            "ADC is only on GP26, GP27, GP28")
            if kind == "adc" and gpio in cap["adc"] and p.get("adc") != cap["adc"][gpio]:
                errs.append(f"{where}: GP{gpio} is ADC{cap['adc'][gpio]}, "
                            f"but the map says adc={p.get('adc')}")
            if kind == "input" and p.get("pull") == "down" and not cap["pulldown_ok"]:
                errs.append(f"{where}: internal pull-down on {b} latches (RP2350 erratum E9); "
                            "use a pull-up, or pull none plus an external 4.7k pull-down")
        if kind == "adc" and p.get("adc") in by_adc:
            errs.append(f"{where}: ADC{p.get('adc')} already used by '{by_adc[p['adc']]}'")
        if kind == "adc":
            by_adc[p.get("adc")] = name
        if kind == "input":
            if p.get("pull") not in PULLS:
                errs.append(f"{where}: pull must be 'up', 'down' or null")
        elif "pull" in p or p.get("irq"):
            errs.append(f"{where}: pull/irq only apply to kind 'input'")
        if kind in ("input", "output", "led") and p.get("active") not in ("low", "high"):
            errs.append(f"{where}: active must be 'low' or 'high'")
        slot = (p.get("group"), p.get("index"))
        if not isinstance(slot[0], str) or not isinstance(slot[1], int):
            errs.append(f"{where}: needs 'group' (string) and 'index' (integer)")
        elif slot in by_slot:
            errs.append(f"{where}: {slot[0]}[{slot[1]}] already taken by '{by_slot[slot]}'")
        else:
            by_slot[slot] = name
    # The firmware's fixed expectations (agreed names; ringmsg FAULT_BEAM = 8 sectors).
    for need in ["BEAM%d" % n for n in range(8)] + ["BTN_NOSPIN", "BTN_ARM", "MAT",
                                                    "WALL_TRIG", "WALL", "PIEZO0"]:
        if need not in by_name:
            errs.append(f"pin '{need}' is missing; the firmware needs it")
    for name, p in by_name.items():
        if not isinstance(p, dict):
            continue
        key = re.sub(r"\d+$", "#", name) if name.startswith("BEAM") else name
        want = _FIRMWARE_KINDS.get(key)
        if want and p.get("kind") != want:
            errs.append(f"pin '{name}': the firmware reads it as an {want}; keep kind '{want}'")
        if name in _OUTPUTS_HIGH and (p.get("kind"), p.get("active")) != ("output", "high"):
            errs.append(f"pin '{name}': the light driver (light.py) writes 1 = lamp on; keep "
                        "kind 'output', active 'high'")
        errs += _failsafe_errors(where=f"pin '{name}'", p=p)
        errs += _protection_errors(f"pin '{name}'", p, pm.get("defaults"))
    errs += _check_defaults(pm.get("defaults"))
    return errs


# Input protection the board needs (issue 18). Piezo inputs: a struck disc makes tens of volts;
# the BAV99 clamp needs a series resistor to limit its current, and the envelope's bleed sets
# how fast the reading falls back to the floor (at most quiet_ms / 5, or "at rest" comes late).
# Contacts on long cables (buttons, mat): series resistor + TVS before the GPIO.
PIEZO_SERIES_OHM = (10000, 47000)
CONTACT_SERIES_OHM = (470, 2200)
ENVELOPE_GROUPS = ("piezo", "wall")
CONTACT_GROUPS = ("button", "mat")


def _protection_errors(where, p, defaults):
    g = p.get("group")
    prot = p.get("protection")
    if p.get("kind") == "adc" and g in ENVELOPE_GROUPS:
        if not isinstance(prot, dict):
            return [f"{where}: needs 'protection' (series_ohm, clamp, hold_uf, bleed_ohm)"]
        errs = []
        lo, hi = PIEZO_SERIES_OHM
        r = prot.get("series_ohm")
        if not isinstance(r, int) or not lo <= r <= hi:
            errs.append(f"{where}: series_ohm {r} before the clamp; use {lo // 1000}k.."
                        f"{hi // 1000}k (limits the clamp current of a struck disc)")
        if not prot.get("clamp"):
            errs.append(f"{where}: no input clamp; fit a BAV99 to 0 V / 3V3")
        bleed, hold = prot.get("bleed_ohm"), prot.get("hold_uf")
        quiet = (defaults or {}).get("quiet_ms", {}).get("value", 1000)
        if not isinstance(bleed, int) or not isinstance(hold, (int, float)) or hold <= 0:
            errs.append(f"{where}: needs bleed_ohm and hold_uf (the envelope's decay)")
        elif bleed * hold / 1000 * 5 > quiet:
            errs.append(f"{where}: bleed {bleed} ohm x {hold} uF = {bleed * hold / 1000:.0f} ms "
                        f"time constant; it must be <= quiet_ms/5 = {quiet / 5:.0f} ms or the "
                        "envelope decays after quiet_ms (late 'at rest'); use 100k with 1 uF")
        return errs
    if p.get("kind") == "input" and g in CONTACT_GROUPS:
        if not isinstance(prot, dict):
            return [f"{where}: needs 'protection' (series_ohm, tvs): a long contact cable "
                    "goes straight to the GPIO"]
        errs = []
        lo, hi = CONTACT_SERIES_OHM
        r = prot.get("series_ohm")
        if not isinstance(r, int) or not lo <= r <= hi:
            errs.append(f"{where}: series_ohm {r}; use {lo}..{hi} (1k) before the GPIO")
        if not prot.get("tvs"):
            errs.append(f"{where}: no TVS; fit a 3.3 V TVS to GND at the board end")
        return errs
    return []


def cut_reads_active(p):
    """True if an input whose cable is cut (pin left at its pull level) reads active;
    None when it has no pull (floating: undefined)."""
    idle = {"up": "high", "down": "low"}.get(p.get("pull"))
    return None if idle is None else idle == p.get("active")


def _failsafe_errors(where, p):
    rule = _FAILSAFE.get(p.get("group"))
    if rule is None or p.get("kind") != "input":
        return []
    must, what, why = rule
    got = cut_reads_active(p)
    if got is None:
        return [f"{where}: no pull, so a cut cable floats and may read '{what}' or not ({why})"]
    if got != must:
        return [f"{where}: not fail-safe: a cut cable reads "
                f"{'' if got else 'not '}'{what}' ({why})"]
    return []


def _check_defaults(defaults):
    errs = []
    if not isinstance(defaults, dict):
        return ["'defaults' must be an object of {name: {value: ...}}"]
    for key, d in defaults.items():
        if not re.fullmatch(r"[a-z][a-z0-9_]*", key):
            errs.append(f"default '{key}': name must be lower_case")
        if not isinstance(d, dict) or "value" not in d:
            errs.append(f"default '{key}': needs a 'value'")
            continue
        v = d["value"]
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            errs.append(f"default '{key}': value must be an integer or a string "
                        "(no floats: the firmware avoids them)")
        elif isinstance(v, int) and not d.get("min", v) <= v <= d.get("max", v):
            errs.append(f"default '{key}': {v} outside {d.get('min')}..{d.get('max')}")
        elif isinstance(v, str) and "choices" in d and v not in d["choices"]:
            errs.append(f"default '{key}': '{v}' not one of {d['choices']}")
    return errs


def check_or_raise(pm):
    errs = check(pm)
    if errs:
        raise UserError("pin map has %d problem(s): %s" % (len(errs), "; ".join(errs)), code=1)


def pins_sorted(pm):
    return sorted(pm["pins"], key=lambda p: (p["group"], p["index"]))


SELECTOR = re.compile(r"selector\s+(\w+)\s*\(([^)]*)\)")


def wiring(pm, name, _seen=()):
    """Pin `name`'s "electrical" text from the pin map, following "as BEAM0" to the pin it
    names: the wiring a technician checks, in the pin map's own words."""
    for p in pm.get("pins", []):
        if p.get("name") == name:
            text = (p.get("electrical") or "").strip()
            same = re.match(r"as ([A-Z][A-Z0-9_]*)\b", text)
            if same and same.group(1) not in _seen:
                rest = text[same.end():].strip()
                return wiring(pm, same.group(1), _seen + (name,)) + (" " + rest if rest else "")
            return text or "see the pin map's 'electrical' field for %s" % name
    return "see the pin map for %s" % name


def wiring_words(pm, name, _seen=()):
    """How pin `name`'s sensor must be set, in the pin map's own words: its receiver's
    operation selector ("selector on L (light-ON)") taken from the pin's "electrical" text,
    else that text itself. The doctor's advice quotes this, never a word of its own."""
    for p in pm.get("pins", []):
        if p.get("name") == name:
            text = p.get("electrical") or ""
            same = re.fullmatch(r"as ([A-Z][A-Z0-9_]*)", text.strip())
            if same and same.group(1) not in _seen:     # "as BEAM0": the same wiring
                return wiring_words(pm, same.group(1), _seen + (name,))
            m = SELECTOR.search(text)
            if m:
                return "selector on %s (%s)" % m.groups()
            return text or "as the pin map's 'electrical' field for %s says" % name
    return "as the pin map says for %s" % name


def group(pm, name):
    return [p for p in pins_sorted(pm) if p["group"] == name]


def generate_pins_py(pm):
    """Render firmware/lib/pins.py (MicroPython ∩ CPython, stdlib only)."""
    check_or_raise(pm)
    mp = pm.get("micropython", {})
    boards = tuple(b["micropython_board"] for b in pm["boards"])
    L = [
        "# Ring board pins and firmware defaults. GENERATED from hardware/pinmap.json by",
        "# `ring device pinmap generate`: never edit by hand (a test fails if this file is stale).",
        "# MicroPython/CPython common subset, stdlib only; the host imports it as ringctl.fw.pins.",
        "try:",
        "    from micropython import const",
        "except ImportError:  # CPython",
        "    def const(x):",
        "        return x",
        "",
        "PINMAP_SHA256 = %r" % canonical_hash(pm),
        "BOARDS = %r" % (boards,),
        "MICROPYTHON = %r" % mp.get("version", ""),
        "",
        "# kind / pull codes used in PINS",
        "KIND_INPUT = const(0)",
        "KIND_OUTPUT = const(1)",
        "KIND_ADC = const(2)",
        "KIND_LED = const(3)",
        "PULL_NONE = const(0)",
        "PULL_UP = const(1)",
        "PULL_DOWN = const(2)",
        "",
        "# ---- GPIO numbers ----",
    ]
    for p in pins_sorted(pm):
        L.append("%s = const(%d)  # %s" % (p["name"], p["gpio"], p["role"]))
        if p["kind"] == "adc":
            L.append("%s_ADC = const(%d)" % (p["name"], p["adc"]))
    L += ["", "# ---- groups, in index order ----"]
    groups = sorted({p["group"] for p in pm["pins"]})
    for g in groups:
        names = [p["name"] for p in group(pm, g)]
        L.append("%s = (%s%s)" % (g.upper() + "_PINS", ", ".join(names),
                                   "," if len(names) == 1 else ""))
    L += [
        "",
        "# name -> (gpio, kind, pull, active_low, irq)",
        "PINS = {",
    ]
    kinds = {"input": "KIND_INPUT", "output": "KIND_OUTPUT", "adc": "KIND_ADC", "led": "KIND_LED"}
    pulls = {"up": "PULL_UP", "down": "PULL_DOWN", None: "PULL_NONE"}
    for p in pins_sorted(pm):
        L.append("    %r: (%s, %s, %s, %d, %d)," % (
            p["name"], p["name"], kinds[p["kind"]], pulls[p.get("pull")],
            1 if p.get("active") == "low" else 0, 1 if p.get("irq") else 0))
    L += ["}", "", "# firmware configuration defaults (board /config.json overrides them)",
          "DEFAULTS = {"]
    for key in sorted(pm["defaults"]):
        d = pm["defaults"][key]
        L.append("    %r: %r,  # %s%s" % (key, d["value"], d.get("unit", "") + ": " if d.get("unit")
                                         else "", d.get("why", "")))
    L += ["}", ""]
    return "\n".join(L)


def stale_outputs(pm):
    """Generated files whose committed text differs from a fresh generation -> [paths]."""
    from . import wiring  # local: the SVG writer is only needed here
    stale = []
    for path, text in ((PINS_PY_PATH, generate_pins_py(pm)), (SVG_PATH, wiring.render_svg(pm))):
        if not path.exists() or path.read_text() != text:
            stale.append(path)
    return stale


def write_outputs(pm):
    """Regenerate pins.py and the wiring SVG -> [paths written]."""
    from . import wiring
    out = []
    for path, text in ((PINS_PY_PATH, generate_pins_py(pm)), (SVG_PATH, wiring.render_svg(pm))):
        path.write_text(text)
        out.append(path)
    return out
