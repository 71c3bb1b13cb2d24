"""The console in a real browser (Debian's chromium via chromium-driver) on the real thing: the
demo's session (the firmware under micropython, the simulated ring and camera, RingHost) with
the console served beside it. One browser and one session for all scenarios; each scenario
also leaves a screenshot of its page (in docs/console/ under `make screenshots`)."""
import os
import subprocess
import sys
import threading
import time
import zipfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PASSWORDS
from ringctl.console import users as users_mod
from ringctl.console.browser import start_chromium
from ringctl.console.options import ring_outline
from ringctl.console.server import ConsoleServer
from ringctl.record.log import AuditLog
from ringctl.runner.commands import parse_command
from ringctl.sim.session import DemoSession

import commissioned

CLEAN_SEED = 101        # seeds of tests/e2e: a clean spin, and one whose result needs the camera
CAMERA_SEED = 103


class DemoRing:
    """The scenarios' ring: a DemoSession, the console beside its host, and the drills."""

    def __init__(self, work):
        self.demo = DemoSession(str(work), seed=11, coin_px=44, fps=15, say=lambda s: None)
        with commissioned.shared():   # the site tests/e2e/test_demo_e2e.py commissions too
            self.demo.__enter__()
        users = users_mod.Users(work / "users.json")
        for name, (role, pw) in PASSWORDS.items():
            users.add(name, role, pw)
        self.server = ConsoleServer(self.demo.host, self.demo.log_path, users.path, parse_command,
                                    bind="127.0.0.1:0",
                                    ring=ring_outline(None)).start()   # a demo: no single-camera ring outline
        self.url, self.log_path = self.server.url, self.demo.log_path
        self.thread = self.failure = None

    def close(self):
        self.server.stop()
        self.demo.__exit__(None, None, None)

    def spin(self):
        """A clean spin, played to its settlement -> its result."""
        return self.demo.play_spin(seed=CLEAN_SEED)["outcome"]

    def unsure_spin(self):
        """A spin with the camera stalled (fault light, alarm), left for the boxer at the
        console to call; -> its number once the host says it is unsure."""
        cam = self.demo.camera

        def stall(toss):
            real_read = cam.read

            def dead():
                time.sleep(0.05)
                return None, None
            cam.read = dead
            time.sleep(toss.truth["rest_t"] + 6.0)
            cam.read = real_read

        def play():
            try:
                self.rec = self.demo.play_spin(seed=CAMERA_SEED, during=stall, boxer_calls=False)
            except BaseException as exc:          # reported by finish()
                self.failure = exc
        self.thread = threading.Thread(target=play, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.failure is None:
            spin = self.demo.host.snapshot()["spin"] or {}
            if spin.get("state") == "unsure":
                return spin["number"]
            time.sleep(0.05)
        raise AssertionError("no unsure spin: %r" % (self.failure,))

    def truth(self, n):
        truth = self.demo.last_toss.truth["outcome"]
        assert truth == "tails", "the seed's precondition: a result that needs the camera"
        return truth

    def finish(self):
        self.thread.join(60)
        assert self.failure is None, self.failure
        return self.rec

    def alarm(self):
        """-> the alarms waiting for a supervisor (the stalled camera raised one)."""
        alarms = self.demo.host.snapshot()["alarms"]
        assert alarms, "the stalled camera raised no alarm"
        return alarms

    def acked_by(self, alarm_id):
        with AuditLog(self.log_path) as log:
            acks = [r.data for r in log.records(kind="alarm-ack", with_blobs=False)
                    if r.data["id"] == alarm_id]
        return acks[-1]["user"] if acks else None

    def last_spin_with_frames(self):
        with AuditLog(self.log_path) as log:
            return max(r.data["spin"] for r in log.records(kind="frame", with_blobs=False))


@pytest.fixture(scope="module")
def ring(tmp_path_factory):
    r = DemoRing(tmp_path_factory.mktemp("ring"))
    yield r
    r.close()

# The screenshots in docs/console/ are made by these tests: `make screenshots` writes them
# there; a plain test run writes them beside its other temporary files, leaving the tree clean.
DOCS_SHOTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "console")


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return DOCS_SHOTS if os.environ.get("RING_SCREENSHOTS") else str(tmp_path_factory.mktemp("shots"))


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads):
    d = start_chromium(downloads=downloads)
    yield d
    d.quit()


def wait(browser, cond, timeout=20, what="the page"):
    return WebDriverWait(browser, timeout, poll_frequency=0.05).until(
        lambda d: cond(d), message="timed out waiting for " + what)


def shot(browser, name, folder):
    """The whole page (up to 2400 px tall) as FOLDER/NAME.png."""
    os.makedirs(folder, exist_ok=True)
    size = browser.get_window_size()
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(size["width"], min(2400, max(size["height"], height + 20)))
    try:
        browser.save_screenshot(os.path.join(folder, name + ".png"))
    finally:
        browser.set_window_size(size["width"], size["height"])


def log_in(browser, url, name):
    browser.delete_all_cookies()
    browser.get(url + "/login")
    browser.find_element(By.ID, "user").send_keys(name)
    browser.find_element(By.ID, "password").send_keys(PASSWORDS[name][1])
    browser.find_element(By.ID, "login").click()
    wait(browser, lambda d: "/login" not in d.current_url, what="login")


def road(browser):
    return [li.get_attribute("class") for li in browser.find_elements(By.CSS_SELECTOR, "#road li")]


def test_board_updates_after_a_spin(browser, ring, shots):
    browser.get(ring.url + "/board")
    wait(browser, lambda d: d.find_element(By.ID, "b-live").text == "live", what="the board's socket")
    before = len(road(browser))
    result = ring.spin()
    wait(browser, lambda d: len(road(d)) == before + 1, what="the new result on the road")
    assert road(browser)[-1] == "result-" + result
    assert browser.find_element(By.ID, "b-last").text == result.upper()
    lat = browser.execute_script("return window.__boardLatencies")
    assert lat and 0 <= lat[-1] < 2.0
    shot(browser, "board", shots)


def test_boxer_calls_unsure_spin_with_a_button(browser, ring, shots):
    log_in(browser, ring.url, "bea")
    n = ring.unsure_spin()
    wait(browser, lambda d: d.find_element(By.ID, "unsure").is_displayed(), what="the unsure panel")
    # the stalled camera left no still frame: the panel says so, and the boxer reads the coins
    wait(browser, lambda d: "no still frame" in d.find_element(By.ID, "stills").text,
         what="the still-frame panel")
    wait(browser, lambda d: d.execute_script("return window.__camFrames") > 2, what="camera frames")
    shot(browser, "boxer-unsure", shots)
    truth = ring.truth(n)
    browser.find_element(By.CSS_SELECTOR, '#unsure button[data-call="%s"]' % truth).click()
    wait(browser, lambda d: "call" in d.find_element(By.ID, "reply").text.lower()
         or d.find_element(By.ID, "reply").get_attribute("class") == "reply good", what="the reply")
    assert "good" in browser.find_element(By.ID, "reply").get_attribute("class"), \
        browser.find_element(By.ID, "reply").text
    wait(browser, lambda d: not d.find_element(By.ID, "unsure").is_displayed(), what="the call to land")
    rec = ring.finish()
    assert rec["outcome"] == truth and rec["camera_fault"]
    with AuditLog(ring.log_path) as log:
        calls = [r.data for r in log.records(kind="override", with_blobs=False)]
    assert calls[-1]["spin"] == n and calls[-1]["result"] == truth
    assert (calls[-1]["user"], calls[-1]["role"]) == ("bea", "boxer")
    shot(browser, "boxer", shots)


def test_supervisor_acknowledges_an_alarm(browser, ring, shots):
    log_in(browser, ring.url, "sam")
    alarm = ring.alarm()[0]
    sel = '#alarms button.ack[data-id="%s"]' % alarm["id"]
    present = "return !!document.querySelector(arguments[0])"
    wait(browser, lambda d: d.execute_script(present, sel), what="the alarm")
    shot(browser, "supervisor", shots)
    browser.find_element(By.CSS_SELECTOR, sel).click()
    wait(browser, lambda d: not d.execute_script(present, sel), what="the alarm to be acknowledged")
    assert ring.acked_by(alarm["id"]) == "sam"


def test_evidence_page_shows_frames_and_pack_verifies(browser, ring, shots, downloads, tmp_path):
    log_in(browser, ring.url, "sue")
    browser.get(ring.url + "/spins")
    shot(browser, "spins", shots)
    n = ring.last_spin_with_frames()
    browser.get(ring.url + "/spins/%d" % n)
    imgs = browser.find_elements(By.CSS_SELECTOR, "#frames img")
    assert imgs
    wait(browser, lambda d: all(d.execute_script("return arguments[0].naturalWidth", i) > 0 for i in imgs),
         what="the frames to load")
    shot(browser, "spin-evidence", shots)
    browser.find_element(By.ID, "evidence-link").click()
    path = os.path.join(downloads, "spin-%d-evidence.zip" % n)
    wait(browser, lambda d: os.path.exists(path) and not os.path.exists(path + ".crdownload"),
         what="the download")
    zipfile.ZipFile(path).extractall(tmp_path)
    out = subprocess.run([sys.executable, "-I", str(tmp_path / "verify.py")], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("OK spin %d" % n), out.stdout + out.stderr
