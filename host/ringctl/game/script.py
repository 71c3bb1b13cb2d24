"""Game scripts: one JSON op per line in, one JSON event per line out (`ring game replay`)."""
import json

from ..errors import UserError
from .engine import Engine, MalformedOp


def parse_lines(lines, source="script"):
    """-> [(line_no, op)] skipping blank lines and '#' comments; a bad line is a UserError."""
    ops = []
    for n, text in enumerate(lines, 1):
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        try:
            op = json.loads(text)
        except ValueError as exc:
            raise UserError("%s line %d: not valid JSON (%s); write one JSON object per line, "
                            "e.g. {\"op\": \"spin\", \"result\": \"heads\"}" % (source, n, exc))
        ops.append((n, op))
    return ops


def replay(lines, source="script", engine=None):
    """Run ops through an engine; yields event dicts (each with its input line)."""
    engine = engine or Engine()
    for n, op in parse_lines(lines, source):
        try:
            events = engine.apply(op, line=n)
        except MalformedOp as exc:
            raise UserError("%s line %d: %s" % (source, n, exc))
        yield from events


def replay_file(path, out):
    """Replay the script at `path`, writing JSON lines to `out`; returns the engine's events."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise UserError("cannot read game script %s: %s" % (path, exc.strerror or exc), code=1)
    events = []
    for ev in replay(lines, source=str(path)):
        out.write(json.dumps(ev) + "\n")
        events.append(ev)
    return events
