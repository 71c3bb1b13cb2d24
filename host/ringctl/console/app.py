"""The ring console: a Starlette app over RingHost's command/event API (a thin client).

Pages: /board (public), / (boxer), /supervisor, /spins and /spins/<n> (supervisor,
surveillance), /login. JSON: /api/state, /api/spins, /api/spins/<n>, POST /api/commands.
WebSockets: /ws (host events), /ws/camera (annotated JPEG frames). Every state change needs
a session and a single-use CSRF token; the host records each command with its user.
The console imports no runner or sim module: the host and its command parser are handed in.
"""
import asyncio
import contextlib
import json
import os
import time
from datetime import datetime, timezone

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..errors import UserError
from ..game.script import decode_json_line
from ..record.log import AuditLog
from ..record.records import record_login, record_logout
from .camera import CameraFeed, annotate, crop_to_coins, jpeg
from .evidence import build_pack, decode_jpeg
from .live import Client, LiveHub, board_view, public_state
from .sessions import COOKIE, LoginThrottle, SessionStore
from .spins import VALID, SpinIndex
from .users import ROLES, Users

HERE = os.path.dirname(os.path.abspath(__file__))
HOME = {"boxer": "/", "supervisor": "/supervisor", "surveillance": "/spins"}
# who may send which command (the host checks the rules; this is who may touch the ring)
LOST = ("lost", "lost-found", "lost-check", "lost-offer", "lost-newset")
COMMAND_ROLES = {"boxer": ("arm", "nospin", "call", "table") + LOST,
                 "supervisor": ("arm", "nospin", "call", "table", "ack-alarm") + LOST,
                 "surveillance": ()}
SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' blob: data:; "
                               "connect-src 'self'; frame-ancestors 'none'; form-action 'self'",
}


class Console:
    """Everything the routes share: the host, the sessions, the audit-log reader."""

    def __init__(self, host, log_path, users_path, ring=None, secure_cookies=False, clock=time.time):
        self.host = host
        self.log_path = log_path
        self.users = Users(users_path)
        self.sessions = SessionStore(clock=clock)
        self.throttle = LoginThrottle()
        self.index = SpinIndex(log_path)
        self.hub = LiveHub(host)
        self.camera = CameraFeed(host, ring=ring)
        self.hub.observers.append(self.camera.on_event)
        self.ring = ring
        self.secure_cookies = secure_cookies
        self.chain = None           # last audit-chain verification
        self.templates = Jinja2Templates(directory=os.path.join(HERE, "templates"))
        self.templates.env.filters["when"] = _when

    # ---- audit records of access (logins are not play: the console writes them itself) ----
    def record(self, fn, *args, **kw):
        log = AuditLog(self.log_path)
        try:
            fn(log, *args, **kw)
        finally:
            log.close()

    # ---- sessions and roles ------------------------------------------------------------------
    def session(self, conn):
        return self.sessions.from_cookie(conn.cookies.get(COOKIE))

    def set_cookie(self, response, session):
        response.set_cookie(COOKIE, self.sessions.cookie_value(session), httponly=True,
                            samesite="strict", secure=self.secure_cookies, path="/")

    def page(self, request, name, session, **ctx):
        ctx.update(session=session, csrf=self.sessions.issue_token(session) if session else None)
        code = int(ctx["status"].split()[0]) if "status" in ctx else 200
        resp = self.templates.TemplateResponse(request, name, ctx, status_code=code)
        for k, v in SECURITY_HEADERS.items():
            resp.headers[k] = v
        return resp


def _when(t):
    if t is None:
        return ""
    return datetime.fromtimestamp(float(t), timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _addr(request):
    return request.client.host if request.client else "?"


def create_app(host, log_path, users_path, parse_command, ring=None, secure_cookies=False):
    """`host`: RingHost's API (submit, subscribe, snapshot, camera_view); `parse_command`:
    its command parser (runner.commands.parse_command), handed in by whoever serves the
    console so that the console depends on the API, not on the runner package."""
    c = Console(host, log_path, users_path, ring=ring, secure_cookies=secure_cookies)

    def full_state(snap):
        """A logged-in screen's state: the snapshot, the board's view and the current spin's
        verdict (reasons, rules, camera readings) as the host last announced it."""
        snap = dict(snap, board=board_view(snap))
        v = c.hub.verdict
        if v and snap.get("spin") and v.get("spin") == snap["spin"].get("number"):
            snap["verdict"] = v
        return snap

    # ---- guards ----------------------------------------------------------------------------
    def need_page(request, roles):
        """-> (session, None) or (None, response) for a page."""
        s = c.session(request)
        if s is None or s.role is None:
            return None, RedirectResponse("/login?next=" + request.url.path, status_code=303)
        if s.role not in roles:
            return None, c.page(request, "error.html", s, status="403 Forbidden",
                                message="the %s role cannot open %s" % (s.role, request.url.path))
        return s, None

    def need_api(request, roles):
        s = c.session(request)
        if s is None or s.role is None:
            return None, JSONResponse({"ok": False, "error": "log in first (/login)"}, 401)
        if s.role not in roles:
            return None, JSONResponse({"ok": False, "error": "the %s role may not do this" % s.role}, 403)
        return s, None

    def csrf_refusal(s, token):
        why = c.sessions.spend_token(s, token)
        return JSONResponse({"ok": False, "error": why}, 403) if why else None

    def with_next_token(resp, s):
        resp.headers["X-CSRF-Token"] = c.sessions.issue_token(s)
        return resp

    # ---- login ------------------------------------------------------------------------------
    async def login_page(request):
        s = c.session(request) or c.sessions.create()
        resp = c.page(request, "login.html", s, error=request.query_params.get("error"),
                      next=request.query_params.get("next", ""))
        c.set_cookie(resp, s)
        return resp

    async def login(request):
        form = await request.form()
        pre = c.session(request)
        name = str(form.get("user", "")).strip()
        addr = _addr(request)
        if pre is None or c.sessions.spend_token(pre, form.get("csrf")):
            return RedirectResponse("/login?error=the+form+expired:+try+again", status_code=303)
        refused = c.throttle.check(name, addr)
        if refused:
            await run_in_threadpool(c.record, record_login, name, False, addr, why=refused[1])
            return JSONResponse({"ok": False, "error": refused[1]}, refused[0]) \
                if "json" in request.headers.get("accept", "") else \
                RedirectResponse("/login?error=" + refused[1].replace(" ", "+"), status_code=303)
        role = await run_in_threadpool(c.users.authenticate, name, str(form.get("password", "")))
        if role is None:
            locked = c.throttle.failed(name)
            why = "locked after repeated wrong passwords" if locked else "wrong name or password"
            await run_in_threadpool(c.record, record_login, name, False, addr, why=why)
            return RedirectResponse("/login?error=" + why.replace(" ", "+"), status_code=303)
        c.throttle.succeeded(name)
        c.sessions.drop(pre)                           # a fresh session id at login (fixation)
        s = c.sessions.create(name, role)
        await run_in_threadpool(c.record, record_login, name, True, addr, role=role)
        nxt = str(form.get("next") or "")
        target = nxt if nxt.startswith("/") and not nxt.startswith("//") else HOME[role]
        resp = RedirectResponse(target, status_code=303)
        c.set_cookie(resp, s)
        return resp

    async def logout(request):
        s = c.session(request)
        form = await request.form()
        if s is not None and s.role is not None:
            bad = csrf_refusal(s, form.get("csrf"))
            if bad:
                return bad
            c.sessions.drop(s)
            await run_in_threadpool(c.record, record_logout, s.user, s.role, _addr(request))
        resp = RedirectResponse("/login", status_code=303)
        resp.delete_cookie(COOKIE, path="/")
        return resp

    # ---- pages ------------------------------------------------------------------------------
    async def board(request):
        snap = await run_in_threadpool(host.snapshot)
        return c.page(request, "board.html", None, view=board_view(snap))

    async def boxer(request):
        s, refuse = need_page(request, ("boxer",))
        return refuse or c.page(request, "boxer.html", s)

    async def supervisor(request):
        s, refuse = need_page(request, ("supervisor",))
        if refuse:
            return refuse
        return c.page(request, "supervisor.html", s, users=c.users.roles(), chain=c.chain)

    def _filters(q):
        def num(key):
            v = q.get(key)
            if not v:
                return None
            try:
                return float(v)
            except ValueError:
                try:
                    return datetime.fromisoformat(v).replace(
                        tzinfo=datetime.fromisoformat(v).tzinfo or timezone.utc).timestamp()
                except ValueError:
                    raise UserError("%s=%r is neither epoch seconds nor an ISO date" % (key, v))
        result = q.get("result") or None
        if result is not None and result not in VALID:
            raise UserError("result=%r: use one of %s" % (result, ", ".join(VALID)))
        ov = q.get("override")
        return {"result": result, "reason": q.get("reason") or None,
                "override": None if ov in (None, "", "any") else ov in ("1", "yes", "true"),
                "since": num("since"), "until": num("until")}

    async def spins_page(request):
        s, refuse = need_page(request, ("supervisor", "surveillance"))
        if refuse:
            return refuse
        try:
            f = _filters(request.query_params)
        except UserError as exc:
            return c.page(request, "error.html", s, status="400 Bad Request", message=str(exc))
        rows = await run_in_threadpool(c.index.list, **f)
        return c.page(request, "spins.html", s, spins=rows, q=dict(request.query_params), results=VALID)

    async def spin_page(request):
        s, refuse = need_page(request, ("supervisor", "surveillance"))
        if refuse:
            return refuse
        d = await run_in_threadpool(c.index.detail, request.path_params["n"])
        if d is None:
            return c.page(request, "error.html", s, status="404 Not Found",
                          message="no spin %d in the audit log" % request.path_params["n"])
        return c.page(request, "spin.html", s, d=d, timeline=_timeline(d["events"]))

    async def evidence(request):
        s, refuse = need_page(request, ("supervisor", "surveillance"))
        if refuse:
            return refuse
        n = request.path_params["n"]
        data = await run_in_threadpool(build_pack, c.index, n, c.ring)
        if data is None:
            return Response("no spin %d" % n, 404)
        return Response(data, media_type="application/zip", headers={
            "Content-Disposition": "attachment; filename=spin-%d-evidence.zip" % n})

    async def frame(request):
        s, refuse = need_page(request, ("boxer", "supervisor", "surveillance"))
        if refuse:
            return refuse
        r = await run_in_threadpool(c.index.record, request.path_params["seq"])
        if r is None or r.kind != "frame" or r.blob is None:
            return Response("no frame record %d" % request.path_params["seq"], 404)
        meta = r.data.get("meta") or {}
        img = decode_jpeg(r.blob)
        if request.query_params.get("raw") or img is None:
            return Response(bytes(r.blob), media_type="image/jpeg")
        view = (img, meta.get("coins"), c.ring)
        if request.query_params.get("crop"):
            view = crop_to_coins(*view)
        body = jpeg(annotate(*view, caption="seq %d: %s %s" % (
            r.seq, str(meta.get("result", "")).upper(), "; ".join(meta.get("reasons") or ()))), 88)
        return Response(body, media_type="image/jpeg")

    async def camera_jpg(request):
        s, refuse = need_page(request, ("boxer", "supervisor", "surveillance"))
        if refuse:
            return refuse
        body = await run_in_threadpool(c.camera.snapshot_jpeg)
        return Response(body, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    # ---- JSON API ---------------------------------------------------------------------------
    async def api_state(request):
        snap = await run_in_threadpool(host.snapshot)
        s = c.session(request)
        if s is None or s.role is None:
            return JSONResponse(public_state(snap))
        snap = full_state(snap)
        snap["user"] = {"name": s.user, "role": s.role}
        return JSONResponse(json.loads(json.dumps(snap, default=str)))

    async def api_spins(request):
        s, refuse = need_api(request, ("supervisor", "surveillance"))
        if refuse:
            return refuse
        try:
            f = _filters(request.query_params)
        except UserError as exc:
            return JSONResponse({"ok": False, "error": str(exc)}, 400)
        return JSONResponse({"spins": await run_in_threadpool(c.index.list, **f)})

    async def api_spin(request):
        s, refuse = need_api(request, ("supervisor", "surveillance"))
        if refuse:
            return refuse
        d = await run_in_threadpool(c.index.detail, request.path_params["n"])
        if d is None:
            return JSONResponse({"ok": False, "error": "no spin %d" % request.path_params["n"]}, 404)
        return JSONResponse(json.loads(json.dumps(d, default=str)))

    async def api_spin_frames(request):
        # the boxer needs the still frames of an unsure spin; nothing else of the history
        s, refuse = need_api(request, ("boxer", "supervisor", "surveillance"))
        if refuse:
            return refuse
        d = await run_in_threadpool(c.index.detail, request.path_params["n"])
        frames = d["frames"] if d else []
        return JSONResponse({"spin": request.path_params["n"], "frames": frames})

    async def api_commands(request):
        s, refuse = need_api(request, ROLES)
        if refuse:
            return refuse
        bad = csrf_refusal(s, request.headers.get("x-csrf-token"))
        if bad:
            return bad
        try:
            # the same decoder as a typed line at ring run and a replay script: too long, too
            # deep, NaN or a duplicate key is a one-line refusal
            obj = decode_json_line((await request.body()).decode("utf-8"))
        except (UnicodeDecodeError, UserError) as exc:
            why = str(exc) if isinstance(exc, UserError) else "body is not UTF-8"
            return with_next_token(JSONResponse(
                {"ok": False, "error": "body is not one JSON command (%s); send e.g. "
                 "{\"cmd\": \"arm\"}" % why}, 400), s)
        name = obj.get("cmd") if isinstance(obj, dict) else None
        if name not in COMMAND_ROLES[s.role]:
            return with_next_token(JSONResponse(
                {"ok": False, "error": "the %s role may not send %r" % (s.role, name)}, 403), s)
        try:
            cmd = parse_command(obj, user=s.user, role=s.role)
        except UserError as exc:
            return with_next_token(JSONResponse({"ok": False, "error": str(exc)}, 400), s)
        reply = await run_in_threadpool(host.submit, cmd)
        body = {"ok": bool(reply.ok), "message": reply.message, "rule": reply.rule,
                "data": reply.data}
        return with_next_token(JSONResponse(json.loads(json.dumps(body, default=str)),
                                            200 if reply.ok else 409), s)

    async def api_verify(request):
        s, refuse = need_api(request, ("supervisor", "surveillance"))
        if refuse:
            return refuse
        bad = csrf_refusal(s, request.headers.get("x-csrf-token"))
        if bad:
            return bad
        report = await run_in_threadpool(c.index.chain_status)
        c.chain = {"ok": report["ok"], "records": report["records"], "head": report["head"],
                   "problems": report["problems"][:20], "checked_at": report["checked_at"],
                   "by": s.user}
        return with_next_token(JSONResponse(c.chain), s)

    async def api_users(request):
        s, refuse = need_api(request, ("supervisor",))
        return refuse or JSONResponse({"users": c.users.roles()})

    # ---- WebSockets ---------------------------------------------------------------------
    def ws_origin_ok(ws):
        origin = ws.headers.get("origin")
        return origin is None or origin.split("://", 1)[-1] == ws.headers.get("host")

    async def ws_events(ws: WebSocket):
        s = c.session(ws)
        if not ws_origin_ok(ws):
            await ws.close(code=1008)
            return
        await ws.accept()
        public = s is None or s.role is None
        client = Client(asyncio.get_running_loop(), public)
        c.hub.add(client)
        try:
            snap = await run_in_threadpool(host.snapshot)
            first = public_state(snap) if public else full_state(snap)
            await ws.send_text(json.dumps({"kind": "hello", "data": first}, default=str))
            while True:
                text = await client.queue.get()
                if text is None:                       # the server is stopping
                    await ws.close(code=1001)
                    break
                await ws.send_text(text)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            c.hub.remove(client)

    async def ws_camera(ws: WebSocket):
        s = c.session(ws)
        if s is None or s.role is None or not ws_origin_ok(ws):
            await ws.close(code=1008)
            return
        await ws.accept()
        c.camera.attach()
        n = 0
        try:
            while not c.camera.closed:
                got = await run_in_threadpool(c.camera.frame_after, n, 1.0)
                if got is None:
                    continue
                n, data, _t = got
                await ws.send_bytes(data)
            await ws.close(code=1001)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            c.camera.detach()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        c.hub.start()
        try:
            yield
        finally:
            c.hub.stop()
            c.camera.close()

    routes = [
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/board", board),
        Route("/", boxer),
        Route("/supervisor", supervisor),
        Route("/spins", spins_page),
        Route("/spins/{n:int}", spin_page),
        Route("/spins/{n:int}/evidence.zip", evidence),
        Route("/frames/{seq:int}.jpg", frame),
        Route("/camera.jpg", camera_jpg),
        Route("/api/state", api_state),
        Route("/api/spins", api_spins),
        Route("/api/spins/{n:int}", api_spin),
        Route("/api/spins/{n:int}/frames", api_spin_frames),
        Route("/api/commands", api_commands, methods=["POST"]),
        Route("/api/verify", api_verify, methods=["POST"]),
        Route("/api/users", api_users),
        WebSocketRoute("/ws", ws_events),
        WebSocketRoute("/ws/camera", ws_camera),
        Mount("/static", StaticFiles(directory=os.path.join(HERE, "static")), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.console = c
    return app


# lanes of the board-event timeline (spin page)
LANES = ("phase", "beam", "wall", "impact", "mat", "button", "rest", "barred", "light")


def _timeline(events):
    """Board events as an SVG-ready list: lane, x in 0..1 over the spin, label, t in us."""
    pts = [e for e in events if isinstance(e.get("t_us"), int)]
    if not pts:
        return {"items": [], "span_us": 0, "lanes": LANES}
    t0 = min(e["t_us"] for e in pts)
    span = max(1, max(e["t_us"] for e in pts) - t0)
    items = []
    for e in pts:
        lane = e.get("name") if e.get("name") in LANES else None
        if lane is None:
            continue
        items.append({"lane": LANES.index(lane), "x": (e["t_us"] - t0) / span, "t_us": e["t_us"] - t0,
                      "label": "%s a=%s b=%s %s" % (lane, e.get("a"), e.get("b"), e.get("text") or "")})
    return {"items": items, "span_us": span, "lanes": LANES}
