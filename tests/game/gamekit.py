"""Shorthand for game tests: 'bet b1 heads 10' -> {"op": "bet", ...}; run ops, pick events."""
from ringctl.game.engine import Engine


def op(text):
    w = text.split()
    k = w[0]
    if k == "spinner":
        if w[1] in ("boxer", "dealer"):
            return {"op": "spinner", "by": w[1]}
        d = {"op": "spinner", "calls": w[1]}
        if len(w) > 2:
            d["name"] = w[2]
        return d
    if k == "open":
        return {"op": "bets-open"}
    if k == "close":
        return {"op": "bets-closed"}
    if k == "bet":
        return {"op": "bet", "id": w[1], "on": w[2], "amount": float(w[3]) if "." in w[3] else int(w[3])}
    if k == "change":
        return {"op": "change", "id": w[1], "amount": int(w[2])}
    if k == "withdraw":
        return {"op": "withdraw", "id": w[1]}
    if k == "spin":
        return {"op": "spin", "result": {"H": "heads", "T": "tails", "O": "odds", "N": "no-spin"}.get(w[1], w[1])}
    if k == "retire":
        return {"op": "spinner-retires"}
    if k == "exclude":
        return {"op": "exclude-spinner"}
    if k == "chips":
        return {"op": "chips", "values": [int(x) for x in w[1:]]}
    raise ValueError(text)


def run(*lines, engine=None):
    """-> (engine, events); events carry 'line' = 1-based index of the shorthand line."""
    eng = engine or Engine()
    events = []
    for n, text in enumerate(lines, 1):
        for t in text.split(";"):
            if t.strip():
                events += eng.apply(op(t.strip()), line=n)
    return eng, events


def pick(events, kind, **match):
    return [e for e in events if e["event"] == kind and all(e.get(k) == v for k, v in match.items())]


def settled(events):
    """bet id -> (outcome, pays) for every settlement (asserts none is settled twice)."""
    out = {}
    for e in pick(events, "settled"):
        assert e["bet"] not in out, "settled twice: %s" % e["bet"]
        out[e["bet"]] = (e["outcome"], e["pays"])
    return out


def rejected(events):
    return [(e["line"], e["rule"]) for e in pick(events, "rejected")]
