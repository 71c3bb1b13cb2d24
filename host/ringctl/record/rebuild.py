"""Rebuild the table's game state and the spin count after a restart from the audit log."""
from ..errors import UserError
from ..game.engine import Engine, MalformedOp
from .records import OP_KIND


def rebuild_engine(log):
    """-> Engine in the state the recorded ops left it (refused ops change nothing anyway).
    UserError (one line) when a recorded op is one this rules engine does not take: the log
    is kept as it is; the table cannot be rebuilt from it."""
    eng = Engine()
    for r in log.records(kind=OP_KIND, with_blobs=False):
        op = r.data.get("op") if isinstance(r.data, dict) else None
        try:
            if not isinstance(op, dict):
                raise MalformedOp("the record holds no op")
            eng.apply(op)
        except MalformedOp as exc:
            raise UserError("audit log %s, record %d: the rules engine does not take its op "
                            "(%s); the log is unchanged: start play on a new log (--log NEW.db) "
                            "and keep this one for `ring log show`" % (log.path, r.seq, exc),
                            code=1) from None
    return eng


def last_spin_number(log):
    """The highest spin number this log has used (0 for a new log): spins are numbered once
    per log and never reused, across restarts of the host."""
    row = log.db.execute("SELECT MAX(CAST(json_extract(data, '$.spin') AS INTEGER)) FROM records "
                         "WHERE kind IN ('arm', 'spin', 'call', 'override', 'lost-coin')"
                         ).fetchone()
    return int(row[0] or 0)
