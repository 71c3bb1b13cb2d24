"""`ring game replay`: the JSON-lines format in and out, and one-line errors for bad input."""
import json

import pytest

from ringctl.cli import main
from ringctl.errors import UserError
from ringctl.game.script import replay

SCRIPT = """\
{"op": "chips", "values": [1, 5, 25]}
{"op": "spinner", "calls": "heads"}
{"op": "bets-open"}
{"op": "bet", "id": "s", "on": "spinner", "amount": 10}

# a comment and a blank line above are skipped but still counted
{"op": "bet", "id": "b1", "on": "tails", "amount": 5}
{"op": "bets-closed"}
{"op": "withdraw", "id": "b1"}
{"op": "spin", "result": "heads"}
{"op": "bets-open"}
{"op": "bets-closed"}
{"op": "spin", "result": "heads"}
{"op": "bets-open"}
{"op": "bets-closed"}
{"op": "spin", "result": "heads"}
"""


def test_replay_prints_settled_and_rejected_lines(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text(SCRIPT)
    assert main(["game", "replay", str(path)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rejected = [e for e in out if e["event"] == "rejected"]
    assert [(e["line"], e["rule"]) for e in rejected] == [(9, "4.6")]
    assert rejected[0]["reason"]
    settled = [e for e in out if e["event"] == "settled"]
    assert [(e["bet"], e["outcome"], e["pays"]) for e in settled] == [("b1", "lose", 0), ("s", "win", 75)]


@pytest.mark.parametrize("line, needle", [
    ('{"op": "spin"', "not valid JSON"),
    ('{"op": "dance"}', "unknown op"),
    ('{"op": "spin", "result": "edge"}', "'result' must be one of"),
    ('{"op": "bet", "id": "x", "on": "heads"}', "needs field 'amount'"),
    ('{"op": "bet", "id": "x", "on": "heads", "amount": "10"}', "'amount' must be a number"),
    ('[1, 2]', "expected a JSON object"),
])
def test_malformed_line_is_one_line_error_naming_the_line(line, needle):
    with pytest.raises(UserError) as exc:
        list(replay(['{"op": "bets-open"}', line], source="g.jsonl"))
    assert str(exc.value).startswith("g.jsonl line 2: ")
    assert needle in str(exc.value)


def test_cli_malformed_script_exits_2_without_traceback(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"op": "bets-open"}\n{"op": "spin", "result": 3}\n')
    assert main(["game", "replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2" in err and "Traceback" not in err
    assert main(["game", "replay", str(tmp_path / "missing.jsonl")]) == 1


def test_cli_reads_stdin_and_checks_it_whole(monkeypatch, capsys):
    import io
    import sys
    good = b'{"op": "spinner", "by": "boxer"}\n{"op": "bets-open"}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(good)))
    assert main(["game", "replay", "-"]) == 0
    assert [json.loads(x)["event"] for x in capsys.readouterr().out.splitlines()] == ["spinner", "bets-open"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(good + b'{"op": "bets-open", "x": 1}\n')))
    assert main(["game", "replay", "-"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "stdin line 3" in err and "'x'" in err


def test_event_lines_are_json_objects_one_per_line_in_utf8(tmp_path, capsys):
    """Events are written as compact JSON, one object a line, UTF-8 (a name stays readable),
    and decode to exactly the engine's events."""
    from ringctl.game.engine import Engine
    ops = [{"op": "chips", "values": [0.5, 2], "max": 1000},
           {"op": "spinner", "calls": "heads", "name": "Jos\u00e9 \"Ace\""},
           {"op": "bets-open"}, {"op": "bet", "id": "s\u00df", "on": "spinner", "amount": 2.5},
           {"op": "bet", "id": "t", "on": "tails", "amount": 0.5}, {"op": "bets-closed"},
           {"op": "spin", "result": "tails"}, {"op": "withdraw", "id": "s\u00df"}]
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(json.dumps(op) for op in ops) + "\n")
    assert main(["game", "replay", str(path)]) == 0
    raw = capsys.readouterr().out
    eng = Engine()
    expected = [ev for n, op in enumerate(ops, 1) for ev in eng.apply(op, line=n)]
    assert [json.loads(line) for line in raw.splitlines()] == expected
    assert 'José \\"Ace\\"' in raw and "pays" in raw


def test_a_bad_last_line_prints_nothing_after_events_spilled_to_disk(tmp_path, capsys, monkeypatch):
    """Events wait in a spool file (on disk past _SPOOL_MEMORY) until the last line is read."""
    from ringctl.game import script
    monkeypatch.setattr(script, "_SPOOL_MEMORY", 256)
    monkeypatch.setattr(script, "_BLOCK", 64)      # lines cut across reads too
    good = SCRIPT * 20
    path = tmp_path / "g.jsonl"
    path.write_text(good)
    assert main(["game", "replay", str(path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) > 100
    bad_line = good.count("\n") + 1
    path.write_text(good + '{"op": "spin", "result": "heads", "amout": 5}\n')
    assert main(["game", "replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and ("line %d: " % bad_line) in err and "'amout'" in err


def test_the_first_bad_line_is_the_one_named(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    path.write_text('{"op": "bets-open"}\n{"op": "bets-open", "op": "spin"}\n' + "x" * 5000 + "\n")
    assert main(["game", "replay", str(path)]) == 2
    assert "line 2: duplicate key 'op'" in capsys.readouterr().err
    path.write_text('{"op": "bets-open"}\n' + " " * 5000 + '{"op": "spin"}')
    assert main(["game", "replay", str(path)]) == 2
    assert "line 2: line longer than 4096 bytes" in capsys.readouterr().err


@pytest.mark.parametrize("line, needle", [
    ('{"a":' + "[" * 4000, "nested too deeply"),
    ('{"a":' * 5000 + "1" + "}" * 5000, "longer than 4096"),
    ('{"op": "bets-open", "op": "bets-closed"}', "duplicate key 'op'"),
    ('{"op": "bet", "id": "x", "on": "heads", "amount": NaN}', "NaN is not a number"),
    ('{"op": "bets-open"} {"op": "bets-closed"}', "extra data"),
])
def test_boxer_console_json_errors_are_one_line(line, needle):
    """`ring run`'s console decodes a typed JSON line with the script's decoder: a bad one is a
    one-line error (the host refuses a shapeless op itself), never a traceback."""
    from ringctl.runner.cli import command_for
    with pytest.raises(UserError) as exc:
        command_for(line)
    assert needle in str(exc.value) and "\n" not in str(exc.value)
    assert command_for('{"op": "bets-open"}')[0] == {"cmd": "table", "op": {"op": "bets-open"}}


def test_parse_table_op_checks_the_shape():
    from ringctl.game.script import parse_table_op
    with pytest.raises(UserError, match="unknown field 'amount'"):
        parse_table_op('{"op": "withdraw", "id": "x", "amount": 5}')
    assert parse_table_op(' {"op": "withdraw", "id": "x"} ') == {"op": "withdraw", "id": "x"}


def test_replay_reads_a_stream_once_without_seeking():
    """A pipe cannot be read twice: the one-pass replay reads it once, in blocks."""
    import io
    from ringctl.game import script

    class Pipe:
        def __init__(self, data):
            self._data = io.BytesIO(data)
            self.reads = 0

        def read(self, n):
            self.reads += 1
            return self._data.read(n)

    data = SCRIPT.encode() * 3
    pipe = Pipe(data)
    out = io.StringIO()
    count = script.replay_stream(pipe, out, source="pipe")
    expected = list(replay(data.decode().splitlines()))
    assert count == len(expected) and [json.loads(x) for x in out.getvalue().splitlines()] == expected
    assert pipe.reads == 2      # one block and the end of the stream
