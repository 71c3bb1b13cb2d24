"""Debian's chromium, headless, driven by chromium-driver through Selenium (browser tests and
`ring bench console`). Never downloads a browser: the Makefile installs the Debian packages."""
import os
import shutil
import tempfile

from ..errors import UserError

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio")


# several windows that each keep rendering (the bench's camera viewers are not background tabs)
NO_THROTTLE = ("--disable-background-timer-throttling", "--disable-renderer-backgrounding",
               "--disable-backgrounding-occluded-windows")


def start_chromium(width=1400, height=1000, downloads=None, extra=()):
    """-> a Selenium WebDriver on a fresh profile; .quit() removes the profile too."""
    for path, pkg in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.path.exists(path):
            raise UserError(f"{path} is missing: install the Debian package '{pkg}' "
                            "(make test does it: apt-get install chromium chromium-driver)", code=1)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    profile = tempfile.mkdtemp(prefix="ring-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS + tuple(extra) + ("--user-data-dir=" + profile, "--window-size=%d,%d" % (width, height)):
        opts.add_argument(flag)
    if downloads:
        opts.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                               "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    if downloads:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(downloads)})
    quit_ = driver.quit

    def quit_and_clean():
        try:
            quit_()
        finally:
            shutil.rmtree(profile, ignore_errors=True)
    driver.quit = quit_and_clean
    return driver


def renice_browser(driver, nice=19):
    """Lower chromium's priority (chromedriver and every process under it) -> how many.
    The bench's browsers stand in for the screens' own devices, which in a casino are not the
    ring's host."""
    pid = driver.service.process.pid
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    todo, done = [pid], 0
    while todo:
        p = todo.pop()
        try:
            os.setpriority(os.PRIO_PROCESS, p, nice)
            done += 1
        except OSError:
            pass
        todo.extend(children.get(p, ()))
    return done
