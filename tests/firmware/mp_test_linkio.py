# Link writes never block the controller: linkio.TxBuffer (the simulated board's writer on a blocking stream) against a stream that blocks like rp2's USB-CDC stdout when the host holds the port open and stops reading (rp2fake.CDC), then reads again. The Pico's own link port: mp_test_usbcdc.py.
import mptest
import rp2fake
from linkio import TxBuffer

BUDGET = 128


class _Writer:
    """The interface the tests used on board_pico before the link got its own USB port."""

    def __init__(self, cdc):
        self.txq = TxBuffer(cdc, piece=1, budget=BUDGET)

    def link_write(self, data):
        self.txq.put(data)

    def link_flush(self):
        self.txq.flush()

    def tx_room(self):
        return self.txq.room()


def _frame(k, n=60):
    # a COBS frame as ringlink sends it: 0 delimiters, no zero inside
    return bytes([0]) + bytes([1 + (k + i) % 250 for i in range(n)]) + bytes([0])


def test_stalled_host_never_blocks_a_write():
    cdc = rp2fake.CDC()
    b = _Writer(cdc)
    cdc.reading = False                     # host holds the port open, reads nothing
    for k in range(60):                     # far more than the FIFO and our buffer hold
        b.link_write(_frame(k))
        b.link_flush()
    assert cdc.blocked_ms == 0, "a write waited %d ms on the stalled line" % cdc.blocked_ms
    assert cdc.held == rp2fake.CDC.FIFO, "the FIFO was filled (only what POLLOUT allowed)"
    assert b.txq.dropped > 0, "frames beyond the buffer are dropped (the link resends)"
    assert b.tx_room() < 200


def test_line_drains_whole_frames_in_order_when_the_host_reads_again():
    cdc = rp2fake.CDC()
    b = _Writer(cdc)
    cdc.reading = False
    sent = []
    for k in range(30):
        if b.tx_room() >= 70:
            b.link_write(_frame(k))
            sent.append(_frame(k))
    cdc.reading = True
    cdc.held = 0
    for _ in range(100):
        b.link_flush()
    assert bytes(cdc.out) == b"".join(sent), "every queued byte once, in order"
    assert b.tx_room() == 1024 and cdc.blocked_ms == 0


def test_budget_bounds_one_pass():
    cdc = rp2fake.CDC()
    b = _Writer(cdc)
    for k in range(6):
        b.txq.put(_frame(k))                # put() flushes up to the budget each time
    assert cdc.writes <= 6 * BUDGET
    n = cdc.writes
    b.link_flush()
    assert cdc.writes - n <= BUDGET, "one pass writes at most TX_BUDGET bytes"


mptest.main(globals())
