# Board configuration: defaults (the pin map's, passed in), validation with clear errors, /config.json load/save.
# Shared with the host (ringctl.fw.config): stdlib only, and it imports no other shared module by
# bare name; the caller hands it pins.DEFAULTS (generated from hardware/pinmap.json).
import json

# key -> (built-in default, min, max, unit). Integers only: no floats on the fast paths.
SPEC = {
    "impact_threshold": (6000, 256, 65000, "adc counts above the noise floor = coin impact"),
    "rest_threshold": (1500, 64, 65000, "adc counts above the floor that still count as movement"),
    "quiet_ms": (1000, 200, 10000, "ms without movement after the last impact = at rest"),
    "wall_threshold": (8000, 256, 65000, "wall envelope above the floor = strike (7.3.2)"),
    "noise_floor_min": (16, 0, 4096, "self-test: a channel whose floor is below this is unplugged"),
    "glitch_us": (300, 0, 700, "beam breaks shorter than this are glitches, not coins (timed "
                  "in the beam IRQ: edge -> red lamp = glitch_us + ~0.1 ms)"),
    "debounce_ms": (20, 1, 500, "button / mat contact debounce"),
    "host_timeout_ms": (2000, 500, 10000, "host silent this long: disarm, LINK_LOST light"),
    "adc_period_us": (10000, 2000, 20000, "timer task period: piezo sampling, debounce "
                      "settle, spin timers"),
    "mat_settle_ms": (200, 0, 5000, "spinner on the mat this long while armed = in flight"),
    "use_mat": (1, 0, 1, "1: the spinner's mat gates in-flight and bars 7.3.3; 0: no mat fitted"),
    "blocked_ms": (2000, 100, 60000, "beam broken this long at idle = blocked/misaligned (fault)"),
    "heap_report_s": (30, 1, 3600, "seconds between EV_HEAP reports"),
}
CHOICES = {"light_type": ("stacklight", "none")}  # neopixel: not supported by this firmware
KEYS = tuple(sorted(list(SPEC) + list(CHOICES)))


def defaults(pin_defaults=None):
    """Every key's default: the pin map's (pins.DEFAULTS) where it has one, else the built-in."""
    pin_defaults = pin_defaults or {}
    d = {}
    for k, spec in SPEC.items():
        v = pin_defaults.get(k, spec[0])
        if isinstance(v, dict):
            v = v.get("value", spec[0])
        d[k] = int(v)
    for k, ch in CHOICES.items():
        v = pin_defaults.get(k, ch[0])
        d[k] = v if v in ch else ch[0]
    return d


def check(key, value):
    """-> the validated value, or raise ValueError('what is wrong; how to fix')."""
    if key in SPEC:
        lo, hi = SPEC[key][1], SPEC[key][2]
        try:
            v = int(value)
        except (TypeError, ValueError):
            raise ValueError("%s must be a whole number %d..%d, got %r" % (key, lo, hi, value))
        if isinstance(value, float) and value != v:
            raise ValueError("%s must be a whole number %d..%d, got %r" % (key, lo, hi, value))
        if not lo <= v <= hi:
            raise ValueError("%s=%d out of range; use %d..%d (%s)" % (key, v, lo, hi, SPEC[key][3]))
        return v
    if key in CHOICES:
        if value not in CHOICES[key]:
            raise ValueError("%s=%r not supported; use one of %s" % (key, value, ", ".join(CHOICES[key])))
        return value
    raise ValueError("unknown config key %r; known keys: %s" % (key, " ".join(KEYS)))


def cross_check(v):
    """Relations between keys; -> None or the error text."""
    if v["rest_threshold"] >= v["impact_threshold"]:
        return "rest_threshold (%d) must be below impact_threshold (%d)" % (
            v["rest_threshold"], v["impact_threshold"])
    return None


class Config:
    """Values in `.v` (a dict read by every task); `path` is /config.json on the board."""

    def __init__(self, path, pin_defaults=None):
        self.path = path
        self.pin_defaults = pin_defaults
        self.v = defaults(pin_defaults)
        self.errors = []   # problems found in the file at load (reported as EV_FAULT text)

    def load(self):
        """Read the file; bad or unknown entries are reported and the default is kept."""
        self.errors = []
        try:
            with open(self.path) as f:
                data = json.load(f)
        except OSError:
            return self          # no file: defaults
        except ValueError:
            self.errors.append("config.json is not valid JSON; using defaults")
            return self
        if not isinstance(data, dict):
            self.errors.append("config.json must be an object; using defaults")
            return self
        for k in data:
            try:
                self.v[k] = check(k, data[k])
            except ValueError as e:
                self.errors.append(str(e))
        err = cross_check(self.v)
        if err:
            self.errors.append(err + "; using defaults for both")
            d = defaults(self.pin_defaults)
            self.v["rest_threshold"] = d["rest_threshold"]
            self.v["impact_threshold"] = d["impact_threshold"]
        return self

    def get_text(self, key):
        """CMD_CONFIG_GET: 'key=value' (raises ValueError for an unknown key)."""
        if key not in self.v:
            check(key, None)   # raises the 'unknown key' message
        return "%s=%s" % (key, self.v[key])

    def set_text(self, text):
        """CMD_CONFIG_SET 'key=value': validate, apply, save. -> 'key=value' or ValueError."""
        if "=" not in text:
            raise ValueError("expected key=value, got %r" % text)
        key, _, raw = text.partition("=")
        key = key.strip()
        raw = raw.strip()
        value = check(key, raw if key in CHOICES else raw)
        trial = dict(self.v)
        trial[key] = value
        err = cross_check(trial)
        if err:
            raise ValueError(err)
        self.v[key] = value
        self.save()
        return "%s=%s" % (key, value)

    def save(self):
        d = defaults(self.pin_defaults)
        changed = {k: self.v[k] for k in self.v if self.v[k] != d.get(k)}
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(changed, f)
        try:
            import os
            os.rename(tmp, self.path)
        except OSError:
            pass
