"""Game scripts: one JSON op per line in, one JSON event per line out (`ring game replay`).

A script is valid whole or prints nothing (issue 14.10): a bad line -- not UTF-8, not JSON, a
duplicate key, an unknown or misspelled field, a number beyond the limits -- is one error line
naming the line and the field, and the script prints no events at all, so a half-run script
never leaves settlements behind. Rules refusals are not input errors: they are `rejected`
events in the output.

A replay reads each line once: orjson decodes it, check_op checks it, the engine applies it,
and its events go to a spool file that reaches the output only after the last line. A line the
fast decoder cannot take as it is (not an object, more colons than fields -- a duplicate key
is one --, not JSON to orjson, a shape error) is decoded again by the strict standard-library
decoder, which accepts exactly the valid lines and words the error.
"""
import codecs
import json
import os
import shutil
import sys
import tempfile

import orjson

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


def _line_text(raw, source, n):
    """-> the text of script line `n`, or the one-line error for bytes that are not UTF-8."""
    try:
        return raw.decode("utf-8-sig" if n == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise UserError("%s line %d: not UTF-8 text (byte 0x%02x at column %d); save the "
                        "script as UTF-8" % (source, n, raw[exc.start], exc.start + 1))


def _raw_lines(f, source):
    """-> lists of raw script lines (bytes, no newline) read a block at a time: memory is one
    block whatever the script's length. A line over MAX_LINE bytes is a one-line error, raised
    after the lines before it (so the first bad line of a script is the one named)."""
    n = 0
    tail = b""
    while True:
        block = f.read(_BLOCK)
        if block:
            lines = (tail + block).split(b"\n")
            tail = lines.pop()
        else:
            lines = [tail] if tail else []
        longest = max(map(len, lines), default=0)
        if longest > MAX_LINE or len(tail) > MAX_LINE:
            lines.append(tail)
            first = next(i for i, raw in enumerate(lines) if len(raw) > MAX_LINE)
            yield lines[:first]
            raise UserError("%s line %d: line longer than %d bytes; write one op per line"
                            % (source, n + first + 1, MAX_LINE))
        yield lines
        n += len(lines)
        if not block:
            return


_BLOCK = 1 << 20


def replay_stream(f, out, source="script", engine=None):
    """Replay a binary script file `f`, writing JSON event lines to `out` only if every line is
    valid. -> number of events written.

    One pass: each line is decoded, checked and applied once; the events go to a spooled
    temporary file that is copied to `out` at the end. A bad line raises UserError: the spool
    is dropped, so nothing reaches `out`, and the engine (a caller's `engine` too) is left
    part-way and is not to be used. Memory: one block of
    the script, the engine's open wagers and at most _SPOOL_MEMORY bytes of events."""
    engine = engine or Engine()
    apply = engine.apply
    loads = orjson.loads
    dumps = orjson.dumps
    newline = orjson.OPT_APPEND_NEWLINE
    count = 0
    n = 0
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_MEMORY) as spool:
        for lines in _raw_lines(f, source):
            batch = []
            for raw in lines:
                n += 1
                try:
                    op = loads(raw)
                except ValueError:
                    op = None
                # The fast decoder keeps the last of duplicate keys: a line with more colons
                # than fields (or anything but an object) takes the strict path.
                if type(op) is not dict or raw.count(b":") != len(op):
                    op = parse_op(_line_text(raw, source, n), source, n)
                    if op is None:
                        continue
                else:
                    try:
                        check_op(op)
                    except MalformedOp as exc:   # worded by the strict path, as it reads the line
                        parse_op(_line_text(raw, source, n), source, n)
                        raise UserError("%s line %d: %s" % (source, n, exc))
                batch += apply(op, n, True)
                if len(batch) >= 512:     # encoded in batches: few dicts alive for the GC
                    spool.write(b"".join([dumps(ev, option=newline) for ev in batch]))
                    count += len(batch)
                    batch = []
            spool.write(b"".join([dumps(ev, option=newline) for ev in batch]))
            count += len(batch)
        spool.seek(0)
        _emit(spool, out)
    return count


_SPOOL_MEMORY = 1 << 20


def _emit(spool, out):
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        shutil.copyfileobj(spool, buffer)
        buffer.flush()
    else:
        decode = codecs.getincrementaldecoder("utf-8")().decode
        for chunk in iter(lambda: spool.read(1 << 16), b""):
            out.write(decode(chunk))


def replay_file(path, out):
    """Replay the script at `path` ('-': standard input), writing JSON lines to `out`."""
    if path == "-":
        return replay_stream(sys.stdin.buffer, out, "stdin")
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise UserError("cannot read game script %s: %s; give a JSON-lines script file "
                        "(docs/RULES.md) or - for standard input"
                        % (path, "it is a folder" if os.path.isdir(path) else exc.strerror or exc),
                        code=1) from None
    with f:
        return replay_stream(f, out, source=str(path))
