"""Every console endpoint over the ASGI test client: roles, refusals, CSRF, lockout, audit."""
import io
import ast
import json
import re
import subprocess
import sys
import zipfile

import pytest
from starlette.testclient import TestClient

from conftest import PASSWORDS
from ringctl.runner.commands import parse_command
from ringctl.console import sessions as sessions_mod
from ringctl.console.app import create_app
from ringctl.record.log import AuditLog


@pytest.fixture
def app(fake, users_path):
    return create_app(fake, fake.log_path, users_path, parse_command)


@pytest.fixture
def client(app):
    with TestClient(app) as c:
        yield c


def csrf_of(html):
    m = re.search(r'name="csrf" (?:content|value)="([^"]+)"', html)
    assert m, "page carries no CSRF token"
    return m.group(1)


def login(client, name, password=None):
    page = client.get("/login")
    pw = password if password is not None else PASSWORDS[name][1]
    return client.post("/login", data={"user": name, "password": pw, "csrf": csrf_of(page.text)},
                       follow_redirects=False)


def logged_in(app, name):
    c = TestClient(app)
    c.__enter__()
    r = login(c, name)
    assert r.status_code == 303 and "error" not in r.headers["location"], r.headers
    return c


def token(client, page="/"):
    return csrf_of(client.get(page).text)


def records(fake, kind=None):
    with AuditLog(fake.log_path) as log:
        return list(log.records(kind=kind, with_blobs=False))


# ---- no session -------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/api/spins", "/api/spins/1", "/api/spins/1/frames", "/api/users"])
def test_api_without_session_is_401(client, path):
    assert client.get(path).status_code == 401


def test_commands_without_session_is_401(client):
    assert client.post("/api/commands", json={"cmd": "arm"}).status_code == 401


@pytest.mark.parametrize("path", ["/", "/supervisor", "/spins", "/spins/1", "/spins/1/evidence.zip",
                                  "/frames/1.jpg", "/camera.jpg"])
def test_pages_without_session_go_to_login(client, path):
    r = client.get(path, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login")


def test_camera_socket_without_session_is_refused(client):
    from starlette.websockets import WebSocketDisconnect
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/ws/camera") as ws:
            ws.receive_bytes()


def test_board_is_public_and_has_no_control(client, fake):
    for op in ({"op": "spinner", "calls": "heads", "name": "Ada"}, {"op": "bets-open"},
               {"op": "bet", "id": "s1", "on": "spinner", "amount": 5}, {"op": "bets-closed"}):
        fake.engine.apply(op)
    fake.play_spin("heads")
    r = client.get("/board")
    assert r.status_code == 200
    assert "<button" not in r.text and "<form" not in r.text and "csrf" not in r.text
    assert "Ada" in r.text and "HEADS 1 of 3" in r.text and "RESULT: HEADS" in r.text
    state = client.get("/api/state").json()
    assert {"phase", "light", "spinner", "results"} <= set(state)
    assert state["results"][-1]["result"] == "heads"
    assert "table" not in state and "alarms" not in state     # wagers and alarms need a login


def test_public_socket_carries_board_but_not_private_data(client, fake):
    with client.websocket_connect("/ws") as ws:
        hello = json.loads(ws.receive_text())
        assert hello["kind"] == "hello" and "alarms" not in hello["data"]
        fake.raise_alarm("security", "bad tag on the link")     # private: not for the board
        fake.play_spin("tails")
        kinds = []
        while "result" not in kinds:
            msg = json.loads(ws.receive_text())
            kinds.append(msg["kind"])
            assert msg["kind"] != "alarm"
            if msg["kind"] == "result":
                assert msg["data"] == {"spin": 1, "result": "tails"}
                assert msg["board"]["results"][-1]["result"] == "tails"


# ---- roles ----------------------------------------------------------------------------------
def test_wrong_roles_are_refused(app, fake):
    fake.play_spin("heads")
    boxer = logged_in(app, "bea")
    assert boxer.get("/spins").status_code == 403
    assert boxer.get("/spins/1").status_code == 403
    assert boxer.get("/supervisor").status_code == 403
    assert boxer.get("/api/spins").status_code == 403
    assert boxer.get("/api/spins/1").status_code == 403
    assert boxer.get("/api/users").status_code == 403
    r = boxer.post("/api/commands", json={"cmd": "ack-alarm", "id": 1},
                   headers={"X-CSRF-Token": token(boxer)})
    assert r.status_code == 403 and "boxer" in r.json()["error"]
    watcher = logged_in(app, "sue")
    assert watcher.get("/").status_code == 403
    assert watcher.get("/spins").status_code == 200
    r = watcher.post("/api/commands", json={"cmd": "arm"}, headers={"X-CSRF-Token": token(watcher, "/spins")})
    assert r.status_code == 403
    assert not fake.submitted


def test_each_role_reaches_its_pages(app, fake):
    fake.play_spin("odds")
    assert logged_in(app, "bea").get("/").status_code == 200
    sup = logged_in(app, "sam")
    assert sup.get("/supervisor").status_code == 200
    assert sup.get("/spins").status_code == 200
    assert sup.get("/api/users").json()["users"] == {"bea": "boxer", "sam": "supervisor",
                                                     "sue": "surveillance"}


# ---- CSRF -----------------------------------------------------------------------------------
def test_command_without_csrf_token_is_refused(app, fake):
    boxer = logged_in(app, "bea")
    r = boxer.post("/api/commands", json={"cmd": "arm"})
    assert r.status_code == 403 and "missing CSRF" in r.json()["error"]
    assert not fake.submitted


def test_replayed_csrf_token_is_refused(app, fake):
    boxer = logged_in(app, "bea")
    tok = token(boxer)
    r = boxer.post("/api/commands", json={"cmd": "arm"}, headers={"X-CSRF-Token": tok})
    assert r.status_code == 200 and r.headers["X-CSRF-Token"] != tok
    r = boxer.post("/api/commands", json={"cmd": "arm"}, headers={"X-CSRF-Token": tok})
    assert r.status_code == 403 and "replayed" in r.json()["error"]
    assert len(fake.submitted) == 1
    # the token handed out with the answer works once
    nxt = boxer.post("/api/commands", json={"cmd": "arm"}, headers={"X-CSRF-Token": token(boxer)})
    assert nxt.status_code == 200


def test_token_of_another_session_is_refused(app, fake):
    a, b = logged_in(app, "bea"), logged_in(app, "sam")
    r = b.post("/api/commands", json={"cmd": "arm"}, headers={"X-CSRF-Token": token(a)})
    assert r.status_code == 403 and not fake.submitted


def test_logout_needs_token_and_ends_session(app):
    boxer = logged_in(app, "bea")
    assert boxer.post("/logout", data={}).status_code == 403
    boxer.post("/logout", data={"csrf": token(boxer)}, follow_redirects=False)
    assert boxer.get("/api/spins/1/frames").status_code == 401


def test_login_form_needs_its_token(client):
    client.get("/login")
    r = client.post("/login", data={"user": "bea", "password": PASSWORDS["bea"][1]},
                    follow_redirects=False)
    assert "expired" in r.headers["location"]
    assert client.get("/", follow_redirects=False).status_code == 303


def test_session_cookie_is_signed_httponly_strict(client):
    r = login(client, "bea")
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    forged = TestClient(client.app)
    forged.cookies.set(sessions_mod.COOKIE, "bea.forged.signature")
    assert forged.get("/api/spins/1/frames").status_code == 401


# ---- login throttling -----------------------------------------------------------------------
def test_wrong_passwords_lock_the_user_and_are_recorded(client, fake):
    for _ in range(sessions_mod.FAILS_TO_LOCK):
        r = login(client, "bea", "wrong-password")
        assert "/login?error=" in r.headers["location"]
    r = login(client, "bea")                                  # right password, but locked
    assert "locked" in r.headers["location"]
    assert client.get("/", follow_redirects=False).status_code == 303
    logins = [x.data for x in records(fake, "console-login")]
    assert sum(not x["ok"] for x in logins) == sessions_mod.FAILS_TO_LOCK + 1
    assert any("locked" in (x.get("why") or "") for x in logins)
    assert not any(x["ok"] for x in logins)


def test_login_rate_limit_per_address(client, monkeypatch):
    monkeypatch.setattr(sessions_mod, "ADDR_ATTEMPTS", 3)
    for name in ("x1", "x2", "x3"):
        login(client, name, "whatever-pass")
    page = client.get("/login")
    r = client.post("/login", data={"user": "bea", "password": PASSWORDS["bea"][1],
                                    "csrf": csrf_of(page.text)},
                    headers={"accept": "application/json"}, follow_redirects=False)
    assert r.status_code == 429


def test_good_login_is_recorded_with_role(client, fake):
    login(client, "sam")
    rec = records(fake, "console-login")[-1].data
    assert rec["ok"] and rec["user"] == "sam" and rec["role"] == "supervisor"


# ---- commands -------------------------------------------------------------------------------
def test_boxer_calls_unsure_spin_and_it_is_audited(app, fake):
    n = fake.play_spin("odds", unsure=True)
    boxer = logged_in(app, "bea")
    frames = boxer.get("/api/spins/%d/frames" % n).json()["frames"]
    assert frames and frames[0]["result"] == "unsure"
    img = boxer.get("/frames/%d.jpg" % frames[0]["seq"])
    assert img.headers["content-type"] == "image/jpeg" and img.content[:2] == b"\xff\xd8"
    r = boxer.post("/api/commands", json={"cmd": "call", "result": "odds", "reason": "read it"},
                   headers={"X-CSRF-Token": token(boxer)})
    assert r.status_code == 200 and r.json()["ok"]
    cmd = fake.submitted[-1]
    assert (cmd.user, cmd.role) == ("bea", "boxer")
    audited = [x.data for x in records(fake, "command")]
    assert audited[-1]["user"] == "bea" and audited[-1]["role"] == "boxer"
    assert fake.results[-1]["result"] == "odds"


def test_bad_command_gets_one_line_error(app, fake):
    boxer = logged_in(app, "bea")
    r = boxer.post("/api/commands", json={"cmd": "call", "result": "sideways"},
                   headers={"X-CSRF-Token": token(boxer)})
    assert r.status_code == 400 and "\n" not in r.json()["error"]
    r = boxer.post("/api/commands", content=b"{not json", headers={"X-CSRF-Token": r.headers["X-CSRF-Token"],
                                                                    "content-type": "application/json"})
    assert r.status_code == 400 and "not one JSON command" in r.json()["error"]
    for body in (b'{"cmd": "arm", "cmd": "call"}', b'{"cmd": "table", "op": {"op": "bet", "amount": NaN}}',
                 b"[" * 5000, b"\xff\xfe"):
        r = boxer.post("/api/commands", content=body, headers={
            "X-CSRF-Token": r.headers["X-CSRF-Token"], "content-type": "application/json"})
        assert r.status_code == 400 and "\n" not in r.json()["error"], body[:40]
    assert not fake.submitted


def test_rules_refusal_shows_the_rule(app, fake):
    boxer = logged_in(app, "bea")
    r = boxer.post("/api/commands", json={"cmd": "table", "op": {"op": "bet", "id": "b1", "on": "heads",
                                                                  "amount": 5}},
                   headers={"X-CSRF-Token": token(boxer)})
    body = r.json()
    assert r.status_code == 409 and not body["ok"] and re.match(r"\d+(\.\d+)*$", body["rule"])


def test_supervisor_acknowledges_alarm(app, fake):
    a = fake.raise_alarm("camera", "camera stalled")
    sup = logged_in(app, "sam")
    assert "camera stalled" in json.dumps(sup.get("/api/state").json()["alarms"])
    r = sup.post("/api/commands", json={"cmd": "ack-alarm", "id": a["id"]},
                 headers={"X-CSRF-Token": token(sup, "/supervisor")})
    assert r.status_code == 200 and fake.alarms[0]["acked_by"] == "sam"


# ---- spins and evidence ---------------------------------------------------------------------
def play_some(fake):
    fake.engine.apply({"op": "spinner", "calls": "heads", "name": "Ada"})
    fake.engine.apply({"op": "bets-open"})
    fake.engine.apply({"op": "bet", "id": "s1", "on": "spinner", "amount": 5})
    fake.engine.apply({"op": "bet", "id": "b1", "on": "heads", "amount": 5})
    fake.engine.apply({"op": "bets-closed"})
    fake.play_spin("heads")
    fake.play_spin("tails", unsure=True)
    fake.submit(fake_cmd("call", result="tails", reason="read it", user="bea", role="boxer"))
    fake.play_spin("odds")


def fake_cmd(name, **kw):
    user, role = kw.pop("user"), kw.pop("role")
    return parse_command(dict(cmd=name, **kw), user=user, role=role)


def test_spin_list_filters(app, fake):
    play_some(fake)
    sup = logged_in(app, "sue")
    allspins = sup.get("/api/spins").json()["spins"]
    assert [s["spin"] for s in allspins] == [3, 2, 1]
    assert [s["spin"] for s in sup.get("/api/spins?result=heads").json()["spins"]] == [1]
    assert [s["spin"] for s in sup.get("/api/spins?override=yes").json()["spins"]] == [2]
    assert [s["spin"] for s in sup.get("/api/spins?until=1").json()["spins"]] == []
    assert sup.get("/api/spins?result=sideways").status_code == 400
    page = sup.get("/spins?result=odds")
    assert page.status_code == 200 and 'href="/spins/3"' in page.text and 'href="/spins/1"' not in page.text


def test_spin_detail_has_frames_timeline_people_hashes(app, fake):
    play_some(fake)
    sup = logged_in(app, "sam")
    d = sup.get("/api/spins/2").json()
    assert d["frames"] and d["events"] and all(len(r["hash"]) == 64 for r in d["records"])
    assert any(h["who"] == "bea" for h in d["human"])
    page = sup.get("/spins/2")
    assert page.status_code == 200 and "<svg" in page.text and "/frames/" in page.text
    crop = sup.get("/frames/%d.jpg?crop=1" % d["frames"][0]["seq"])
    assert crop.content[:2] == b"\xff\xd8"
    assert "evidence.zip" in page.text
    assert sup.get("/spins/99").status_code == 404 and "no spin 99" in sup.get("/spins/99").text
    assert sup.get("/api/spins/99").status_code == 404


def test_spin_page_names_the_vision_files_that_judged_it(app, fake):
    fake._append("vision", {"model": {"file": "/r/coins.model", "sha256": "b" * 64},
                            "ring": {"file": "/r/ring.json", "sha256": "a" * 64, "settled_by_coins": {
                                "how": "the ring's edge settled by the coins' size: ...",
                                "confirmed": {"by": "T. Tech", "at": "2026-12-06T03:40:00+00:00"}}}})
    play_some(fake)
    sup = logged_in(app, "sam")
    assert sup.get("/api/spins/2").json()["vision"]["data"]["ring"]["sha256"] == "a" * 64
    page = sup.get("/spins/2").text
    said = page[page.index('id="vision"'):].split("</p>")[0]
    assert "/r/ring.json" in said and "aaaaaaaaaaaa" in said and "/r/coins.model" in said
    assert "confirmed by T. Tech at 2026-12-06T03:40:00+00:00" in said


def test_a_spin_with_no_vision_record_says_so(app, fake):
    play_some(fake)
    page = logged_in(app, "sam").get("/spins/1").text
    assert "No vision record before this spin" in page


def test_a_spin_after_a_start_with_no_camera_says_the_boxer_called_it(app, fake):
    """A host restarted without a camera records so: its spins are not shown as judged by the
    files an earlier session named."""
    fake._append("vision", {"ring": {"file": "/r/ring.json", "sha256": "a" * 64}})
    fake._append("vision", {"camera": "none: the boxer calls every spin"})
    play_some(fake)
    page = logged_in(app, "sam").get("/spins/1").text
    said = page[page.index('id="vision"'):].split("</p>")[0]
    assert "No camera (record seq 2): none: the boxer calls every spin" in said and "/r/ring.json" not in said


def test_evidence_pack_verifies_offline_and_catches_tampering(app, fake, tmp_path):
    play_some(fake)
    sup = logged_in(app, "sam")
    r = sup.get("/spins/2/evidence.zip")
    assert r.headers["content-type"] == "application/zip"
    z = zipfile.ZipFile(io.BytesIO(r.content))
    names = z.namelist()
    assert {"verify.py", "canonical.py", "records.json"} <= set(names)
    assert any(n.startswith("frames/") for n in names) and any(n.startswith("annotated/") for n in names)
    for name, allowed in (("verify.py", {"hashlib", "json", "os", "sys", "canonical"}),
                          ("canonical.py", {"hashlib", "json", "math", "csv", "base64", "sys"})):
        tree = ast.parse(z.read(name).decode())
        imports = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                   for a in n.names} | {n.module.split(".")[0] for n in ast.walk(tree)
                                        if isinstance(n, ast.ImportFrom) and n.module}
        assert imports <= allowed, (name, imports)          # the standard library only
    out = tmp_path / "pack"
    z.extractall(out)
    ok = subprocess.run([sys.executable, "-I", str(out / "verify.py")], capture_output=True, text=True)
    assert ok.returncode == 0 and ok.stdout.startswith("OK spin 2"), ok.stdout + ok.stderr
    # the pack's head is the log's own record hash
    pack = json.loads((out / "records.json").read_text())
    with AuditLog(fake.log_path) as log:
        stored = {x.seq: x.hash for x in log.records(with_blobs=False)}
    assert all(stored[x["seq"]] == x["hash"] for x in pack["records"])
    # tamper: change the spin's result in its record
    for x in pack["records"]:
        if x["kind"] == "spin":
            x["data"] = x["data"].replace('"tails"', '"heads"').replace('"unsure"', '"heads"')
            assert "heads" in x["data"]
    (out / "records.json").write_text(json.dumps(pack))
    bad = subprocess.run([sys.executable, "-I", str(out / "verify.py")], capture_output=True, text=True)
    assert bad.returncode == 1 and "FAIL" in bad.stdout
    # and a swapped frame
    z.extractall(out)
    frame = next(n for n in names if n.startswith("frames/"))
    (out / frame).write_bytes(b"\xff\xd8 not the frame")
    bad = subprocess.run([sys.executable, "-I", str(out / "verify.py")], capture_output=True, text=True)
    assert bad.returncode == 1 and "not the recorded frame" in bad.stdout


def test_chain_verify_endpoint(app, fake):
    play_some(fake)
    sup = logged_in(app, "sam")
    assert sup.post("/api/verify", json={}).status_code == 403           # no token
    r = sup.post("/api/verify", json={}, headers={"X-CSRF-Token": token(sup, "/supervisor")})
    body = r.json()
    with AuditLog(fake.log_path) as log:
        assert body["ok"] and body["head"]["hash"] == log.head()[1]
    assert body["head"]["hash"] in sup.get("/supervisor").text


def test_socket_from_another_origin_is_refused(app):
    from starlette.websockets import WebSocketDisconnect
    boxer = logged_in(app, "bea")
    with pytest.raises(WebSocketDisconnect):
        with boxer.websocket_connect("/ws", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_text()
    with boxer.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
        assert json.loads(ws.receive_text())["kind"] == "hello"


def test_logged_in_camera_socket_sends_jpeg(app):
    boxer = logged_in(app, "bea")
    with boxer.websocket_connect("/ws/camera") as ws:
        assert ws.receive_bytes()[:2] == b"\xff\xd8"


def test_logins_are_not_people_of_a_spin(app, fake):
    fake.play_spin("heads")
    logged_in(app, "bea")                         # a login while spin 1 is the newest
    sup = logged_in(app, "sam")
    assert sup.get("/api/spins").json()["spins"][0]["actors"] == []
    assert all(h["kind"] != "console-login" for h in sup.get("/api/spins/1").json()["human"])


def test_pages_work_before_anything_is_recorded(app, fake):
    import os
    assert not os.path.exists(fake.log_path)
    sup = logged_in(app, "sue")                 # the login itself is the first record
    assert sup.get("/api/spins").json()["spins"] == []
    assert sup.get("/spins").status_code == 200
