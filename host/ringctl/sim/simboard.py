"""Start the simulated ring board: the real firmware under `micropython` with board_sim, link on a pty, sensors on a socket.

    b = SimBoard(flash_dir, key).start()    # key: 32 bytes (written to flash_dir/key.bin)
    b.tty                 # the board's own link path (ringsim-by-id-<uid>/<device id> -> /dev/pts/N):
                          # open it with pyserial / LinkClient like a real board
    b.sensor_socket       # AF_UNIX path, protocol in firmware/SIM.md
    b.send_sensor("beam 3 pulse 4000")
    b.light_state()       # {"name": "barred", "lamps": "1001", "edge_us": 412, "t": monotonic}
    b.wait_light("barred", timeout=2) ; b.wait_line(prefix, timeout)
    b.kill(); b.restart(); b.stop()

The pty and its paths survive restarts (this object holds both ends; each firmware process gets
the master fd), so a connected host sees a reboot, not a vanished port. A firmware reset
(CMD_RESET, crash) exits the process with code 75 and is restarted with reset cause "soft".
"""
import os
import pty  # noqa: F401  (documents the dependency: os.openpty)
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import tty
from pathlib import Path

from ..errors import UserError
from ..fw import ringmsg
from ..cliutil import OneLineParser
from ..link.ports import forget_sim_port, link_sim_port, register_sim_port, unlink_sim_port
from ..mpunix import micropython_binary
from ..stopsignals import stop_on_signals
from .sensors import socket_lines

ROOT = Path(__file__).resolve().parents[3]
FW_DIR = ROOT / "firmware"
RESET_EXIT = 75
# A deployed image (.mpy, as on the Pico) runs in a 64-bit heap the size of the Pico's 32-bit
# one; the source tree is compiled on the board at import, which needs heap an image never does
# (the parser's and compiler's own memory: app.py alone failed at 256K with the witness on).
IMAGE_HEAP = "256K"
SOURCE_HEAP = "384K"


def _die_with_parent():
    """preexec_fn: the firmware process gets SIGKILL when its owner dies (Linux), so a killed
    test or `ring sim board` never leaves a simulated board running."""
    try:
        import ctypes
        import signal
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class SimBoard:
    def __init__(self, flash_dir, key=None, device_id=None, firmware_dir=None, heapsize=None,
                 env=None, deploy=None, follow_flash=False):
        """follow_flash: run the image deployed in flash_dir (its manifest.json) whenever there
        is one, else the source tree, re-deciding at every (re)boot, as a Pico runs whatever
        `ring device deploy` last copied (`ring sim board` does this).
        firmware_dir: run these sources (default firmware/; no manifest -> "unverified").
        deploy: a build directory (build.py output) copied into flash_dir and run from there,
        like `ring device deploy` does to a Pico: the integrity check then applies."""
        self.flash = Path(flash_dir)
        self.key = key
        self.device_id = device_id
        self.deploy = Path(deploy) if deploy else None
        self.fw = Path(firmware_dir) if firmware_dir else FW_DIR
        if self.deploy is not None:
            self.fw = self.flash
        self.follow_flash = follow_flash
        self.heapsize = heapsize   # None: SOURCE_HEAP or IMAGE_HEAP, by what runs
        self.extra_env = dict(env or {})
        self.proc = None
        self.master = self.slave = None
        self.tty = None       # the board's own path to its link (link_sim_port)
        self.pts = None       # the pty itself, /dev/pts/N
        self._sockdir = tempfile.mkdtemp(prefix="ringsim")
        self.sensor_socket = os.path.join(self._sockdir, "sensors.sock")
        self._sock = None
        self._lines = []
        self._cv = threading.Condition()
        self._light = {"name": None, "lamps": "0000", "edge_us": -1, "t": 0.0}
        self.phase = None
        self.restarts = 0
        self.watchdog_resets = 0
        self._stopping = False
        self._watch = None
        self._restart_request = None   # (cause, done, errors) for the watchdog thread
        self._reader = None

    # ---- lifecycle -----------------------------------------------------------------------
    def start(self, timeout=10.0, reset_cause=ringmsg.RESET_POWER_ON):
        self.flash.mkdir(parents=True, exist_ok=True)
        if self.deploy is not None:
            if not (self.deploy / "manifest.json").exists():
                raise UserError("%s is not a firmware build (no manifest.json); run "
                                "'ring device build'" % self.deploy)
            shutil.copytree(self.deploy, self.flash, dirs_exist_ok=True)
        if self.key is not None:
            if len(self.key) != 32:
                raise UserError("device key must be 32 bytes")
            kp = self.flash / "key.bin"
            kp.write_bytes(self.key)
            os.chmod(kp, 0o600)
        if self.device_id is None:
            idf = self.flash / "device_id"
            if not idf.exists():
                idf.write_text("SIM" + os.urandom(5).hex().upper())
            self.device_id = idf.read_text().strip()
        if self.master is None:
            self.master, self.slave = os.openpty()
            tty.setraw(self.slave)
            os.set_blocking(self.master, False)   # shared with the firmware process
            self.pts = os.ttyname(self.slave)
            self.tty = link_sim_port(self.pts, self.device_id)
        self._spawn(reset_cause)
        self._connect(timeout)
        register_sim_port(self.pts, self.device_id)
        if self._watch is None:
            self._watch = threading.Thread(target=self._watchdog, daemon=True)
            self._watch.start()
        return self

    def running_image(self):
        """The folder the firmware runs from at the next (re)boot."""
        if self.follow_flash and (self.flash / "manifest.json").is_file():
            return self.flash
        return self.fw

    def _spawn(self, reset_cause):
        fw = self.running_image()
        main = fw / "main.py"
        lib = fw / "lib"
        env = dict(os.environ)
        env.update({
            "MICROPYPATH": "%s:.frozen" % lib,
            "RING_FLASH": str(self.flash),
            "RING_LINK_FD": str(self.master),
            "RING_LINK_NONBLOCK": "1",     # board_sim reads whole chunks, never blocks
            "RING_SIM_SOCKET": self.sensor_socket,
            "RING_RESET_CAUSE": str(reset_cause),
            "RING_DEVICE_ID": self.device_id,
        })
        env.update(self.extra_env)
        for stale in (self.sensor_socket, self.flash / "wdt.feed"):
            try:
                os.remove(stale)
            except OSError:
                pass
        self._log = open(self.flash / "board.log", "ab")
        heap = self.heapsize or (IMAGE_HEAP if (fw / "manifest.json").is_file() else SOURCE_HEAP)
        self.proc = subprocess.Popen(
            [micropython_binary(), "-X", "heapsize=" + heap, str(main)],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
            pass_fds=(self.master,), env=env, cwd=str(self.flash),
            preexec_fn=_die_with_parent)

    def _connect(self, timeout):
        end = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise UserError("simulated board exited at start (code %s); see %s"
                                % (self.proc.returncode, self.flash / "board.log"), code=1)
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(self.sensor_socket)
                break
            except OSError:
                s.close()
                if time.monotonic() > end:
                    raise UserError("simulated board did not open %s within %.0f s; see %s"
                                    % (self.sensor_socket, timeout, self.flash / "board.log"),
                                    code=1)
                time.sleep(0.02)
        self._sock = s
        self._reader = threading.Thread(target=self._read, args=(s,), daemon=True)
        self._reader.start()

    def _read(self, s):
        for line in socket_lines(s):
            self._got(line)
        with self._cv:
            self._cv.notify_all()

    def _got(self, line):
        t = time.monotonic()
        f = line.split()
        with self._cv:
            if f and f[0] == "light" and len(f) >= 4:
                self._light = {"name": f[1], "lamps": f[2], "edge_us": int(f[3]), "t": t}
            elif f and f[0] == "lamps" and len(f) >= 2:
                self._light = dict(self._light, lamps=f[1])
            elif f and f[0] == "phase" and len(f) >= 2:
                self.phase = f[1]
            self._lines.append((t, line))
            del self._lines[:-2000]
            self._cv.notify_all()

    def _watchdog(self):
        """Restart the firmware after a reset request (exit 75), like the board rebooting, and
        play the RP2040 watchdog: a board whose supervisor stopped feeding (wdt.feed older than
        its timeout) is killed and restarted with reset cause "watchdog"."""
        feed = self.flash / "wdt.feed"
        while not self._stopping:
            request, self._restart_request = self._restart_request, None
            if request is not None:
                cause, done, errors = request
                try:
                    self._restart_proc(cause)
                except UserError as exc:
                    errors.append(exc)
                done.set()
            p = self.proc
            if p is not None and p.poll() is not None and p.returncode == RESET_EXIT:
                self.restarts += 1
                try:
                    self._restart_proc(ringmsg.RESET_SOFT)
                except UserError:
                    pass
            elif p is not None and p.poll() is None:
                try:
                    timeout_ms = int(feed.read_text().split()[0])
                    age = time.time() - feed.stat().st_mtime
                except (OSError, ValueError, IndexError):
                    timeout_ms = age = None
                if timeout_ms and age * 1000 > timeout_ms:
                    self.watchdog_resets += 1
                    self.restarts += 1
                    try:
                        p.kill()
                        p.wait(5)
                        self._restart_proc(ringmsg.RESET_WATCHDOG)
                    except (UserError, subprocess.TimeoutExpired):
                        pass
            time.sleep(0.05)

    def _restart_proc(self, cause):
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
        self._spawn(cause)
        self._connect(10.0)

    def kill(self):
        """Pull the plug (SIGKILL). restart() powers it on again."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)

    def restart(self, reset_cause=ringmsg.RESET_POWER_ON):
        """Power-cycle the board. The new firmware process is started by this object's own
        watchdog thread: the kernel kills a child when the *thread* that started it exits
        (PR_SET_PDEATHSIG), so a board restarted from a short-lived thread (a fault drill)
        would otherwise die with that thread."""
        self.kill()
        watch = self._watch
        if watch is None or not watch.is_alive() or watch is threading.current_thread():
            self._restart_proc(reset_cause)
            return self
        done, errors = threading.Event(), []
        self._restart_request = (reset_cause, done, errors)
        if not done.wait(15.0):
            raise UserError("simulated board did not restart within 15 s", code=1)
        if errors:
            raise errors[0]
        return self

    def stop(self):
        self._stopping = True
        self.kill()
        if self.pts:
            forget_sim_port(self.pts)
            unlink_sim_port(self.tty, self.pts)
            self.pts = self.tty = None    # a second stop() must not touch the next board's
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
        for fd in (self.master, self.slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None
        shutil.rmtree(self._sockdir, ignore_errors=True)

    def __enter__(self):
        return self.start() if self.proc is None else self

    def __exit__(self, *exc):
        self.stop()

    @property
    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    # ---- sensors / light -------------------------------------------------------------------
    def send_sensor(self, *lines):
        data = "".join(line.rstrip("\n") + "\n" for line in lines).encode()
        self._sock.sendall(data)

    def light_state(self):
        with self._cv:
            return dict(self._light)

    def lines(self, since=0.0):
        with self._cv:
            return [l for t, l in self._lines if t >= since]

    def wait_line(self, prefix, timeout=5.0, since=0.0):
        """-> (t_monotonic, line) of the first line starting with prefix received after since."""
        end = time.monotonic() + timeout
        with self._cv:
            while True:
                for t, l in self._lines:
                    if t >= since and l.startswith(prefix):
                        return t, l
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self._cv.wait(left)

    def wait_light(self, name, timeout=5.0, since=0.0):
        got = self.wait_line("light %s " % name, timeout, since)
        return self.light_state() if got else None


def _check_flash_dir(flash):
    """One-line errors for a flash dir the board cannot use (a file, read-only, no space):
    the board keeps its key, config and watchdog stamp there."""
    from ..atomic import check_writable_dir
    check_writable_dir(flash, "--flash")


def main(argv=None):
    """`ring sim board`: start a simulated board, print its tty and socket, run until Ctrl-C."""
    ap = OneLineParser(prog="ring sim board", description=main.__doc__)
    ap.add_argument("--flash", default=None, help="flash directory (key.bin, config.json); "
                    "default: a new temporary one")
    ap.add_argument("--key", default=None, help="32-byte key file to provision (hex or raw); "
                    "default: keep flash/key.bin or create a random one")
    args = ap.parse_args(argv)
    flash = Path(args.flash or tempfile.mkdtemp(prefix="ringflash"))
    _check_flash_dir(flash)
    key = None
    if args.key:
        from ..link.keys import load_key_file
        key = load_key_file(args.key)
    elif not (flash / "key.bin").exists():
        key = os.urandom(32)
    stop_on_signals()
    b = SimBoard(flash, key, follow_flash=True).start()
    try:   # a Ctrl-C landing while the banner is written (just after its last line went out) stops cleanly too
        print("link tty: %s" % b.tty)
        print("sensor socket: %s" % b.sensor_socket)
        print("flash: %s (device id %s, key %s)" % (flash, b.device_id, flash / "key.bin"))
        print("firmware: %s" % ("the image deployed in the flash dir (manifest.json); a deploy "
                                "resets the board onto the new image" if b.running_image() == flash
                                else "the source tree %s (no image deployed in the flash dir)"
                                % b.fw), flush=True)
        while True:
            time.sleep(1)
            if not b.alive and b.proc.returncode != RESET_EXIT:
                print("board exited with code %s; see %s" % (b.proc.returncode, flash / "board.log"))
                return 1
    except KeyboardInterrupt:
        return 0
    finally:
        b.stop()
