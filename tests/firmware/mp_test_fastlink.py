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
    enc_py, _, _ = _PY
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
    _, dec_py, _ = _PY
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
                ka = dec_py(bytes(e), a)
                kb = fastlink.cobs_decode_into(memoryview(e), b)
                assert ka == kb and (ka < 0 or a[:ka] == b[:kb]), (n, zeros, bad, ka, kb)


def test_tag_compare_agrees_and_looks_at_all_16_bytes():
    _, _, tag_py = _PY
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
    micropython.heap_lock()
    try:
        for _ in range(10):
            fastlink.cobs_encode_into(d, out, 0, 100)
            fastlink.cobs_decode_into(enc, back)
            fastlink.tag_ok(tag, out, 4)
    finally:
        micropython.heap_unlock()
    assert back[:100] == d


mptest.main(globals())
