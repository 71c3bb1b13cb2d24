"""Find ring boards on USB (VID:PID 2E8A:0005, MicroPython CDC) and pick the one to talk to."""
import os
from pathlib import Path

from ..errors import UserError

VID = 0x2E8A        # Raspberry Pi
PID_MICROPYTHON = 0x0005

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


def find_boards(ports=None):
    """Ring boards plugged in -> list of dicts (port, serial, description, location)."""
    found = []
    for p in (comports() if ports is None else ports):
        if p.vid == VID and p.pid == PID_MICROPYTHON:
            found.append({"port": p.device, "serial": (p.serial_number or "").upper(),
                          "description": p.description or "", "location": p.location or ""})
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
    """USB serial number (= device id) of the board on `port`, or None (e.g. a pty)."""
    real = os.path.realpath(port)
    for b in find_boards(ports):
        if b["port"] in (port, real):
            return b["serial"]
    return None
