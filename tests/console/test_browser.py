"""The console in a real browser (Debian's chromium via chromium-driver), one browser for all
scenarios. Each scenario also leaves a screenshot of its page in docs/console/."""
import io
import json
import os
import subprocess
import sys
import time
import zipfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PASSWORDS
from ringctl.console.browser import start_chromium
from ringctl.record.log import AuditLog

SHOTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "console")


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


def shot(browser, name):
    """The whole page (up to 2400 px tall) as docs/console/NAME.png."""
    os.makedirs(SHOTS, exist_ok=True)
    size = browser.get_window_size()
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(size["width"], min(2400, max(size["height"], height + 20)))
    try:
        browser.save_screenshot(os.path.join(SHOTS, name + ".png"))
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


def test_board_updates_after_a_spin(browser, ring):
    browser.get(ring.url + "/board")
    wait(browser, lambda d: d.find_element(By.ID, "b-live").text == "live", what="the board's socket")
    before = len(road(browser))
    result = ring.spin()
    wait(browser, lambda d: len(road(d)) == before + 1, what="the new result on the road")
    assert road(browser)[-1] == "result-" + result
    assert browser.find_element(By.ID, "b-last").text == result.upper()
    lat = browser.execute_script("return window.__boardLatencies")
    assert lat and 0 <= lat[-1] < 2.0
    shot(browser, "board")


def test_boxer_calls_unsure_spin_with_a_button(browser, ring):
    log_in(browser, ring.url, "bea")
    n = ring.unsure_spin()
    wait(browser, lambda d: d.find_element(By.ID, "unsure").is_displayed(), what="the unsure panel")
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#stills img"), what="the still frames")
    wait(browser, lambda d: d.execute_script("return window.__camFrames") > 2, what="camera frames")
    shot(browser, "boxer-unsure")
    truth = ring.truth(n)
    browser.find_element(By.CSS_SELECTOR, '#unsure button[data-call="%s"]' % truth).click()
    wait(browser, lambda d: "call" in d.find_element(By.ID, "reply").text.lower()
         or d.find_element(By.ID, "reply").get_attribute("class") == "reply good", what="the reply")
    assert "good" in browser.find_element(By.ID, "reply").get_attribute("class"), \
        browser.find_element(By.ID, "reply").text
    wait(browser, lambda d: not d.find_element(By.ID, "unsure").is_displayed(), what="the call to land")
    with AuditLog(ring.log_path) as log:
        audited = [r.data for r in log.records(with_blobs=False) if r.data.get("user") == "bea"]
    assert any(truth in json.dumps(a) for a in audited), audited
    shot(browser, "boxer")


def test_supervisor_acknowledges_an_alarm(browser, ring):
    log_in(browser, ring.url, "sam")
    ring.alarm()
    button = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#alarms button.ack"),
                  what="the alarm")
    shot(browser, "supervisor")
    button[0].click()
    wait(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#alarms button.ack"),
         what="the alarm to be acknowledged")
    assert ring.acked_by() == "sam"


def test_evidence_page_shows_frames_and_pack_verifies(browser, ring, downloads, tmp_path):
    log_in(browser, ring.url, "sue")
    browser.get(ring.url + "/spins")
    shot(browser, "spins")
    n = ring.last_spin_with_frames()
    browser.get(ring.url + "/spins/%d" % n)
    imgs = browser.find_elements(By.CSS_SELECTOR, "#frames img")
    assert imgs
    wait(browser, lambda d: all(d.execute_script("return arguments[0].naturalWidth", i) > 0 for i in imgs),
         what="the frames to load")
    shot(browser, "spin-evidence")
    browser.find_element(By.ID, "evidence-link").click()
    path = os.path.join(downloads, "spin-%d-evidence.zip" % n)
    wait(browser, lambda d: os.path.exists(path) and not os.path.exists(path + ".crdownload"),
         what="the download")
    zipfile.ZipFile(path).extractall(tmp_path)
    out = subprocess.run([sys.executable, "-I", str(tmp_path / "verify.py")], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("OK spin %d" % n), out.stdout + out.stderr
