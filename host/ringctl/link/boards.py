"""Find ring boards on USB (VID:PID 2E8A:0005, MicroPython) and pick the one to talk to: each board has two serial ports, the link's and the REPL's.

The controller's link runs on a USB-CDC port of its own (firmware/lib/usbcdc.py): USB
interfaces 2-3, named "Ring link". The REPL keeps MicroPython's built-in port (interfaces
0-1). A board at the REPL (technician escape, `ring device deploy`) shows only the REPL port.
The two are told apart by the USB interface number of the port (pyserial's `location`,
"1-1.2:1.2" on Linux: bus-port:configuration.interface), or by the interface's name where
the number is not given.
"""
import os
from pathlib import Path

from ..errors import UserError

VID = 0x2E8A        # Raspberry Pi
PID_MICROPYTHON = 0x0005
LINK_INTERFACE = 2      # usbcdc.LinkCDC: after the built-in CDC's interfaces 0-1
LINK_NAME = "Ring link"  # its interface string (usbcdc.NAME)

NONE_FOUND = "no ring board found (USB 2E8A:0005)"
CHECKS = (
    "the USB cable carries data (not a charge-only cable)",
    "the board has MicroPython (a board in BOOTSEL mode appears as a drive named RPI-RP2 "
    "or RP2350 instead: copy the UF2 from hardware/MICROPYTHON.md)",
    "`dmesg | tail` shows a ttyACM device when you plug it in",
    "your user is in the 'dialout' group",
    "the udev rule hardware/99-ring-board.rules is installed",
)
NONE_FOUND_HINTS = NONE_FOUND + ". Check: " + "; ".join(CHECKS)


def comports():
    """pyserial's port list (a function of its own so tests can replace it)."""
    from serial.tools import list_ports
    return list_ports.comports()


def interface_number(p):
    """USB interface number of a serial port from pyserial's location ("1-1.2:1.2" on
    Linux, "1-1.2:x.2" on Windows), or None when the location does not say."""
    loc = p.location or ""
    if ":" not in loc:
        return None
    tail = loc.rsplit(":", 1)[1]
    if "." not in tail:
        return None
    try:
        return int(tail.rsplit(".", 1)[1])
    except ValueError:
        return None


def is_link_port(p):
    """True for the controller's link port, False for the REPL's (or a single-port board)."""
    n = interface_number(p)
    if n is not None:
        return n == LINK_INTERFACE
    return (getattr(p, "interface", None) or "") == LINK_NAME


def find_boards(ports=None):
    """Ring boards plugged in -> list of dicts, one per board: port (the one to talk to: the
    link's, or the REPL's when the board is at the REPL), link, repl (each a path or None),
    serial, description, location."""
    boards = {}
    for p in (comports() if ports is None else ports):
        if p.vid != VID or p.pid != PID_MICROPYTHON:
            continue
        sn = (p.serial_number or "").upper()
        loc = p.location or ""
        key = sn or loc.split(":")[0] or p.device
        b = boards.setdefault(key, {"port": None, "link": None, "repl": None, "serial": sn,
                                    "description": "", "location": loc.split(":")[0]})
        if is_link_port(p):
            b["link"] = p.device
        else:
            b["repl"] = p.device
            b["description"] = p.description or ""
    found = []
    for b in boards.values():
        b["port"] = b["link"] or b["repl"]
        if b["link"] and b["repl"]:
            b["description"] = "controller link (REPL on %s)" % b["repl"]
        elif not b["link"]:
            b["description"] = (b["description"] + " " if b["description"] else "") + \
                "(REPL only: the controller is not running)"
        found.append(b)
    return sorted(found, key=lambda b: b["port"])


PID_BOOTSEL = {0x0003: "RP2040 (Pico)", 0x000F: "RP2350 (Pico 2)"}


def bootsel_boards(sysfs="/sys/bus/usb/devices"):
    """Boards waiting in BOOTSEL mode (USB mass storage, so pyserial cannot see them) ->
    list of chip names, read from sysfs so `list` can say 'flash the UF2'."""
    found = []
    d = Path(sysfs)
    if not d.is_dir():
        return found
    for dev in sorted(d.iterdir()):
        try:
            vid = int((dev / "idVendor").read_text(), 16)
            pid = int((dev / "idProduct").read_text(), 16)
        except (OSError, ValueError):
            continue
        if vid == VID and pid in PID_BOOTSEL:
            found.append(PID_BOOTSEL[pid])
    return found


def pick_port(port=None, ports=None):
    """The port to use: --port as given, else (no --port, or --port auto) the only board
    found; UserError otherwise."""
    if port and port != "auto":
        return port
    boards = find_boards(ports)
    if not boards:
        raise UserError(NONE_FOUND_HINTS + "; or pass --port", code=1)
    if len(boards) > 1:
        raise UserError("%d ring boards found (%s); choose one with --port" % (
            len(boards), ", ".join(b["port"] for b in boards)))
    return boards[0]["port"]


def serial_for_port(port, ports=None):
    """USB serial number (= device id) of the board on `port` (its link or its REPL port),
    or None (e.g. a pty)."""
    real = os.path.realpath(port)
    for b in find_boards(ports):
        if b["link"] in (port, real) or b["repl"] in (port, real):
            return b["serial"]
    return None
