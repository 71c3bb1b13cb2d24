# The ring link's byte loops in machine code for the board (viper): COBS encode / decode and the constant-time tag compare, installed into ringlink in place of its plain-Python ones.
# ringlink.py stays plain Python in the MicroPython / CPython subset (the host runs it too);
# these do exactly what its _cobs_encode_into, _cobs_decode_into and _tag_ok do, byte for byte
# (tests/firmware/mp_test_fastlink.py runs the link's golden vectors and a fuzz of both
# against each other). In bytecode each zero of a frame costs a loop turn (~17 for an event
# frame) and the tag compare 32 subscripts: ~6 us per command and its answer on the unix
# port, ~1 ms on the chip. Viper needs an architecture: the build compiles this module
# with -march=armv6m (runs on the RP2040 and the RP2350); only board_pico imports it.
import micropython


@micropython.viper
def cobs_encode_into(data, out, oi: int, n: int) -> int:
    """COBS-encode data[:n] into out from index oi (room: n + n // 254 + 1). -> index after
    the last byte written. A block of 254 non-zero bytes gets code 0xFF (no zero implied)."""
    d = ptr8(data)
    o = ptr8(out)
    p = oi                  # where the current block's code goes
    q = oi + 1              # next output byte
    i = 0
    while i < n:
        c = d[i]
        if c == 0:
            o[p] = q - p
            p = q
            q += 1
        else:
            o[q] = c
            q += 1
            if q - p == 255:
                o[p] = 255
                p = q
                q += 1
        i += 1
    o[p] = q - p
    return q


@micropython.viper
def cobs_decode_into(enc, out) -> int:
    """Decode COBS bytes enc into out (room: len(enc)). -> length, or -1 if malformed (a
    zero code or a block past the end)."""
    n = int(len(enc))
    if n == 0:
        return 0
    e = ptr8(enc)
    o = ptr8(out)
    i = 0
    k = 0
    while i < n:
        code = e[i]
        if code == 0:
            return -1
        end = i + code
        if end > n:
            return -1
        i += 1
        while i < end:
            o[k] = e[i]
            k += 1
            i += 1
        if code < 255 and i < n:
            o[k] = 0
            k += 1
    return k


@micropython.viper
def tag_ok(d, fr, i: int) -> bool:
    """d[:16] == fr[i:i + 16], every byte looked at whatever the first difference."""
    a = ptr8(d)
    b = ptr8(fr)
    r = 0
    j = 0
    while j < 16:
        r |= a[j] ^ b[i + j]
        j += 1
    return r == 0


def install():
    """Make ringlink use these (module-wide: every Session and Deframer in this process)."""
    import ringlink
    ringlink.use_codec(cobs_encode_into, cobs_decode_into, tag_ok)
