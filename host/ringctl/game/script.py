"""Game scripts: one JSON op per line in, one JSON event per line out (`ring game replay`).

A script is validated whole before any op is applied (issue 14.10): a bad line -- not UTF-8,
not JSON, a duplicate key, an unknown or misspelled field, a number beyond the limits -- is
one error line naming the line and the field, and the script prints no events at all, so a
half-run script never leaves settlements behind. Rules refusals are not input errors: they
are `rejected` events in the output.
"""
import json
import shutil
import sys
import tempfile

from ..errors import UserError
from .engine import Engine, MalformedOp, check_op

MAX_LINE = 4096   # bytes in one script line; the longest real op is a few hundred


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _Duplicate("duplicate key %r" % key)
        seen[key] = value
    return seen


def _no_constant(name):
    raise ValueError("%s is not a number in a game script" % name)


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)


def parse_op(text, where):
    """One script line (str) -> a shape-checked op, or None for a blank or '#' comment line.
    Raises UserError("<where>: ...") for anything else."""
    text = text.strip()
    if not text or text.startswith("#"):
        return None
    if len(text) > MAX_LINE:
        raise UserError("%s: line longer than %d characters; write one op per line" % (where, MAX_LINE))
    try:
        op = _DECODER.decode(text)
    except _Duplicate as exc:
        raise UserError("%s: %s: each field once per op" % (where, exc))
    except RecursionError:
        raise UserError("%s: JSON nested too deeply; an op is one flat JSON object" % where)
    except ValueError as exc:
        raise UserError("%s: not valid JSON (%s); write one JSON object per line, "
                        "e.g. {\"op\": \"spin\", \"result\": \"heads\"}" % (where, exc))
    try:
        check_op(op)
    except MalformedOp as exc:
        raise UserError("%s: %s" % (where, exc))
    return op


def parse_lines(lines, source="script"):
    """-> [(line_no, op)] for text lines, every line checked; a bad line is a UserError."""
    ops = []
    for n, text in enumerate(lines, 1):
        op = parse_op(text, "%s line %d" % (source, n))
        if op is not None:
            ops.append((n, op))
    return ops


def replay(lines, source="script", engine=None):
    """Validate every line, then run the ops through an engine; yields event dicts (each with
    its input line)."""
    ops = parse_lines(lines, source)
    engine = engine or Engine()
    for n, op in ops:
        yield from engine.apply(op, line=n)


def _binary_lines(f, source):
    """(line_no, text) of a binary script file; one-line errors for bytes that are not text."""
    n = 0
    while True:
        raw = f.readline(MAX_LINE + 1)
        if not raw:
            return
        n += 1
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            raise UserError("%s line %d: line longer than %d bytes; write one op per line"
                            % (source, n, MAX_LINE))
        try:
            text = raw.decode("utf-8-sig" if n == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise UserError("%s line %d: not UTF-8 text (byte 0x%02x at column %d); save the "
                            "script as UTF-8" % (source, n, raw[exc.start], exc.start + 1))
        yield n, text


def replay_stream(f, out, source="script", engine=None):
    """Replay a seekable binary script file `f`, writing JSON event lines to `out`.

    Two passes (validate every line, then apply) keep memory to one line and the engine's
    open wagers however long the script is. -> number of events written."""
    for n, text in _binary_lines(f, source):
        parse_op(text, "%s line %d" % (source, n))
    f.seek(0)
    engine = engine or Engine()
    count = 0
    for n, text in _binary_lines(f, source):
        op = parse_op(text, "%s line %d" % (source, n))
        if op is None:
            continue
        for ev in engine.apply(op, line=n):
            out.write(json.dumps(ev) + "\n")
            count += 1
    return count


def replay_file(path, out):
    """Replay the script at `path` ('-': standard input), writing JSON lines to `out`."""
    if path == "-":
        with tempfile.TemporaryFile() as spool:
            shutil.copyfileobj(sys.stdin.buffer, spool)
            spool.seek(0)
            return replay_stream(spool, out, source="stdin")
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise UserError("cannot read game script %s: %s" % (path, exc.strerror or exc), code=1)
    with f:
        return replay_stream(f, out, source=str(path))
