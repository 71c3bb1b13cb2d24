"""The console served by the real commands: `ring run --console` against the simulated board
(the web boxer arms, calls an unsure spin, and the host records who), and `ring demo --console`
(prints the URL and one-time logins, serves after its spins until Ctrl-C)."""
import ctypes
import os
import re
import signal
import subprocess
import time

import httpx2 as httpx   # the client Starlette 1.10 tests with (httpx deprecated there)
from ringctl.record.log import AuditLog
from ringproc import LINK_UP_S, LINK_WAIT, RING, Proc, board  # noqa: F401  (board is a fixture)


def web_login(url, name, password):
    c = httpx.Client(base_url=url, timeout=10)
    page = c.get("/login").text
    tok = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    r = c.post("/login", data={"user": name, "password": password, "csrf": tok})
    assert r.status_code == 303 and "/login" not in r.headers["location"], r.headers
    return c


def command(c, obj):
    page = c.get("/").text
    tok = re.search(r'name="csrf" content="([^"]+)"', page).group(1)
    return c.post("/api/commands", json=obj, headers={"X-CSRF-Token": tok})


TGKILL = {"x86_64": 234, "aarch64": 131}        # the syscall's number on Linux


def sigint_to_a_side_thread(pid):
    """Ctrl-C as the kernel may deliver it: SIGINT taken by one of the process's threads that is
    not the main one (tgkill). Python raises it in the main thread only when that thread next
    runs bytecode: a main thread in one long sleep never saw it."""
    tids = sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid)
    assert tids, "the demo has no threads besides its main one"
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.syscall(TGKILL[os.uname().machine], pid, tids[-1], signal.SIGINT) == 0


def test_ring_run_console_boxer_calls_the_spin_from_the_web(board, tmp_path):
    b, keyfile = board
    db = str(tmp_path / "audit.db")
    env = dict(os.environ, RING_HOME=str(tmp_path / "home"))
    add = subprocess.run([RING, "console", "user", "add", "bea", "--role", "boxer",
                          "--password-stdin", "--log", db], input="bea-password-1\n",
                         capture_output=True, text=True, env=env, timeout=30)
    assert add.returncode == 0, add.stderr
    proc = Proc([RING, "run", "--port", b.tty, "--key", keyfile, "--log", db,
                 "--console", "127.0.0.1:0"] + LINK_WAIT, env)
    try:
        url = proc.expect_re(r"console: (http://127\.0\.0\.1:\d+)", 20).group(1)
        proc.expect("link up", LINK_UP_S)
        assert "<button" not in httpx.get(url + "/board").text
        assert httpx.post(url + "/api/commands", json={"cmd": "arm"}).status_code == 401
        web = web_login(url, "bea", "bea-password-1")
        for op in ({"op": "spinner", "calls": "heads", "name": "Ada"}, {"op": "bets-open"},
                   {"op": "bet", "id": "b1", "on": "spinner", "amount": 10}, {"op": "bets-closed"}):
            r = command(web, {"cmd": "table", "op": op})
            assert r.status_code == 200, r.text
        r = command(web, {"cmd": "table", "op": {"op": "bet", "id": "b2", "on": "heads", "amount": 5}})
        assert r.status_code == 409 and r.json()["rule"]        # betting is closed: the rule says so
        assert command(web, {"cmd": "arm"}).json()["ok"]
        b.send_sensor("mat 1")
        time.sleep(0.4)
        b.send_sensor("piezo 0 20000")
        deadline = time.monotonic() + 15
        while (web.get("/api/state").json().get("spin") or {}).get("state") != "unsure":
            assert time.monotonic() < deadline, "no unsure verdict (no camera: the boxer calls)"
            time.sleep(0.1)
        r = command(web, {"cmd": "call", "result": "heads", "reason": "read from the web"})
        assert r.status_code == 200 and r.json()["ok"], r.text
    finally:
        proc.p.send_signal(signal.SIGINT)
        try:
            proc.p.wait(15)
        except subprocess.TimeoutExpired:
            proc.p.kill()
    with AuditLog(db) as log:
        assert log.verify()["ok"]
        over = [r.data for r in log.records(kind="override", with_blobs=False)]
        logins = [r.data for r in log.records(kind="console-login", with_blobs=False)]
        users = [r.data for r in log.records(kind="console-user", with_blobs=False)]
    assert over and (over[-1]["result"], over[-1]["user"], over[-1]["role"]) == ("heads", "bea", "boxer")
    assert logins[-1]["ok"] and logins[-1]["user"] == "bea"
    assert users and users[0]["name"] == "bea"


def test_ring_demo_console_prints_url_and_logins_and_serves_until_ctrl_c(tmp_path):
    env = dict(os.environ, RING_HOME=str(tmp_path / "home"))
    proc = Proc([RING, "demo", "--spins", "1", "--seed", "3", "--workdir", str(tmp_path / "w"),
                 "--console", "0"], env)
    try:
        url = proc.expect_re(r"console: (http://127\.0\.0\.1:\d+)", 60).group(1)
        logins = proc.expect_re(r"one-time logins for this demo: (.*)", 5).group(1)
        creds = dict(x.split(" / ") for x in logins.split(", "))
        assert set(creds) == {"boxer", "supervisor", "surveillance"}
        proc.expect_re(r"still serving at", 90)                    # after the spins and summary
        state = httpx.get(url + "/api/state").json()
        assert len(state["results"]) == 1
        web = web_login(url, "surveillance", creds["surveillance"])
        assert web.get("/api/spins").json()["spins"][0]["spin"] == 1
        time.sleep(1.0)
        assert proc.p.poll() is None                            # still serving
        sigint_to_a_side_thread(proc.p.pid)
        assert proc.wait_exit(20) in (0, 1)                        # the demo's own exit status
    finally:
        if proc.p.poll() is None:
            proc.p.kill()
