"""Console test fixtures: a fake host over a real audit log, users, and a logged-in client."""
import pytest

from fakehost import FakeHost
from ringctl.console import users as users_mod

PASSWORDS = {"bea": ("boxer", "boxer-pass-1"), "sam": ("supervisor", "super-pass-1"),
             "sue": ("surveillance", "watch-pass-1")}


@pytest.fixture(autouse=True)
def fast_scrypt(monkeypatch):
    # the real cost (n=2**14) is exercised in test_users; elsewhere keep logins quick
    monkeypatch.setattr(users_mod, "SCRYPT", {"n": 1 << 10, "r": 8, "p": 1})


@pytest.fixture
def users_path(tmp_path):
    path = tmp_path / "users.json"
    u = users_mod.Users(path)
    for name, (role, pw) in PASSWORDS.items():
        u.add(name, role, pw)
    return str(path)


@pytest.fixture
def fake(tmp_path):
    return FakeHost(str(tmp_path / "audit.db"))

