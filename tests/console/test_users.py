"""Console users: scrypt hashes, roles, the user file, `ring console user …`, sessions, throttle."""
import io
import os
import stat
import sys

import pytest

from ringctl.cli import main
from ringctl.console import sessions as S
from ringctl.console.server import parse_bind
from ringctl.console.users import Users, check_password, hash_password
from ringctl.errors import UserError
from ringctl.record.log import AuditLog


def test_scrypt_hash_is_memory_hard_and_salted(monkeypatch):
    from ringctl.console import users
    monkeypatch.setattr(users, "SCRYPT", {"n": 1 << 14, "r": 8, "p": 1})   # the real cost
    a, b = hash_password("correct horse"), hash_password("correct horse")
    assert a["kdf"] == "scrypt" and a["n"] * a["r"] * 128 >= 16 << 20       # >= 16 MiB
    assert a["salt"] != b["salt"] and a["hash"] != b["hash"]
    assert check_password("correct horse", a) and not check_password("correct horsE", a)


def test_user_file_holds_no_password_and_is_private(tmp_path):
    u = Users(tmp_path / "u.json")
    u.add("bea", "boxer", "secret-password-1")
    text = (tmp_path / "u.json").read_text()
    assert "secret-password-1" not in text
    assert stat.S_IMODE(os.stat(tmp_path / "u.json").st_mode) == 0o600
    assert u.authenticate("bea", "secret-password-1") == "boxer"
    assert u.authenticate("bea", "wrong-password-1") is None
    assert u.authenticate("nobody", "secret-password-1") is None


@pytest.mark.parametrize("name,role,pw,msg", [
    ("Bea!", "boxer", "long-enough-pw", "not allowed"),
    ("bea", "dealer", "long-enough-pw", "not a role"),
    ("bea", "boxer", "short", "too short"),
])
def test_bad_users_are_refused_in_one_line(tmp_path, name, role, pw, msg):
    with pytest.raises(UserError, match=msg):
        Users(tmp_path / "u.json").add(name, role, pw)


def test_cli_user_add_list_remove_are_audited(tmp_path, monkeypatch, capsys):
    users, log = str(tmp_path / "u.json"), str(tmp_path / "audit.db")
    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-password\n"))
    assert main(["console", "user", "add", "sam", "--role", "supervisor", "--password-stdin",
                 "--users", users, "--log", log]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-password\n"))
    assert main(["console", "user", "add", "sam", "--role", "boxer", "--password-stdin",
                 "--users", users, "--log", log]) == 2              # exists: needs --replace
    assert "--replace" in capsys.readouterr().err
    assert main(["console", "user", "list", "--users", users]) == 0
    assert "sam" in capsys.readouterr().out
    assert main(["console", "user", "remove", "sam", "--users", users, "--log", log]) == 0
    with AuditLog(log) as a:
        acts = [(r.data["action"], r.data["name"]) for r in a.records(kind="console-user")]
    assert acts == [("add", "sam"), ("remove", "sam")]


def test_csrf_tokens_are_single_use_and_per_session():
    store = S.SessionStore()
    a, b = store.create("bea", "boxer"), store.create("sam", "supervisor")
    t = store.issue_token(a)
    assert store.spend_token(b, t) is not None
    assert store.spend_token(a, t) is None
    assert "replayed" in store.spend_token(a, t)
    assert "missing" in store.spend_token(a, "")


def test_sessions_expire_and_forged_cookies_fail():
    now = [1000.0]
    store = S.SessionStore(clock=lambda: now[0])
    s = store.create("bea", "boxer")
    cookie = store.cookie_value(s)
    assert store.from_cookie(cookie) is s
    # a forged signature: its second-last character changed (all 6 of its bits are the
    # signature's; "xx" over the last two was the same cookie about once in a thousand runs)
    forged = cookie[:-2] + ("A" if cookie[-2] != "A" else "B") + cookie[-1]
    assert store.from_cookie(forged) is None
    now[0] += S.IDLE_S + 1
    assert store.from_cookie(cookie) is None


def test_lockout_and_unlock():
    t = [0.0]
    th = S.LoginThrottle(clock=lambda: t[0])
    for i in range(S.FAILS_TO_LOCK):
        assert th.check("bea", "a%d" % i) is None
        locked = th.failed("bea")
    assert locked and th.check("bea", "z")[0] == 423
    t[0] += S.LOCK_S + 1
    assert th.check("bea", "z") is None


def test_parse_bind():
    assert parse_bind("8080") == ("127.0.0.1", 8080)
    assert parse_bind("0.0.0.0:9000") == ("0.0.0.0", 9000)
    assert parse_bind("[::1]:9000") == ("::1", 9000)
    with pytest.raises(UserError, match="HOST"):
        parse_bind("localhost:http")
