"""`ring doctor`: one report a technician can act on: link, firmware, sensors, light, camera, disk.

Every line is OK / WARN / FAIL / SKIP plus, for anything not OK, what to check. The checks
talk to the board only through a small link interface (see devlink.py), so the same code
runs against a real board, the simulated board, and the tests' fake link.
"""
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

from ..errors import UserError
from ..fw import ringmsg as M
from . import camera, keys, pinmap

OK, WARN, FAIL, SKIP = "OK", "WARN", "FAIL", "SKIP"
# The light test: every state the boxer can be shown, ending where it started.
LIGHT_SEQUENCE = (M.LIGHT_IDLE, M.LIGHT_ARMED, M.LIGHT_IN_FLIGHT, M.LIGHT_BARRED,
                  M.LIGHT_HEADS, M.LIGHT_TAILS, M.LIGHT_ODDS, M.LIGHT_UNSURE, M.LIGHT_FAULT,
                  M.LIGHT_IDLE)
DISK_FAIL_MB, DISK_WARN_MB = 200, 2000


class Report:
    """Collected check lines; `failed` decides the exit status."""

    def __init__(self):
        self.items = []
        self.retrying = False

    def add(self, status, what, detail, fix=""):
        self.items.append({"status": status, "check": what, "detail": detail, "fix": fix})

    @property
    def failed(self):
        return any(i["status"] == FAIL for i in self.items)

    def text(self):
        lines = ["ring doctor report"]
        for i in self.items:
            detail = i["detail"].replace(". Check: ", ".\n        %-22s check: " % "")
            lines.append("  %-4s  %-22s %s" % (i["status"], i["check"], detail))
            if i["fix"] and i["status"] != OK:
                lines.append("        %-22s check: %s" % ("", i["fix"]))
        n = {s: sum(1 for i in self.items if i["status"] == s) for s in (OK, WARN, FAIL, SKIP)}
        lines.append("summary: %d ok, %d warn, %d FAIL, %d skipped -> %s" % (
            n[OK], n[WARN], n[FAIL], n[SKIP], self.verdict()))
        return "\n".join(lines)

    @property
    def ready(self):
        """Ready for play only when every check ran and none failed (a skipped camera or
        link check proves nothing)."""
        return not any(i["status"] in (FAIL, SKIP) for i in self.items)

    def verdict(self):
        if self.ready:
            return "ready" + (" (read the warnings above)" if any(
                i["status"] == WARN for i in self.items) else "")
        skipped = [i["check"] for i in self.items if i["status"] == SKIP]
        return "NOT ready for play" + (
            " (not checked: %s)" % ", ".join(skipped) if skipped else "")


def _pin_where(pm, name):
    """'BEAM3 (GP5, header pin 7)' for fault messages; the pin map says where to look."""
    for p in pm["pins"]:
        if p["name"] == name:
            phys = pinmap.GPIO_TO_PHYS.get(p["gpio"])
            return "%s (GP%d%s)" % (name, p["gpio"], ", header pin %d" % phys if phys else "")
    return name


def sensor_lines(pm, fault_mask):
    """Fault bitmask from EV_SELFTEST -> [(status, what, detail, fix)] one per sensor."""
    out = []
    for n in range(8):
        bad = fault_mask & (1 << n)
        out.append((FAIL if bad else OK, "beam sector %d" % n,
                    "broken at idle (7.3.1 boundary unguarded)" if bad else "clear",
                    "beam alignment and lens cleanliness of %s; nothing lying across the ring "
                    "edge; receiver cable and wiring, %s (pin map)"
                    % (_pin_where(pm, "BEAM%d" % n), pinmap.wiring_words(pm, "BEAM%d" % n))))
    piezos = [p["name"] for p in pinmap.group(pm, "piezo")]
    for n, name in enumerate(piezos):
        bad = fault_mask & (1 << (8 + n))
        out.append((FAIL if bad else OK, "piezo %d" % n,
                    "no noise floor: disconnected" if bad else "noise floor present",
                    "piezo disc lead and cable on %s, disc still bonded under the layout; "
                    "wiring (pin map): %s" % (_pin_where(pm, name), pinmap.wiring(pm, name))))
    for bit, name, label in ((12, "BTN_NOSPIN", "no-spin button"), (13, "BTN_ARM", "arm button")):
        bad = fault_mask & (1 << bit)
        out.append((FAIL if bad else OK, label, "stuck pressed" if bad else "released",
                    "button contact and cable on %s (shorted?); wiring (pin map): %s"
                    % (_pin_where(pm, name), pinmap.wiring(pm, name))))
    bad = fault_mask & M.FAULT_WALL
    out.append((FAIL if bad else OK, "wall piezo", "silent (7.3.2 strikes unseen)" if bad
                else "noise floor present",
                "wall piezo disc and cable on %s / %s; wiring (pin map): %s; %s" % (
                    _pin_where(pm, "WALL"), _pin_where(pm, "WALL_TRIG"), pinmap.wiring(pm, "WALL"),
                    pinmap.wiring(pm, "WALL_TRIG"))))
    bad = fault_mask & M.FAULT_INTEGRITY
    out.append((FAIL if bad else OK, "firmware integrity",
                "files differ from /manifest.json" if bad else "no integrity fault",
                "re-deploy: `ring device deploy`"))
    return out


def ringmsg_name(code):
    return M.EVENT_NAMES.get(code, "ev%d" % code)


def _wait(link, pred, timeout):
    """Next event satisfying pred within timeout (others are passed over), or None."""
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return None
        ev = link.next_event(left)
        if ev is not None and pred(ev):
            return ev


def _result_error(cmd_id):
    return lambda ev: ev.code == M.EV_RESULT and ev.a == cmd_id and ev.b != M.R_OK


def check_link(report, link, pm):
    hello = link.hello or {}
    report.add(OK, "link + handshake", "device %s, last reset: %s%s" % (
        hello.get("device_id", "?"),
        M.RESET_NAMES.get(hello.get("reset_cause"), hello.get("reset_cause", "?")),
        ", handshake %d ms" % hello["handshake_ms"] if "handshake_ms" in hello else ""))
    if hello.get("reset_cause") == M.RESET_WATCHDOG:
        report.add(WARN, "last reset", "watchdog reset: the firmware hung or crashed",
                   "`ring link dump` around the last boot; report the firmware version")
    want = getattr(link, "host_protocol", None)
    got = str(hello.get("protocol"))
    fix = "deploy the firmware built from this host's checkout (`ring device deploy`)"
    if want is not None and got.split(".")[0] != str(want).split(".")[0]:
        report.add(FAIL, "protocol version", "board speaks %s, host %s" % (got, want), fix)
    elif want is not None and got != str(want):
        report.add(WARN, "protocol version", "board %s, host %s (compatible)" % (got, want), fix)
    else:
        report.add(OK, "protocol version", got)
    interp = hello.get("interpreter", "")
    pinned = pm.get("micropython", {}).get("version", "")
    fw = "firmware %s on %s" % (hello.get("firmware", "?"), interp or "?")
    if str(hello.get("device_id", "")).upper().startswith("SIM"):
        report.add(OK, "firmware version", fw + " (simulated board)")
    elif pinned and not re.search(r"(^|[ v])%s($|[ ;])" % re.escape(pinned), interp):
        report.add(WARN, "firmware version", fw + "; pinned MicroPython is v" + pinned,
                   "flash the UF2 named in hardware/MICROPYTHON.md, then `ring device deploy`")
    else:
        report.add(OK, "firmware version", fw)


def check_link_security(report, link, timeout=2.0):
    """Frames that failed authentication inside a session, counted by both ends (the board's
    own count comes in EV_LINK, its answer to a status command)."""
    client = getattr(link, "client", None)
    host = client.stats() if client is not None else {}
    link.command(M.CMD_STATUS)
    ev = _wait(link, lambda e: e.code == M.EV_LINK, timeout)
    fix = ("someone may be injecting or replaying frames on the USB line: check the cable and "
           "any hub between host and board; the audit log has `security-alarm` records")
    if ev is None:
        report.add(WARN, "link security", "board did not report its link counters in %.0f s "
                   "(host alarms %d)" % (timeout, host.get("alarms", 0)),
                   "deploy firmware with ring link 2.0 (`ring device deploy`)")
        return
    board, keyerr = ev.a, ev.b
    detail = "board: %d alarm(s), %d wrong-key HELLO(s) since boot %08x (%s); host: %d alarm(s)" % (
        board, keyerr, ev.boot_id, ev.text, host.get("alarms", 0))
    if board or host.get("alarms"):
        report.add(FAIL, "link security", detail, fix)
    elif keyerr:
        report.add(WARN, "link security", detail, "another host with a wrong key talked to "
                   "this board: `ring device provision` it, or stop that program")
    else:
        report.add(OK, "link security", detail)


def check_image(report, link, build_image):
    got = (link.hello or {}).get("image_hash", "")
    sim = str((link.hello or {}).get("device_id", "")).upper().startswith("SIM")
    if not got.strip("0"):
        # The simulated board normally runs the source tree: unverified is its normal state.
        report.add(FAIL if build_image and not sim else WARN, "image vs build",
                   "board has no deploy manifest (running unverified files)",
                   "`ring device deploy` so the board can check its own files")
    elif not build_image:
        report.add(WARN, "image vs build", "board image %s; no build to compare" % (got or "?"),
                   "run `ring device build` (or pass --build-dir)")
    elif got and (got == build_image or build_image.startswith(got)):
        report.add(OK, "image vs build", "board runs the current build %s" % got[:16])
    else:
        report.add(FAIL, "image vs build", "board %s, build %s" % (got[:16] or "none",
                                                                  build_image[:16]),
                   "`ring device deploy` to install the current build")


def check_selftest(report, link, pm, timeout):
    cmd = link.command(M.CMD_SELFTEST)
    ev = _wait(link, lambda e: e.code == M.EV_SELFTEST or _result_error(cmd)(e), timeout)
    if ev is not None and ev.code == M.EV_RESULT and "already running" in ev.text:
        # The board's own (boot) self-test is under way: let it finish, then test afresh.
        _wait(link, lambda e: e.code == M.EV_SELFTEST, timeout)
        cmd = link.command(M.CMD_SELFTEST)
        ev = _wait(link, lambda e: e.code == M.EV_SELFTEST or _result_error(cmd)(e), timeout)
    if ev is None:
        report.add(FAIL, "self-test", "no answer in %.1f s" % timeout,
                   "the firmware is busy or hung: power-cycle the board, then `ring doctor`")
        return False
    if ev.code == M.EV_RESULT:
        report.add(FAIL, "self-test", "refused: %s" % ev.text,
                   "disarm first (the board only self-tests when idle)")
        return False
    bad = sum(1 for line in sensor_lines(pm, ev.b) if line[0] == FAIL)
    report.add(FAIL if (ev.a or ev.b) else OK, "self-test",
               ("%d fault(s), mask 0x%x%s" % (bad, ev.b, ": " + ev.text if ev.text else ""))
               if (ev.a or ev.b) else "passed (boot %08x)" % ev.boot_id,
               "the per-sensor lines below")
    for status, what, detail, fix in sensor_lines(pm, ev.b):
        report.add(status, what, detail, fix)
    # Mat state: informative only (an empty mat is normal between spins).
    link.command(M.CMD_STATUS)
    mat = _wait(link, lambda e: e.code == M.EV_MAT, min(timeout, 2.0))
    if mat is None:
        report.add(WARN, "spinner mat", "no status answer", "firmware status command")
    else:
        report.add(OK, "spinner mat", "spinner on the mat (closed)" if mat.a else
                   "open (nobody on it): step on it and re-run to test the switch")
    return not (ev.a or ev.b)


def check_light(report, link, hold_s, timeout, pm=None):
    """Every light state in turn. -> True when the board refused them all because it is in
    FAULT (then nothing is reported: the caller self-tests first and retries)."""
    bad = []
    for state in LIGHT_SEQUENCE:
        cmd = link.command(M.CMD_LIGHT, str(state))
        # The command's EV_RESULT is the confirmation (EV_LIGHT comes before it, but only
        # when the light actually changes).
        ev = _wait(link, lambda e: e.code == M.EV_RESULT and e.a == cmd, timeout)
        if ev is None or ev.b != M.R_OK:
            bad.append("%s (%s)" % (M.LIGHT_NAMES[state],
                                    "no confirmation" if ev is None else ev.text))
        if hold_s:
            time.sleep(hold_s)  # long enough for the technician to see each state
    names = ", ".join(M.LIGHT_NAMES[s] for s in LIGHT_SEQUENCE)
    reasons = {b.split(" (", 1)[1] for b in bad}
    if len(bad) == len(LIGHT_SEQUENCE) and len(reasons) == 1:
        reason = reasons.pop().rstrip(")")
        if "fault" in reason and report is not None and not report.retrying:
            return True
        report.add(FAIL, "light test", "refused for every state: %s" % reason,
                   "clear the board's fault first (self-test lines), then re-run")
    elif bad:
        report.add(FAIL, "light test", "not confirmed: " + "; ".join(bad),
                   "light_type in /config.json; the LIGHT_* pins' wiring (pin map): %s"
                   % _light_wiring(pm))
    else:
        report.add(OK, "light test", "board confirmed %s; watch the stack light and buzzer "
                   "follow that order" % names,
                   "a segment that did not light: its lamp and the wiring (pin map): %s"
                   % _light_wiring(pm))
    return False


def _light_wiring(pm):
    return pinmap.wiring(pm if pm is not None else pinmap.load(), "LIGHT_RED")


def parse_zone(text):
    """'3000x1600' (mm of layout this camera covers) -> (3000, 1600); '3000' is a square."""
    try:
        parts = [int(v) for v in str(text).lower().split("x")]
    except ValueError:
        parts = []
    if len(parts) == 1:
        parts *= 2
    if len(parts) != 2 or min(parts) <= 0:
        raise UserError(f"--zone {text!r}: give the layout area this camera covers in mm, "
                        "e.g. 3000 (whole 3 m ring) or 3000x1600 (half of it)")
    return tuple(parts)


def check_walk(report, link, pm, walk_s, say=print):
    """Beam walk test: the technician breaks every beam in turn; each sector must report.
    With LOW = broken wiring a cut receiver cable reads "clear" forever: only this catches it."""
    say("walk test: break each of the 8 beams in turn with a coin on edge (%d s)" % walk_s)
    seen = set()
    end = time.monotonic() + walk_s
    while len(seen) < 8:
        left = end - time.monotonic()
        if left <= 0:
            break
        ev = link.next_event(left)
        if ev is not None and ev.code == M.EV_BEAM and 0 <= ev.a < 8 and ev.a not in seen:
            seen.add(ev.a)
            say("  sector %d seen (%d/8)" % (ev.a, len(seen)))
    missing = [n for n in range(8) if n not in seen]
    if missing:
        report.add(FAIL, "beam walk test", "no break seen on sector(s) %s in %d s" % (
            ", ".join(map(str, missing)), walk_s),
            "; ".join("%s: receiver cable and wiring, %s (pin map)"
                      % (_pin_where(pm, "BEAM%d" % n), pinmap.wiring_words(pm, "BEAM%d" % n))
                      for n in missing))
    else:
        report.add(OK, "beam walk test", "every sector reported a break")


def check_config(report, cfg):
    """The ring config's files: calibration, face model, key. -> RingModel or None."""
    ring_model = None
    if cfg.get("ring"):
        from ..vision.ring import RingModel
        try:
            ring_model = RingModel.load(cfg["ring"])
            confirmed = (ring_model.settled_by_coins or {}).get("confirmed")
            report.add(OK, "ring calibration", "%s: %dx%d image, coin %.0f px, ring %.0f mm%s" % (
                cfg["ring"], ring_model.image_size[0], ring_model.image_size[1],
                2 * ring_model.coin_radius_px, ring_model.ring_mm,
                "; edge settled by the coins' size, confirmed by %s at %s" % (confirmed["by"], confirmed["at"])
                if confirmed else ""))
        except UserError as exc:
            fix = ("`ring vision train --heads HEADS/ --tails TAILS/ --ring RING.json -o MODEL` settles it"
                   if "not settled yet" in str(exc) else
                   "look at the boundary drawn, then `ring vision confirm-edge --ring %s --by NAME`; or tape "
                   "the wall's foot and calibrate again" % cfg["ring"]
                   if "nobody has confirmed" in str(exc) else
                   "`ring vision calibrate --settle-band` and `ring vision train` again, then confirm-edge; or "
                   "tape the wall's foot and calibrate again"
                   if "settled by the coins' size, but" in str(exc) else
                   "`ring vision calibrate EMPTY.jpg -o RING.json`, and \"ring\" in the config")
            report.add(FAIL, "ring calibration", str(exc), fix)
    elif cfg:
        report.add(FAIL, "ring calibration", "the config names no \"ring\"",
                   "`ring vision calibrate EMPTY.jpg -o ring.json`, then \"ring\": \"ring.json\"")
    if cfg.get("model"):
        from ..vision.faceid import FaceModel
        try:
            FaceModel.load(cfg["model"])
            report.add(OK, "face model", cfg["model"])
        except UserError as exc:
            report.add(FAIL, "face model", str(exc), "`ring vision train`, and \"model\" in "
                       "the config")
    elif cfg:
        report.add(FAIL, "face model", "the config names no \"model\"",
                   "`ring vision train ... -o coins.model`, then \"model\": \"coins.model\"")
    if cfg.get("key"):
        from ..link.keys import key_is_private, load_key_file
        try:
            load_key_file(cfg["key"])
            private = key_is_private(cfg["key"])
            report.add(OK if private else WARN, "key file", cfg["key"] + (
                ", mode 0600" if private else ": readable by other accounts"),
                "chmod 600 " + cfg["key"])
        except UserError as exc:
            report.add(FAIL, "key file", str(exc), "`ring device provision`; \"key\" in the "
                       "config names $RING_HOME/keys/<device-id>.key")
    return ring_model


def check_camera(report, spec, zone, ring_model=None):
    if spec is None:
        report.add(SKIP, "camera", "no --camera given", "pass --camera 0 (or a file/URL)")
        return
    m = camera.measure(spec)
    if "error" in m:
        report.add(FAIL, "camera", m["error"], "USB/network cable, camera power, the index "
                   "or URL (`v4l2-ctl --list-devices`)")
        return
    fps = m["fps_measured"] or m["fps_reported"]
    report.add(OK if fps >= camera.MIN_FPS else WARN, "camera", "%dx%d, %.1f fps%s" % (
        m["width"], m["height"], fps, "" if m["fps_measured"] else " (reported)"),
        "frame rate >= %d fps: camera mode, exposure time (<= 1 ms for a spinning coin), "
        "USB 3 port" % camera.MIN_FPS)
    px, why = (None, None) if ring_model else camera.ring_coin_pixels(m["frame"])
    if ring_model is not None:
        # The technician's own calibration (real ring and coin size), scaled to this frame.
        px = 2 * ring_model.coin_radius_px * m["width"] / ring_model.image_size[0]
        how = "from the ring calibration, %.0f mm ring" % ring_model.ring_mm
    elif px is not None:
        how = "measured from the ring in view, assuming a %.0f mm ring (give --config for " \
              "the calibrated size)" % default_ring_mm()
    else:
        px = camera.zone_coin_pixels(m["width"], m["height"], zone[0], zone[1])
        how = "estimated for a %dx%d mm zone; ring not measured: %s" % (
            zone[0], zone[1], why.split(";")[0])
    status = FAIL if px < camera.MIN_COIN_PX else WARN if px < camera.GOOD_COIN_PX else OK
    report.add(status, "coin size", "%.0f px across a %.1f mm coin (%s)"
               % (px, camera.COIN_MM, how),
               "need >= %d px (%d for margin): a higher-resolution sensor, a longer lens "
               "per zone, or more cameras (hardware/INSTALL.md); below that the vision "
               "answers 'unsure'" % (camera.MIN_COIN_PX, camera.GOOD_COIN_PX))


def check_rig(report, rig_path):
    """Coverage of the whole ring by a calibrated camera rig (issue 13): the smallest pixels per
    coin over the layout and how many cameras see each point whole; FAIL under 40 px."""
    if rig_path is None:
        return
    from ..errors import UserError
    try:
        from ..vision.coverage import coverage
        from ..vision.viewcal import Rig
        rig = Rig.load(rig_path)
    except UserError as exc:
        report.add(FAIL, "camera coverage", str(exc), "`ring vision calibrate-views` (hardware/INSTALL.md)")
        return
    c = coverage(rig)
    report.add(OK if c["ok"] else FAIL, "camera coverage",
               "%d camera(s): %s" % (len(rig.views), c["text"]),
               "place the cameras as in hardware/INSTALL.md section 6, then recalibrate")


def default_ring_mm():
    from ..vision.ring import DEFAULT_RING_MM
    return DEFAULT_RING_MM


def audit_log_path():
    """Where the audit log lives (the record module decides; $RING_HOME/audit.db)."""
    from ..record.log import default_path
    return Path(default_path())


def check_disk(report, log_path):
    log_path = Path(log_path)
    d = log_path.parent
    d.mkdir(parents=True, exist_ok=True)
    free_mb = shutil.disk_usage(d).free / 1e6
    size = " (audit log %.1f MB)" % (log_path.stat().st_size / 1e6) if log_path.exists() else \
        " (no audit log yet)"
    if not os.access(d, os.W_OK):
        report.add(FAIL, "audit log disk", "%s is not writable" % d,
                   "ownership of RING_HOME (%s) for the account running `ring run`" % d)
        return
    status = FAIL if free_mb < DISK_FAIL_MB else WARN if free_mb < DISK_WARN_MB else OK
    report.add(status, "audit log disk", "%.0f MB free at %s%s" % (free_mb, d, size),
               "free space for the audit log (>= %d MB); move RING_HOME to a larger disk"
               % DISK_WARN_MB)


def diagnose(open_link, pm, *, camera_spec=None, zone=(3000, 3000), build_image="",
             selftest_timeout=5.0, light_timeout=1.5, light_hold=0.0, device_id=None,
             log_path=None, walk_s=0, say=print, rig_path=None, config=None):
    """Run every check -> Report. open_link() returns a link (hello, command, next_event,
    close) or raises UserError/OSError with the reason."""
    report = Report()
    ring_model = check_config(report, config or {})
    if device_id and not (config or {}).get("key"):
        problem = keys.key_problem(device_id)
        report.add(FAIL if problem else OK, "host key", problem or "present, mode 0600",
                   "`ring device provision` for this board")
    link = None
    try:
        link = open_link()
    except (UserError, OSError, TimeoutError) as exc:
        msg = str(exc)
        report.add(FAIL, "link + handshake", msg, "" if "Check:" in msg else
                   "USB cable and port (`ring device list`), no other program holding the "
                   "port, the key (`ring device provision`), the board powered and running "
                   "the firmware (LED heartbeat)")
    play = link.take_backlog() if link is not None and hasattr(link, "take_backlog") else []
    if play:
        # Recorded in the audit log first, then acknowledged: nothing from play is lost,
        # and the doctor goes on (a board holding events is not a broken board).
        link.record_backlog()
        report.add(WARN, "events from play",
                   "the board held %d event(s) from play (first: %s): recorded in the audit "
                   "log %s" % (len(play), ringmsg_name(play[0].code), log_path or
                               audit_log_path()),
                   "`ring log show` lists them; the spin they belong to was not adjudicated: "
                   "the supervisor settles it from the log")
    if link is not None:
        try:
            check_link(report, link, pm)
            check_link_security(report, link)
            check_image(report, link, build_image)
            # Light first: a failed self-test puts the board in FAULT, which holds the light.
            # A board already in FAULT (e.g. still in its boot self-test) refuses the light:
            # self-test, and retry the light test if that cleared the fault.
            if check_light(report, link, light_hold, light_timeout, pm):
                passed = check_selftest(report, link, pm, selftest_timeout)
                report.retrying = True
                if passed:
                    check_light(report, link, light_hold, light_timeout, pm)
                else:
                    report.add(FAIL, "light test", "not run: the board holds its FAULT light",
                               "fix the self-test faults above, then re-run `ring doctor`")
            else:
                check_selftest(report, link, pm, selftest_timeout)
            if walk_s:
                check_walk(report, link, pm, walk_s, say)
        finally:
            link.close()
    else:
        for what in ("firmware version", "image vs build", "self-test", "light test"):
            report.add(SKIP, what, "no link", "fix the link first")
    check_camera(report, camera_spec, zone, ring_model)
    check_rig(report, rig_path)
    check_disk(report, log_path or audit_log_path())
    return report


def register(subparsers):
    p = subparsers.add_parser("doctor", help="one report on link, firmware, sensors, light, "
                              "camera and disk", description=__doc__.splitlines()[0])
    p.add_argument("--port", help="serial port or simulated board pty (default: the only "
                   "board found)")
    p.add_argument("--device-id", help="board's device id when the port cannot tell it")
    p.add_argument("--camera", help="camera index, video file or URL")
    p.add_argument("--rig", metavar="RIG.json",
                   help="calibrated cameras (ring vision calibrate-views): coverage of the whole ring")
    p.add_argument("--zone", default="3000",
                   help="layout this camera covers in mm, AxB (default 3000: a whole 3 m ring;"
                   " 3000x1600 for one of two cameras)")
    p.add_argument("--build-dir", help="firmware build to compare the image hash with")
    p.add_argument("--flash-dir", help="simulated board's flash dir (tells its device id)")
    p.add_argument("--config", help="the ring config `ring run` uses (calibration, model, key, "
                   "log): each is checked, and the doctor records into that log")
    p.add_argument("--log", help="audit log the doctor records into and whose disk it checks "
                   "(default: the config's, else $RING_HOME/audit.db)")
    p.add_argument("--light-hold", type=float, default=None,
                   help="seconds each light state stays on for the technician to see "
                   "(default 0.7; 0 for a simulated board, whose light nobody watches)")
    p.add_argument("--walk-test", type=int, default=0, metavar="SECONDS",
                   help="also wait this long for the technician to break every beam")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def _light_hold(args, device_id):
    if args.light_hold is not None:
        return args.light_hold
    return 0.0 if str(device_id or "").upper().startswith("SIM") else 0.7


def run(args):
    from ..link import boards
    from . import devlink
    from .cli import default_build_dir
    from .deploy import load_build
    pm = pinmap.load()
    build_image = ""
    bdir = args.build_dir or default_build_dir()
    try:
        _, build_image, _ = load_build(bdir)
    except UserError:
        if args.build_dir:
            raise
    from ..link.ports import sim_port_for_device
    from ..ringconfig import load_config, open_log
    cfg = load_config(args.config)
    log_path = args.log or cfg.get("log") or str(audit_log_path())
    zone = parse_zone(args.zone)
    # The log is opened (and checked) before anything else: a bad --log is named as such.
    open_log(log_path).close()
    port, device_id, err = None, args.device_id, None
    if args.flash_dir and not device_id:
        device_id = devlink.sim_device_id(args.flash_dir)
        if device_id is None:       # a wrong argument, not a finding about the board
            raise UserError(f"--flash-dir {args.flash_dir} is not a simulated board's flash "
                            "dir (no device_id in it): `ring device provision --flash-dir "
                            "DIR` makes one")
    try:
        if args.flash_dir and not args.port:
            port = sim_port_for_device(device_id)
            if port is None and err is None:
                err = UserError(f"simulated board {device_id} is not running: start `ring sim "
                                f"board --flash {args.flash_dir}`", code=1)
        else:
            port = boards.pick_port(args.port)
            device_id = device_id or devlink.device_id_for(port)
    except UserError as exc:
        err = exc

    def opener():
        if err is not None:
            raise err
        # Every event the doctor acknowledges goes to the audit log first, as in `ring run`.
        return devlink.open_link(port, device_id, log=open_log(log_path),
                                 key_file=cfg.get("key"))
    report = diagnose(opener, pm, camera_spec=args.camera or cfg.get("camera"), zone=zone,
                      build_image=build_image, light_hold=_light_hold(args, device_id),
                      device_id=device_id, walk_s=args.walk_test, log_path=log_path,
                      rig_path=args.rig or cfg.get("rig"),
                      say=lambda m: print(m, file=sys.stderr, flush=True), config=cfg)
    print(json.dumps({"items": report.items, "ready": report.ready}, indent=1) if args.json
          else report.text())
    return 0 if report.ready else 1
