"""Game scripts: one JSON op per line in, one JSON event per line out (`ring game replay`).

A script is validated whole before any op is applied (issue 14.10): a bad line -- not UTF-8,
not JSON, a duplicate key, an unknown or misspelled field, a number beyond the limits -- is
one error line naming the line and the field, and the script prints no events at all, so a
half-run script never leaves settlements behind. Rules refusals are not input errors: they
are `rejected` events in the output.
"""
import json
import json.encoder
import shutil
from array import array
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


def _no_default(value):
    raise TypeError("not JSON: %r" % (value,))


def _event_encoder():
    """-> event dict -> JSON text, as json.dumps writes it. The C encoder is made once here:
    json.dumps builds a new one per call, which was half the cost of a replay's output."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.JSONEncoder().encode
    encode = make(None, _no_default, json.encoder.encode_basestring_ascii, None, ": ", ", ",
                  False, False, True)
    return lambda ev: "".join(encode(ev, 0))


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
_PLAIN = json.JSONDecoder()


def parse_op(text, source, n):
    """Script line `n` (str) -> a shape-checked op, or None for a blank or '#' comment line.
    Raises UserError("<source> line <n>: ...") for anything else."""
    text = text.strip()
    if not text or text[0] == "#":
        return None
    try:
        return parse_table_op(text)
    except UserError as exc:
        raise UserError("%s line %d: %s" % (source, n, exc))


def parse_table_op(text):
    """One JSON table op (a script line) -> a shape-checked op dict; anything else is a
    one-line UserError naming the problem."""
    op = decode_json_line(text)
    try:
        check_op(op)
    except MalformedOp as exc:
        raise UserError(str(exc))
    return op


def decode_json_line(text):
    """One line of JSON (a script line, or typed at `ring run`'s console) -> the value; a line
    too long, not JSON, nested too deep, with NaN/Infinity or a duplicate key is a one-line
    UserError."""
    text = text.strip()
    if len(text) > MAX_LINE:
        raise UserError("line longer than %d characters; write one op per line" % MAX_LINE)
    try:
        value, end = _DECODER.raw_decode(text)
        if end != len(text):
            raise ValueError("extra data after the object at column %d" % (end + 1))
    except _Duplicate as exc:
        raise UserError("%s: each field once per op" % exc)
    except RecursionError:
        raise UserError("JSON nested too deeply; an op is one flat JSON object")
    except ValueError as exc:
        raise UserError("not valid JSON (%s); write one JSON object per line, "
                        "e.g. {\"op\": \"spin\", \"result\": \"heads\"}" % exc)
    return value


def parse_lines(lines, source="script"):
    """-> [(line_no, op)] for text lines, every line checked; a bad line is a UserError."""
    ops = []
    for n, text in enumerate(lines, 1):
        op = parse_op(text, source, n)
        if op is not None:
            ops.append((n, op))
    return ops


def replay(lines, source="script", engine=None):
    """Validate every line, then run the ops through an engine; yields event dicts (each with
    its input line)."""
    ops = parse_lines(lines, source)
    engine = engine or Engine()
    for n, op in ops:
        yield from engine.apply(op, line=n, checked=True)


def _binary_lines(f, source):
    """(line_no, raw bytes, text) of a binary script file; one-line errors for bytes that are
    not text."""
    n = 0
    readline = f.readline
    while True:
        raw = readline(MAX_LINE + 1)
        if not raw:
            return
        n += 1
        if len(raw) > MAX_LINE and raw[-1:] != b"\n":
            raise UserError("%s line %d: line longer than %d bytes; write one op per line"
                            % (source, n, MAX_LINE))
        try:
            text = raw.decode("utf-8-sig" if n == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise UserError("%s line %d: not UTF-8 text (byte 0x%02x at column %d); save the "
                            "script as UTF-8" % (source, n, raw[exc.start], exc.start + 1))
        yield n, raw, text


def replay_stream(f, out, source="script", engine=None):
    """Replay a seekable binary script file `f`, writing JSON event lines to `out`.

    Two passes -- check every line, then apply -- keep memory to one line, a hash per line
    and the engine's open wagers however long the script is. The second pass applies a line
    only if its bytes hash as in the first (a file changed in between is an error, not an
    unchecked op). -> number of events written."""
    hashes = array("q")
    for n, raw, text in _binary_lines(f, source):
        parse_op(text, source, n)
        hashes.append(hash(raw))
    f.seek(0)
    engine = engine or Engine()
    apply = engine.apply
    decode = _PLAIN.raw_decode
    encode = _event_encoder()
    count = 0
    for n, raw, text in _binary_lines(f, source):
        if n > len(hashes) or hash(raw) != hashes[n - 1]:
            raise UserError("%s line %d: the script changed while being replayed; run it again"
                            % (source, n))
        text = text.strip()
        if not text or text[0] == "#":
            continue
        events = apply(decode(text)[0], line=n, checked=True)
        out.write("".join([encode(ev) + "\n" for ev in events]))
        count += len(events)
    return count


def replay_file(path, out):
    """Replay the script at `path` ('-': standard input), writing JSON lines to `out`."""
    if path == "-":
        return _replay_spooled(sys.stdin.buffer, out, "stdin")
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise UserError("cannot read game script %s: %s" % (path, exc.strerror or exc), code=1)
    with f:
        if not f.seekable():      # a pipe or FIFO: the two passes need a file
            return _replay_spooled(f, out, str(path))
        return replay_stream(f, out, source=str(path))


def _replay_spooled(stream, out, source):
    with tempfile.TemporaryFile() as spool:
        shutil.copyfileobj(stream, spool)
        spool.seek(0)
        return replay_stream(spool, out, source=source)
