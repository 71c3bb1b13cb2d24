"""Console test fixtures: a fake host over a real audit log, users, and a logged-in client."""
import pytest

from fakehost import FakeHost
from ringctl.runner.commands import parse_command
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


class FakeRing:
    """The browser scenarios' ring on the in-test fake host (until RingHost's API lands)."""

    def __init__(self, host, url):
        self.host, self.url, self.log_path = host, url, host.log_path
        self.truths = {}

    def spin(self):
        n = self.host.play_spin("tails")
        return "tails"

    def unsure_spin(self):
        n = self.host.play_spin("odds", unsure=True)
        self.truths[n] = "odds"
        return n

    def truth(self, n):
        return self.truths[n]

    def alarm(self):
        self.host.raise_alarm("camera", "camera fault: no frame for 2 s")

    def acked_by(self):
        return self.host.alarms[-1].get("acked_by")

    def last_spin_with_frames(self):
        return self.host.spins


@pytest.fixture(scope="module")
def ring(tmp_path_factory):
    from ringctl.console.server import ConsoleServer
    d = tmp_path_factory.mktemp("ring")
    users = d / "users.json"
    u = users_mod.Users(users)
    for name, (role, pw) in PASSWORDS.items():
        u.add(name, role, pw)
    host = FakeHost(str(d / "audit.db"))
    server = ConsoleServer(host, host.log_path, str(users), parse_command, bind="127.0.0.1:0").start()
    yield FakeRing(host, server.url)
    server.stop()
