# Link writes never block the controller: board_pico against the rp2 USB-CDC rules with a host that holds the port open and stops reading (rp2fake.CDC), then reads again.
import mptest
import rp2fake

rp2fake.install()
import board_pico      # noqa: E402


def _frame(k, n=60):
    # a COBS frame as ringlink sends it: 0 delimiters, no zero inside
    return bytes([0]) + bytes([1 + (k + i) % 250 for i in range(n)]) + bytes([0])


def test_stalled_host_never_blocks_a_write():
    cdc = rp2fake.CDC()
    b = board_pico.Board(rx=rp2fake.CDC(), tx=cdc)
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
    b = board_pico.Board(rx=rp2fake.CDC(), tx=cdc)
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
    b = board_pico.Board(rx=rp2fake.CDC(), tx=cdc)
    for k in range(6):
        b.txq.put(_frame(k))                # put() flushes up to the budget each time
    assert cdc.writes <= 6 * board_pico.TX_BUDGET
    n = cdc.writes
    b.link_flush()
    assert cdc.writes - n <= board_pico.TX_BUDGET, "one pass writes at most TX_BUDGET bytes"


mptest.main(globals())
