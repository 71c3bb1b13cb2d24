# The board's machine-code link loops (fastlink.py, viper) do exactly what ringlink's plain-Python ones do: the golden link vectors with fastlink installed, a fuzz of both against each other, no allocation.
import os
import mptest
import ringlink as rl
import fastlink

import mp_test_link          # the golden-vector tests, run below with fastlink installed

_PY = rl.PY_CODEC
LINK = mp_test_link.__dict__


def _with_fastlink(fn):
    fastlink.install()
    try:
        fn()
    finally:
        rl.use_codec(*_PY)


def test_golden_vectors_cobs():
    _with_fastlink(LINK["test_cobs_roundtrip"])


def test_golden_vectors_frames_seal_and_verify():
    _with_fastlink(LINK["test_frames_seal_and_verify"])


def test_golden_vectors_deframer_resync_and_repl():
    _with_fastlink(LINK["test_deframer_resync_and_repl"])


def test_golden_vectors_every_other_link_test():
    done = ("test_cobs_roundtrip", "test_frames_seal_and_verify", "test_deframer_resync_and_repl")
    names = sorted(k for k in LINK if k.startswith("test_") and k not in done)
    assert len(names) >= 8
    for name in names:
        _with_fastlink(LINK[name])


def _rand(n, zeros):
    b = bytearray(os.urandom(n))
    for i in range(n):
        if b[i] % 100 < zeros:
            b[i] = 0
    return b


def test_encode_matches_the_python_encoder_byte_for_byte():
    enc_py = _PY[0]
    for n in list(range(0, 40)) + [127, 128, 253, 254, 255, 300, 508, 509, 600]:
        for zeros in (0, 5, 30, 100):
            d = _rand(n, zeros)
            a = bytearray(n + n // 254 + 8)
            b = bytearray(n + n // 254 + 8)
            ka = enc_py(bytes(d), a, 1, n)
            kb = fastlink.cobs_encode_into(d, b, 1, n)
            assert (ka, bytes(a[:ka])) == (kb, bytes(b[:kb])), (n, zeros)
    # a length below the buffer's: only data[:n]
    d = bytearray(b"\x11\x00\x22\x00\x00\x00\x33\x00\x44\x55")
    a = bytearray(20)
    b = bytearray(20)
    assert enc_py(d, a, 0, 7) == fastlink.cobs_encode_into(d, b, 0, 7) and a == b


def test_decode_matches_the_python_decoder_on_good_and_bad_input():
    dec_py = _PY[1]
    for n in list(range(0, 40)) + [128, 254, 255, 600]:
        for zeros in (0, 10, 60):
            enc = rl.cobs_encode(_rand(n, zeros))
            for bad in range(4):
                e = bytearray(enc)
                if bad == 1 and e:
                    e[len(e) // 2] = 0                      # a zero inside: malformed
                elif bad == 2 and e:
                    e[0] = min(255, len(e) + 3)             # a block past the end
                elif bad == 3:
                    e = e[:len(e) // 2]                     # cut short
                a = bytearray(len(e) + 1)
                b = bytearray(len(e) + 1)
                ka = dec_py(bytes(e), 0, len(e), a)
                kb = fastlink.cobs_decode_at(memoryview(e), 0, len(e), b)
                assert ka == kb and (ka < 0 or a[:ka] == b[:kb]), (n, zeros, bad, ka, kb)
                if bad == 1 and e:
                    assert ka == -1, "a zero byte inside COBS is malformed"
                # the same run where it lies inside a longer read (the Deframer's one-frame
                # read: 0x00 | COBS | 0x00), from a memoryview and from bytes
                w = b"\x00" + bytes(e) + b"\x00"
                c = bytearray(len(e) + 1)
                assert fastlink.cobs_decode_at(memoryview(w), 1, len(w) - 1, c) == ka
                assert dec_py(memoryview(w), 1, len(w) - 1, a) == ka
                assert dec_py(w, 1, len(w) - 1, a) == ka
                assert ka < 0 or c[:ka] == b[:kb]


def test_u32_reads_the_wire_number_past_2_to_the_30_and_31():
    u32_py = _PY[3]
    vals = [0, 1, 0xFF, 0x3FFFFFFF, 0x40000000, 0x7FFFFFFF, 0x80000000, 0xC0000000,
            0xFFFFFFFE, 0xFFFFFFFF, 0x12345678]
    for v in vals + [int.from_bytes(os.urandom(4), "little") for _ in range(200)]:
        for off in (0, 2, 6, 7):
            b = bytearray(os.urandom(12))
            b[off:off + 4] = v.to_bytes(4, "little")
            assert fastlink.u32(b, off) == v == u32_py(b, off), (v, off)
            assert fastlink.u32(memoryview(b), off) == v


def test_tag_compare_agrees_and_looks_at_all_16_bytes():
    tag_py = _PY[2]
    d = bytes(range(100, 132))
    fr = bytearray(b"hdr" + d[:16] + b"crc!")
    assert fastlink.tag_ok(d, fr, 3) and tag_py(d, fr, 3)
    for k in range(16):
        f2 = bytearray(fr)
        f2[3 + k] ^= 1 << (k % 8)
        assert not fastlink.tag_ok(d, memoryview(f2), 3) and not tag_py(d, f2, 3), k


def test_the_loops_allocate_nothing():
    import micropython
    d = _rand(100, 20)
    out = bytearray(120)
    enc = bytes(out[:fastlink.cobs_encode_into(d, out, 0, 100)])
    back = bytearray(120)
    tag = bytes(16)
    wire = memoryview(b"\x00" + enc + b"\x00")
    micropython.heap_lock()
    try:
        for _ in range(10):
            fastlink.cobs_encode_into(d, out, 0, 100)
            fastlink.cobs_decode_at(enc, 0, len(enc), back)
            fastlink.cobs_decode_at(wire, 1, len(wire) - 1, back)
            fastlink.tag_ok(tag, out, 4)
            fastlink.u32(b"\x00\x01\x02\x03\x3f", 1)    # below 2**30: a small int on 32 bits too
    finally:
        micropython.heap_unlock()
    assert back[:100] == d


mptest.main(globals())
