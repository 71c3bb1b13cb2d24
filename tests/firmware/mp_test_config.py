# Board configuration: defaults from pins.py (pinmap), validation messages, save/load round trip, bad files.
import json
import mptest
import config
import fwrig


def test_defaults_come_from_the_pinmap():
    import pins
    d = config.defaults(pins.DEFAULTS)
    for k, v in pins.DEFAULTS.items():
        if k in d:
            assert d[k] == v, "%s: %r vs pinmap %r" % (k, d[k], v)
    assert d["quiet_ms"] == 1000


def test_validation_messages_name_the_fix():
    e = mptest.raises(ValueError, config.check, "quiet_ms", "50")
    assert "200..10000" in str(e), e
    e = mptest.raises(ValueError, config.check, "quiet_ms", "soon")
    assert "whole number" in str(e), e
    e = mptest.raises(ValueError, config.check, "quiet", "1")
    assert "unknown config key" in str(e) and "quiet_ms" in str(e), e
    e = mptest.raises(ValueError, config.check, "light_type", "neopixel")
    assert "stacklight" in str(e), e
    assert config.check("glitch_us", "250") == 250


def test_set_get_save_load_round_trip():
    d = fwrig.tmpdir("cfg")
    c = config.Config(d + "/config.json").load()
    assert c.set_text("quiet_ms=1500") == "quiet_ms=1500"
    assert c.get_text("quiet_ms") == "quiet_ms=1500"
    c2 = config.Config(d + "/config.json").load()
    assert c2.v["quiet_ms"] == 1500 and not c2.errors
    with open(d + "/config.json") as f:
        assert json.load(f) == {"quiet_ms": 1500}, "only changed keys are stored"


def test_cross_check_rest_below_impact():
    d = fwrig.tmpdir("cfg2")
    c = config.Config(d + "/config.json").load()
    e = mptest.raises(ValueError, c.set_text, "rest_threshold=7000")
    assert "below impact_threshold" in str(e), e
    assert c.v["rest_threshold"] == 1500, "refused value must not be applied"
    e = mptest.raises(ValueError, c.set_text, "quiet_ms")
    assert "key=value" in str(e)


def test_bad_file_keeps_defaults_and_reports():
    d = fwrig.tmpdir("cfg3")
    with open(d + "/config.json", "w") as f:
        f.write('{"quiet_ms": 5, "bogus": 1, "glitch_us": 200}')
    c = config.Config(d + "/config.json").load()
    assert c.v["quiet_ms"] == 1000 and c.v["glitch_us"] == 200
    assert len(c.errors) == 2, c.errors
    with open(d + "/config.json", "w") as f:
        f.write("{not json")
    c = config.Config(d + "/config.json").load()
    assert c.errors and "not valid JSON" in c.errors[0]


mptest.main(globals())
