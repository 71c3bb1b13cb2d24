"""Fuzzing `ring game replay`: random bytes and random JSON per line give events or one
UserError line (exit 2), never a traceback. A few thousand cases here, 100,000+ under
`make soak` (the slow marker)."""
import io
import json
import random

import pytest

from ringctl.errors import UserError
from ringctl.game.engine import FIELDS, OPS
from ringctl.game.script import replay, replay_stream

GOOD = {
    "values": [[1], [1, 5, 25], [5, 25], [0.5, 2], [9973, 19945], [3, 5, 7]],
    "max": [100, 5000],
    "calls": ["heads", "tails"],
    "by": ["boxer", "dealer", "player"],
    "name": ["Ada", "José", "Jose\u0301 ", "BO"],
    "id": ["a", "b", "s", "t"],
    "on": ["spinner", "heads", "tails"],
    "amount": [1, 2, 5, 10, 25, 7.5, 0.5],
    "result": ["heads", "tails", "odds", "odds", "no-spin"],
}
FIELD_NAMES = sorted(GOOD) + ["nmae", "amout", "op", "", "\u0000", "x" * 70]


def odd_value(rnd, depth=0):
    """Any JSON value, biased to the awkward: huge, tiny, negative, non-finite-looking,
    deep, empty, unicode, wrong types."""
    k = rnd.randrange(14)
    if k == 0:
        return rnd.choice([10 ** 400, -(10 ** 30), 10 ** 12, 10 ** 12 - 1, 0, -1, 2 ** 63])
    if k == 1:
        return rnd.choice([1e308, 1e-300, -0.0, 0.1 + 0.2, 123456789012.5, 1e-4, 1e-5])
    if k == 2:
        return rnd.choice([True, False, None])
    if k == 3:
        return "".join(chr(rnd.randrange(0, 0x3000)) for _ in range(rnd.randrange(0, 8)))
    if k == 4:
        return rnd.choice(["", " ", "heads ", "HEADS", "spinner", "a" * 65, "\u200b"])
    if k == 5 and depth < 3:
        return [odd_value(rnd, depth + 1) for _ in range(rnd.randrange(0, 4))]
    if k == 6 and depth < 3:
        return {rnd.choice(FIELD_NAMES): odd_value(rnd, depth + 1) for _ in range(rnd.randrange(0, 3))}
    if k == 7:
        return [rnd.choice([1, 5, 25, 0.5, 9973, 7, 11, 13, 17, 19, 23]) for _ in range(rnd.randrange(1, 12))]
    field = rnd.choice(sorted(GOOD))
    return rnd.choice(GOOD[field])


def json_line(rnd):
    """A JSON op line: mostly well formed (so play goes deep), often subtly wrong."""
    name = rnd.choice(OPS) if rnd.random() < 0.99 else odd_value(rnd)
    op = {"op": name}
    required, optional = FIELDS.get(name, ((), ())) if isinstance(name, str) else ((), ())
    for field in required + tuple(f for f in optional if rnd.random() < 0.5):
        op[field] = rnd.choice(GOOD[field])
    if rnd.random() < 0.04:
        op[rnd.choice(FIELD_NAMES)] = odd_value(rnd)
    if rnd.random() < 0.03 and len(op) > 1:
        op.pop(rnd.choice(sorted(op)))
    text = json.dumps(op, ensure_ascii=rnd.random() < 0.5)
    if rnd.random() < 0.02:
        text = text[:-1] + ', "op": "spin"}'         # duplicate key
    if rnd.random() < 0.01:
        text = text[:rnd.randrange(1, len(text))]    # truncated
    return text.encode("utf-8")


def byte_line(rnd):
    k = rnd.randrange(6)
    if k == 0:
        return bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 40)))
    if k == 1:
        return rnd.choice([b"[" * 5000, b"{\"a\":" * 3000, b"\xef\xbb\xbf{}", b"\xff", b"#\xff",
                           b"1" * 5000, b"NaN", b"-Infinity", b"\x00"])
    if k == 2:
        line = bytearray(json_line(rnd)) or bytearray(b"{")
        for _ in range(rnd.randrange(1, 4)):
            line[rnd.randrange(len(line))] = rnd.randrange(256)
        return bytes(line)
    return json_line(rnd)


def one_case(rnd, make_line):
    lines = [make_line(rnd) for _ in range(rnd.randrange(1, 12))]
    if rnd.random() < 0.5:    # a table set up first, so later lines reach the rules
        lines = [b'{"op": "spinner", "calls": "heads"}', b'{"op": "bets-open"}',
                 b'{"op": "bet", "id": "s", "on": "spinner", "amount": 5}'] + lines
    out = io.StringIO()
    try:
        replay_stream(io.BytesIO(b"\n".join(lines)), out, source="fuzz")
    except UserError as exc:
        msg = str(exc)
        assert msg.startswith("fuzz line ") and "\n" not in msg and len(msg) < 400, msg
        assert exc.code == 2
        assert out.getvalue() == ""      # validate first: nothing printed
        return "error"
    for text in out.getvalue().splitlines():
        ev = json.loads(text)
        assert ev["event"] != "rejected" or ev["rule"] and ev["reason"]
    return "ran"


def fuzz(cases, seed):
    rnd = random.Random(seed)
    seen = {"error": 0, "ran": 0}
    for i in range(cases):
        seen[one_case(rnd, json_line if i % 2 else byte_line)] += 1
    # Both ways out must be common, or the fuzzing is not reaching the engine.
    assert seen["error"] > cases // 10 and seen["ran"] > cases // 10, seen
    return seen


def test_fuzz_replay_never_tracebacks():
    fuzz(3000, seed=14)


@pytest.mark.slow
def test_fuzz_replay_soak():
    fuzz(120_000, seed=1414)


def strict_outcome(lines):
    """What the strict path (standard-library decoder with duplicate-key hook, every line
    checked before any is applied) makes of a script: its events or its error line."""
    try:
        texts = [raw.decode("utf-8-sig" if i == 0 else "utf-8") for i, raw in enumerate(lines)]
    except UnicodeDecodeError:
        return None
    try:
        return list(replay(texts, source="fuzz"))
    except UserError as exc:
        return str(exc)


def fast_outcome(lines):
    out = io.StringIO()
    try:
        replay_stream(io.BytesIO(b"\n".join(lines)), out, source="fuzz")
    except UserError as exc:
        assert out.getvalue() == ""
        return str(exc)
    return [json.loads(text) for text in out.getvalue().splitlines()]


def compact(line):
    """The same op written without spaces, as other tools write JSON lines."""
    try:
        return json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False).encode()
    except (ValueError, RecursionError):
        return line


def test_one_pass_replay_agrees_with_the_strict_path():
    """The replay's fast path (orjson, colon count, check_op's short tests) yields exactly the
    strict path's events -- and, for a bad script, its error line -- on random scripts, duplicate
    keys, compact JSON and odd values included."""
    rnd = random.Random(1414)
    kinds = {"same events": 0, "same error": 0}
    for i in range(1500):
        make = byte_line if i % 3 == 0 else json_line
        lines = [make(rnd) for _ in range(rnd.randrange(1, 12))]
        if rnd.random() < 0.3:
            lines = [compact(line) for line in lines]
        if rnd.random() < 0.5:
            lines = [b'{"op": "spinner", "calls": "heads"}', b'{"op": "bets-open"}',
                     b'{"op": "bet", "id": "s", "on": "spinner", "amount": 5}'] + lines
        if any(len(line) > 4096 for line in lines):
            continue     # strict path counts characters, the file reader bytes: both refuse
        strict = strict_outcome(lines)
        if strict is None:
            continue
        assert fast_outcome(lines) == strict, lines
        kinds["same error" if isinstance(strict, str) else "same events"] += 1
    assert min(kinds.values()) > 200, kinds


def test_check_op_short_tests_accept_exactly_what_the_strict_check_accepts():
    from ringctl.game.engine import MalformedOp, _check_op_strict, check_op
    rnd = random.Random(14)
    accepted = 0
    for _ in range(20000):
        try:
            op = json.loads(json_line(rnd).decode()) if rnd.random() < 0.9 else odd_value(rnd)
        except ValueError:
            continue     # a truncated line: not an op at all
        if isinstance(op, dict) and rnd.random() < 0.3:
            op[rnd.choice(["id", "amount", "on", "result"])] = odd_value(rnd)
        try:
            strict = _check_op_strict(op)
        except MalformedOp as exc:
            strict = "error: %s" % exc
        except RecursionError:
            continue
        try:
            fast = check_op(op)
        except MalformedOp as exc:
            fast = "error: %s" % exc
        assert fast == strict, op
        accepted += not strict.startswith("error")
    assert accepted > 5000
