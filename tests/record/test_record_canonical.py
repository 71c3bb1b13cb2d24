"""The record encoding: RFC 8785 canonical JSON (the RFC's own examples), round trips, and
the hash covering every field a record has (boot_id and event_id included)."""
import json
import math

import pytest
from hypothesis import given, settings, strategies as st

from ringctl.fw import witness
from ringctl.record import canonical

# RFC 8785 appendix B (IEEE-754 -> ECMAScript number text) and section 3.2.3 examples
NUMBERS = [(0.0, "0"), (-0.0, "0"), (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
           (1e21, "1e+21"), (1e20, "100000000000000000000"), (9007199254740992.0, "9007199254740992"),
           (333333333.3333333, "333333333.3333333"), (1e-7, "1e-7"), (1e-6, "0.000001"),
           (4.5, "4.5"), (2e-3, "0.002"), (1e30, "1e+30"), (-1.5e-9, "-1.5e-9"), (295147905179352830000.0, "295147905179352830000"),
           (123.0, "123"), (-12.5, "-12.5"), (0.1, "0.1"), (1e23, "1e+23")]


@pytest.mark.parametrize("x, text", NUMBERS)
def test_numbers_as_ecmascript(x, text):
    assert canonical.jcs(x) == text
    assert float(json.loads(text)) == x


def test_rfc8785_strings_and_key_order():
    s = "\u20ac$\u000f\nA'B\"\\\\\"/"
    assert canonical.jcs(s) == '"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"'
    keys = {"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
            "1": "One", "\U0001f600": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}
    order = [k for k in json.loads(canonical.jcs(keys))]
    assert order == ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]  # UTF-16 order
    assert canonical.jcs({"b": [1, True, None], "a": "é"}) == '{"a":"é","b":[1,true,null]}'


@pytest.mark.parametrize("bad", [math.nan, math.inf, 2 ** 60, {1: "x"}, b"bytes"])
def test_no_canonical_form_is_refused(bad):
    with pytest.raises(ValueError):
        canonical.jcs(bad)


JSONS = st.recursive(st.none() | st.booleans() | st.integers(-2 ** 53, 2 ** 53)
                     | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
                     lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(), c, max_size=4),
                     max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(JSONS)
def test_canonical_text_round_trips(value):
    text = canonical.jcs(value)
    back = canonical.loads(text)
    assert canonical.jcs(back) == text
    assert back == value


def test_body_text_is_the_jcs_of_the_whole_record():
    data = {"x": 1.5, "name": "héllo"}
    parts = dict(v=2, kind="event", ts_us=1764502952123456, data=data, blob_sha256=None,
                 boot_id=7, event_id=3)
    assert canonical.body_text("event", 1764502952123456, canonical.jcs(data), None, 7, 3) == canonical.jcs(parts)


def test_every_field_is_hashed():
    base = ("event", 10, '{"a":1}', None, 7, 3)
    d0 = canonical.body_digest(*base)
    for i, other in enumerate(["spin", 11, '{"a":2}', "ab" * 32, 8, 4]):
        changed = list(base)
        changed[i] = other
        assert canonical.body_digest(*changed) != d0, "field %d is not covered by the hash" % i


def test_host_chain_is_the_boards():
    d = canonical.body_digest("op", 1, "{}", None, None, None)
    assert canonical.chain("00" * 32, d) == witness.extend(bytes(32), d).hex()


def test_numpy_floats_are_plain_json_numbers():
    """The camera's verdicts carry numpy float64 coordinates: they must encode as numbers
    (numpy 2's repr is "np.float64(1.5)", which is not JSON)."""
    import numpy as np
    from ringctl.record import canonical
    text = canonical.jcs({"center": [np.float64(562.5), np.float64(1011.7)]})
    assert text == '{"center":[562.5,1011.7]}'
    assert canonical.jcs(canonical.loads(text)) == text
