"""Which serial port to open: a path as given, or `auto` (USB 2E8A:0005, optional serial number)."""
from ..errors import UserError


def boards():
    """Ring boards plugged in now (dicts with port, serial, description, location)."""
    from ..device.boards import find_boards   # the one place that knows the USB identity
    return find_boards()


def resolve_port(spec, serial_number=None):
    """Path to open now. `spec` is a device path or 'auto'. UserError when nothing fits."""
    if spec and spec != "auto":
        return spec
    found = boards()
    if serial_number:
        found = [b for b in found if b["serial"] == serial_number.upper()]
    if not found:
        from ..device.boards import NONE_FOUND_HINTS
        who = f" with serial number {serial_number}" if serial_number else ""
        raise UserError(NONE_FOUND_HINTS.replace("no ring board found",
                                                 "no ring board found" + who, 1), code=1)
    if len(found) > 1:
        raise UserError("%d ring boards found (%s); choose one with --port PATH or --serial"
                        % (len(found), ", ".join(f"{b['port']} [{b['serial']}]"
                                                 for b in found)))
    return found[0]["port"]
