"""Rebuild the table's game state after a restart by replaying the recorded engine ops."""
from ..game.engine import Engine

OP_KIND = "op"  # one record per op the host applied to the engine (accepted or refused)


def record_op(log, op, events=None):
    """Record an engine op (and what it produced) before acting on it. -> seq."""
    return log.append(OP_KIND, {"op": op, "events": events or []})


def rebuild_engine(log):
    """-> Engine in the state the recorded ops left it (refused ops change nothing anyway)."""
    return Engine.replay(r.data["op"] for r in log.records(kind=OP_KIND, with_blobs=False))
