"""Rebuild the table's game state after a restart by replaying the recorded engine ops."""
from ..game.engine import Engine
from .records import OP_KIND


def rebuild_engine(log):
    """-> Engine in the state the recorded ops left it (refused ops change nothing anyway)."""
    return Engine.replay(r.data["op"] for r in log.records(kind=OP_KIND, with_blobs=False))
