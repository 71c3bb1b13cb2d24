"""Host events to browsers: one host subscription fanned out to every WebSocket client.

A thread reads the host's Subscription and hands each event to the asyncio loop; every
client has its own bounded queue (oldest dropped, then a `gap` message), so a slow browser
only ever loses its own messages and the host never waits for anyone.
"""
import asyncio
import json
import threading

# What the public board may see; everything else (wagers, alarms, who called) needs a login.
BOARD_KINDS = ("phase", "light", "spin-started", "result", "table", "gap")
# events after which the board's view may have changed (the public gets the view only)
VIEW_KINDS = BOARD_KINDS + ("verdict", "settlement", "call")
ODDS_LIMIT = 5
WINS_AT = 3
SPINNING_PHASES = ("armed", "in-flight", "landed", "at-rest")


def _result_name(r):
    if isinstance(r, dict):
        return r.get("result"), r.get("spin")
    return r, None


def board_view(snap):
    """The players' board from a host snapshot: spinner, progress, odds run, table state and
    the last 30 results. Nothing here is secret or actionable."""
    table = snap.get("table") or {}
    game = table.get("game") or {}
    results = []
    for r in (snap.get("results") or [])[-30:]:
        name, n = _result_name(r)
        results.append({"result": name, "spin": n})
    spinning = table.get("spinning")
    spinner = None
    if spinning:
        spinner = {"name": game.get("name") or (spinning if spinning != "player" else "spinner"),
                   "calls": game.get("calls"), "by": spinning}
    progress = None
    if game.get("calls"):
        progress = "%s %d of %d" % (game["calls"].upper(), int(game.get("count") or 0), WINS_AT)
    odds_run = int(table.get("odds_run") or 0)
    phase = snap.get("phase") or "idle"
    last = results[-1]["result"] if results else None
    spin = snap.get("spin") or {}
    if phase in SPINNING_PHASES and not spin.get("result"):
        state = "SPINNING"
    elif table.get("betting") == "open":
        state = "PLACE YOUR BETS"
    elif table.get("betting") == "closed":
        state = "NO MORE BETS"
    elif last:
        state = "RESULT: %s" % last.upper()
    else:
        state = "WAITING"
    return {"phase": phase, "light": snap.get("light"), "spinner": spinner, "progress": progress,
            "odds": "ODDS %d of %d" % (odds_run, ODDS_LIMIT), "odds_run": odds_run,
            "state": state, "last": last, "results": results}


def with_result(view, data):
    """The board's view with a just-announced result added, without asking the host (which
    is busy settling that very result): the road, the last result and the table state."""
    if view is None or not isinstance(data, dict) or "result" not in data:
        return view
    view = dict(view)
    view["results"] = (list(view.get("results") or []) + [
        {"result": data["result"], "spin": data.get("spin")}])[-30:]
    view["last"] = data["result"]
    view["state"] = "RESULT: %s" % str(data["result"]).upper()
    return view


def public_state(snap):
    """/api/state without a login: the board's fields only."""
    view = board_view(snap)
    return {"phase": view["phase"], "light": view["light"], "spinner": view["spinner"],
            "results": view["results"], "board": view}


def event_message(ev, view=None, public=False):
    """One WebSocket message. The public gets the board's kinds (a result with its spin and
    result only) and, for any other event that changed the board, just the view."""
    if public and ev.kind not in BOARD_KINDS:
        if view is None:
            return None
        return json.dumps({"seq": ev.seq, "t": ev.t, "kind": "board", "board": view}, default=str)
    msg = {"seq": ev.seq, "t": ev.t, "kind": ev.kind}
    if not public:
        msg["data"] = ev.data
    elif ev.kind == "result":
        msg["data"] = {k: ev.data.get(k) for k in ("spin", "result") if k in ev.data}
    if view is not None:
        msg["board"] = view
    return json.dumps(msg, default=str)


class Client:
    def __init__(self, loop, public, maxlen=256):
        self.loop = loop
        self.public = public
        self.queue = asyncio.Queue()
        self.maxlen = maxlen
        self.dropped = 0

    def offer(self, text):
        """Runs on the loop: enqueue, dropping the oldest when full."""
        if self.queue.qsize() >= self.maxlen:
            try:
                self.queue.get_nowait()
            except asyncio.QueueEmpty:
                pass
            self.dropped += 1
            self.queue.put_nowait(json.dumps({"kind": "gap", "data": {"dropped": self.dropped}}))
        self.queue.put_nowait(text)


class LiveHub:
    def __init__(self, host):
        self.host = host
        self.clients = set()
        self.lock = threading.Lock()
        self.sub = None
        self.thread = None
        self.running = False
        self.published = 0
        self.verdict = None       # the newest verdict/result data: reasons and rules for screens
        self.view = None          # the board's newest view
        self.observers = []       # f(HostEvent) for other parts of the console (the camera)

    def start(self):
        if self.running:
            return
        self.running = True
        self.sub = self.host.subscribe(maxlen=1024)
        self.thread = threading.Thread(target=self._run, name="console-events", daemon=True)
        self.thread.start()

    def stop(self):
        self.running = False
        if self.sub is not None:
            self.sub.close()
        if self.thread is not None:
            self.thread.join(2.0)

    def add(self, client):
        with self.lock:
            self.clients.add(client)

    def close_clients(self):
        """Tell every socket to finish (the server is stopping)."""
        with self.lock:
            clients = list(self.clients)
        for c in clients:
            try:
                c.loop.call_soon_threadsafe(c.queue.put_nowait, None)
            except RuntimeError:
                pass

    def remove(self, client):
        with self.lock:
            self.clients.discard(client)

    def _run(self):
        while self.running:
            ev = self.sub.get(timeout=0.2)
            if ev is None:
                continue
            if ev.kind in ("verdict", "result") and isinstance(ev.data, dict):
                self.verdict = dict(ev.data, kind=ev.kind)
            for f in self.observers:
                f(ev)
            with self.lock:
                clients = list(self.clients)
            if not clients:
                continue
            view = None
            if ev.kind == "result" and self.view is not None:
                view = self.view = with_result(self.view, ev.data)     # at once, no host lock
            elif ev.kind in VIEW_KINDS:
                try:
                    view = self.view = board_view(self.host.snapshot())
                except Exception:       # a snapshot must never stop the feed
                    view = None
            full = event_message(ev, view)
            pub = event_message(ev, view, public=True)
            for c in clients:
                text = pub if c.public else full
                if text is None:
                    continue
                try:
                    c.loop.call_soon_threadsafe(c.offer, text)
                except RuntimeError:    # the client's loop is gone
                    self.remove(c)
            self.published += 1
