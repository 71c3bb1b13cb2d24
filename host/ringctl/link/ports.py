"""Which serial port to open: a path or pyserial URL as given, or `auto` (USB 2E8A:0005, optional serial number).

Simulated boards (a pty each) register their device id here, so a port names its board either way.
"""
import os
import tempfile
from pathlib import Path

from ..errors import UserError
from .boards import NONE_FOUND_HINTS, find_boards, serial_for_port


def boards():
    """Ring boards plugged in now (dicts with port, serial, description, location)."""
    return find_boards()


def resolve_port(spec, serial_number=None):
    """Path to open now. `spec` is a device path, a pyserial URL (socket://HOST:PORT,
    rfc2217://HOST:PORT) or 'auto'. UserError when nothing fits."""
    if spec and spec != "auto":
        if spec.startswith("/dev/tty") or spec.startswith("/dev/ring-"):
            real = os.path.realpath(spec)
            for b in boards():
                if b["link"] and b["repl"] in (spec, real):
                    raise UserError("%s is the REPL port of board %s; its link is on %s "
                                    "(or use --port auto)" % (spec, b["serial"] or "?",
                                                             b["link"]), code=1)
        return spec
    if serial_number:
        sim = sim_port_for_device(serial_number)
        if sim:
            return sim
    found = boards()
    if serial_number:
        found = [b for b in found if b["serial"] == serial_number.upper()]
    if not found:
        who = f" with serial number {serial_number}" if serial_number else ""
        raise UserError(NONE_FOUND_HINTS.replace("no ring board found",
                                                 "no ring board found" + who, 1), code=1)
    if len(found) > 1:
        raise UserError("%d ring boards found (%s); choose one with --port PATH or --serial"
                        % (len(found), ", ".join(f"{b['port']} [{b['serial']}]"
                                                 for b in found)))
    return found[0]["port"]


def _runtime_dir():
    return Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir())


def _sim_registry():
    d = _runtime_dir() / "ringsim-ports"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _sim_key(tty_path):
    return str(tty_path).strip("/").replace("/", "_")


def register_sim_port(tty_path, device_id):
    """A simulated board (owned by this process) now answers on `tty_path`."""
    try:
        (_sim_registry() / _sim_key(tty_path)).write_text("%s %d\n" % (device_id, os.getpid()))
    except OSError:
        pass


def _sim_links():
    """This user's folder of simulated boards' link paths (0700: another user on a shared /tmp
    can neither block nor re-point them)."""
    d = _runtime_dir() / ("ringsim-by-id-%d" % os.getuid())
    d.mkdir(mode=0o700, parents=True, exist_ok=True)
    if d.stat().st_uid != os.getuid():
        raise UserError(f"{d} belongs to another user: remove it, or set XDG_RUNTIME_DIR to a "
                        "folder of your own", code=1)
    return d


def sim_link_path(device_id):
    """Where a simulated board with this device id puts its link (link_sim_port)."""
    return _sim_links() / device_id


def link_sim_port(tty_path, device_id):
    """-> a path of the board's own that leads to `tty_path` (its /dev/pts/N), as
    /dev/serial/by-id/... names a Pico by its serial number. Open this, not /dev/pts/N: the
    kernel gives a freed pty number to the next pty made, so a host still reopening a stopped
    board's /dev/pts/N would lock the next board's line (another test's, another `ring sim
    board`'s); this path goes when its board stops and comes back when that board starts."""
    link = sim_link_path(device_id)
    d = link.parent
    # a board killed without stop() left its link to the pty number this board now has: that
    # name would lead to this board, so it goes
    for other in d.iterdir():
        try:
            if other != link and os.readlink(other) == tty_path:
                other.unlink()
        except OSError:
            pass
    tmp = d / (".%s.%d" % (device_id, os.getpid()))
    try:
        tmp.unlink()
    except OSError:
        pass
    os.symlink(tty_path, tmp)
    os.replace(tmp, link)       # a stale link from a board killed without stop() is replaced
    return str(link)


def unlink_sim_port(link, tty_path):
    """Remove the board's own path, unless another board has taken it since."""
    try:
        if os.readlink(link) == tty_path:
            os.unlink(link)
    except OSError:
        pass


def forget_sim_port(tty_path):
    try:
        (_sim_registry() / _sim_key(tty_path)).unlink()
    except OSError:
        pass


def sim_device_id_for_port(port):
    """Device id of the running simulated board whose link is on `port` (its link path or /dev/pts path)."""
    f = _sim_registry() / _sim_key(os.path.realpath(port))
    try:
        dev, pid = f.read_text().split()[:2]
        os.kill(int(pid), 0)          # that SimBoard's owner is still alive
        return dev
    except (OSError, ValueError):
        return None


def sim_port_for_device(device_id):
    """The link path (link_sim_port) of the running simulated board with this device id (newest
    first; its pty when it has none), or None:
    `--flash-dir DIR` names a board without the technician copying its /dev/pts path."""
    if not device_id:
        return None
    found = []
    for f in _sim_registry().iterdir():
        try:
            dev, pid = f.read_text().split()[:2]
            if dev != device_id:
                continue
            os.kill(int(pid), 0)
            found.append((f.stat().st_mtime, "/" + f.name.replace("_", "/")))
        except (OSError, ValueError):
            continue
    link = sim_link_path(device_id)
    for _, port in sorted(found, reverse=True):
        if os.path.exists(port):
            return str(link) if os.path.realpath(link) == port else port
    return None


def sim_device_id_for_flash(flash_dir):
    """Device id a simulated board keeps in its flash dir (<flash>/device_id), or None."""
    try:
        return (Path(flash_dir) / "device_id").read_text().strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def device_id_for_port(port):
    """Device id of the board on `port`: its USB serial number, or a simulated board's id."""
    return serial_for_port(port) or sim_device_id_for_port(port)
