# The link's own USB-CDC port (usbcdc.LinkCDC) against a USB host model (rp2fake.USBDevice): descriptors, one call per frame each way, never waiting, flow control, a host that stops reading.
import mptest
import rp2fake

rp2fake.install()
import usbcdc          # noqa: E402
import board_pico      # noqa: E402


def _frame(k, n=60):
    # a COBS frame as ringlink sends it: 0 delimiters, no zero inside
    return bytes([0]) + bytes([1 + (k + i) % 250 for i in range(n)]) + bytes([0])


def _up():
    usb = rp2fake.USBDevice()
    b = board_pico.Board(usbd=usb)
    b.open_link()
    mine = usb.enumerate()
    return usb, b, mine


def test_second_port_after_the_repl_with_its_own_interfaces_and_name():
    usb, b, mine = _up()
    cfg = usb.desc_cfg
    builtin = usb.BUILTIN_DEFAULT
    assert usb.builtin_driver is builtin, "the REPL's built-in CDC stays"
    assert cfg[:9][4] == 4, "bNumInterfaces: REPL 0-1, link 2-3"
    assert bytes(cfg[9:len(builtin.desc_cfg)]) == bytes(builtin.desc_cfg[9:]), "built-in kept first"
    assert mine[0:4] == bytes((8, 0x0B, 2, 2)), "IAD: interfaces 2 and 3"
    eps = [mine[i + 2] for i in range(len(mine) - 6) if mine[i] == 7 and mine[i + 1] == 5]
    assert eps == [0x83, 0x04, 0x84], "endpoints after the built-in's (0x81, 0x02, 0x82)"
    assert usb.desc_strs == {builtin.str_max: "Ring link"}
    assert b.link.open and b.link.dtr and bytes(b.link.line_coding[:4]) == b"\x00\xc2\x01\x00"
    assert usb.control(0x21, 0x20, 0, 0, bytes(7)) is False, "the REPL's requests are not ours"


def test_a_frame_is_read_in_one_call_and_reads_never_wait():
    usb, b, _ = _up()
    buf = bytearray(256)
    assert b.link_read(buf) == 0, "nothing sent: 0 at once, no wait"
    fr = _frame(1, 36)
    usb.write(fr)
    assert b.link.ioctl(3, 1) == 1, "POLLIN once the OUT transfer completed"
    n = b.link_read(buf)
    assert n == len(fr) and bytes(buf[:n]) == fr, "the whole frame in one call"
    assert b.link_read(buf) == 0 and b.link.ioctl(3, 1) == 0


def test_select_poll_and_asyncio_see_the_port_as_an_object_not_a_file_descriptor():
    import select
    import asyncio
    usb, b, _ = _up()
    p = select.poll()
    p.register(b.link, select.POLLIN)
    assert p.poll(0) == [], "nothing sent: not readable (and not mistaken for stdin)"
    usb.write(_frame(4, 20))
    ev = p.poll(0)
    assert len(ev) == 1 and ev[0][0] is b.link and ev[0][1] & select.POLLIN

    async def wait_readable():
        # what app.link_rx_task does: park on the port until the host's frame is in
        yield asyncio.core._io_queue.queue_read(b.link)
        return b.link_read(bytearray(64))

    async def main():
        t = asyncio.create_task(wait_readable())
        await asyncio.sleep_ms(5)
        assert not t.done()
        usb.write(_frame(5, 30))
        return await t
    b.link_read(bytearray(64))
    assert asyncio.run(main()) == 32


def test_reads_split_and_join_packets_in_order():
    usb, b, _ = _up()
    data = b"".join(_frame(k, 100) for k in range(3))     # 306 bytes: 5 packets
    usb.write(data)
    got = bytearray()
    small = bytearray(50)
    while True:
        n = b.link_read(small)
        if not n:
            break
        got += small[:n]
    assert bytes(got) == data


def test_host_bytes_wait_on_the_host_while_our_slots_are_full():
    usb, b, _ = _up()
    data = bytes((k % 255) + 1 for k in range(64 * 12 + 5))   # 13 packets > 8 slots
    usb.write(data)
    assert len(usb.host_out) == len(data) - 64 * 8, "NAK: the rest stays on the host"
    got = bytearray()
    buf = bytearray(100)
    for _ in range(40):
        n = b.link_read(buf)
        got += buf[:n]
        usb.task()
    assert bytes(got) == data, "flow control loses nothing"


def test_an_answer_leaves_at_the_next_usb_frame_in_one_write():
    usb, b, _ = _up()
    fr = _frame(2, 56)
    b.link_write(fr)
    assert usb.got == b"", "nothing before the host's next IN token (1 ms frames)"
    usb.frame()
    assert bytes(usb.got) == fr and usb.got_frames[-1] == 1
    n0 = usb.submits
    b.link_write(_frame(3, 120))      # 122 bytes: one IN transfer, in the next frame
    assert usb.submits == n0 + 1
    usb.frame()
    assert bytes(usb.got[len(fr):]) == _frame(3, 120)
    b.link_write(_frame(6, 126))      # 128 bytes = 2 full packets: sent as 127 + 1 (no ZLP)
    assert b.link.tx_busy == 127
    usb.frame()
    usb.frame()
    assert bytes(usb.got[-128:]) == _frame(6, 126)


def test_many_frames_arrive_whole_and_in_order_through_the_ring():
    usb, b, _ = _up()
    sent = bytearray()
    for k in range(60):               # ~5 KB: wraps the 1 KB ring several times
        fr = _frame(k, 40 + k % 80)
        b.link_write(fr)
        sent += fr
        usb.frame()
    for _ in range(20):
        usb.frame()
    assert bytes(usb.got) == bytes(sent) and b.dropped == 0 and b.tx_room() == 1024


def test_a_host_that_stops_reading_never_makes_a_write_wait():
    usb, b, _ = _up()
    usb.reading = False                       # port held open, nothing read
    sent = []
    for k in range(40):
        fr = _frame(k)
        room = b.tx_room()
        b.link_write(fr)
        if room >= len(fr):
            sent.append(fr)
        usb.frame()
    assert b.dropped > 0, "frames beyond the buffer are dropped whole (the link resends)"
    assert b.tx_room() < 62
    usb.reading = True
    for _ in range(20):
        usb.frame()
    assert bytes(usb.got) == b"".join(sent), "only whole frames, in order"


def test_a_write_bigger_than_the_room_takes_what_fits():
    usb, b, _ = _up()
    usb.reading = False
    lk = b.link
    assert lk.write(bytes(1000)) == 1000
    assert lk.write(bytes(100)) == 24 and lk.overruns == 1 and lk.room() == 0
    assert lk.ioctl(3, 4) == 0, "no POLLOUT when full"


def test_bus_reset_then_enumeration_again():
    usb, b, _ = _up()
    b.link_write(_frame(1))
    usb.reset()
    assert not b.link.open and b.link.tx_busy == 0
    usb.enumerate()
    usb.frame()
    assert bytes(usb.got) == _frame(1), "what waited goes out after the re-enumeration"
    usb.write(_frame(2))
    buf = bytearray(128)
    assert b.link_read(buf) == len(_frame(2))


def test_receive_callback_allocates_nothing():
    import micropython
    lk = usbcdc.LinkCDC(rp2fake.StubUSB())
    lk._open(None)
    micropython.heap_lock()
    try:
        for _ in range(20):
            lk._xfer(lk.ep_out, 0, 38)      # OUT done: count it, submit the next slot
            lk.rx_r = lk.rx_w               # (the loop read it)
    finally:
        micropython.heap_unlock()
    assert lk.rx_busy


mptest.main(globals())
