# The ring link's byte work in machine code for the board (viper): COBS encode / decode, the constant-time tag compare and the header's u32 reads, installed into ringlink in place of its plain-Python ones.
# ringlink.py stays plain Python in the MicroPython / CPython subset (the host runs it too);
# these do exactly what its _cobs_encode_into, _cobs_decode_at, _tag_ok and _u32 do, byte
# for byte (tests/firmware/mp_test_fastlink.py runs the link's golden vectors with these
# installed, and a fuzz of each against its twin, past 2**31 for the u32s). In bytecode each
# zero of a frame costs a loop turn (~17 for an event frame) and the tag compare 32
# subscripts. The decoder reads a received frame where it lies (the Deframer's usual read is
# one whole frame: no copy, no allocation). Viper ints are machine words: the u32 read comes
# back as uint, so a seq or ack past 2**31 is the wire's number, not a negative one. Viper
# needs an architecture: the build compiles this module with -march=armv6m (runs on the
# RP2040 and the RP2350); only board_pico imports it.
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
def cobs_decode_at(enc, s: int, e: int, out) -> int:
    """Decode the COBS bytes enc[s:e] into out (room: e - s). -> length, or -1 if malformed (a
    zero byte, a zero code or a block past the end)."""
    d = ptr8(enc)
    o = ptr8(out)
    i = s
    k = 0
    while i < e:
        code = d[i]
        end = i + code
        if code == 0 or end > e:
            return -1
        i += 1
        while i < end:
            c = d[i]
            if c == 0:
                return -1
            o[k] = c
            k += 1
            i += 1
        if code < 255 and i < e:
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


@micropython.viper
def u32(b, i: int) -> uint:
    """b[i:i + 4] as a little-endian u32 (a frame's seq / ack). Returned as uint: past 2**31 it
    is the same number as on the wire, not a negative machine word."""
    p = ptr8(b)
    return uint(p[i] | p[i + 1] << 8 | p[i + 2] << 16 | p[i + 3] << 24)


def install():
    """Make ringlink use these (module-wide: every Session and Deframer in this process)."""
    import ringlink
    ringlink.use_codec(cobs_encode_into, cobs_decode_at, tag_ok, u32)
