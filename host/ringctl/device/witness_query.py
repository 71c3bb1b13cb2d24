"""Ask a live ring board where its audit-log witness stands: (seq, HMAC over a fresh nonce).

`ring device witness-head` prints it; `ring log verify --witness PORT` runs that command
(the record package never imports the device package). Play events the board holds are left
unacknowledged: they stay on the board for `ring run` to record.
"""
import binascii
import time

from ..errors import UserError
from ..fw import ringmsg as rm
from ..fw import witness as W
from . import keys
from .devlink import device_id_for


def query_head(port, device_id, nonce, timeout=10.0):
    from ..link import LinkClient
    dev = device_id or device_id_for(port)
    if not dev:
        raise UserError("cannot tell which board is on %s; pass --device-id" % port, code=1)
    client = LinkClient(port, keys.load_key(dev), name="ring-log-verify")
    try:
        if not client.wait_up(timeout):
            raise UserError("link to %s not up within %.0f s (is `ring run` holding the port, or "
                            "the board not running?)" % (port, timeout), code=1)
        client.send_cmd(rm.CMD_WITNESS_HEAD, binascii.hexlify(nonce).decode())
        end = time.monotonic() + timeout
        mine = binascii.hexlify(nonce[:3]).decode()
        while time.monotonic() < end:
            ev = client.get_event(0.2)
            if ev is None or ev.code != rm.EV_WITNESS or ev.b == W.W_RECEIPT:
                continue
            if ev.b == W.W_REFUSED:
                client.ack(ev)
                raise UserError("the board on %s refuses to witness: %s" % (port, ev.text), code=1)
            mac, _, asked = ev.text.partition(" ")
            if asked == mine:          # not an older answer the board resent after reconnecting
                client.ack(ev)
                return ev.a, bytes.fromhex(mac)
        raise UserError("the board on %s did not answer the witness query" % port, code=1)
    finally:
        client.close()

