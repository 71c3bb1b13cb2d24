# Heap after a boot's imports with each board on this unix port (64-bit): the simulated board (board_sim + linkio) or the Pico's (board_pico + usbcdc + fastlink on rp2fake), so the bench can count the Pico's heap instead of the simulator's.
# Run by host/ringctl/board/bench.py under micropython, once per board in a fresh process
# (argument "sim" or "pico"), with MICROPYPATH = the deployed image's lib (target sim: its
# machine code is x86-64 here; bench.py swaps in the ARMv6-M sizes) + firmware/bench. In
# main.py's order: the board built first, then the App's modules. Whole totals, not a
# module's share: the interpreter grows its string table in chunks, so what one import adds
# depends on what came before. Prints one JSON line {"board": name, "heap_bytes": n}.
import gc
import json
import os
import sys
import time

import rp2fake        # stands in for the rp2 port's C modules (both runs load it: it cancels)

ROOT = "/tmp/ringbench_heapstack_%d" % (time.ticks_us() & 0xFFFFFF)


def board(name):
    if name == "sim":
        import board_sim
        return board_sim.Board(root=ROOT, link_fd=None, sock_path="")
    rp2fake.install()
    import board_pico
    b = board_pico.Board(usbd=rp2fake.StubUSB())
    b.open_link()
    b.link._open(None)
    return b


def main():
    try:
        os.mkdir(ROOT)
    except OSError:
        pass
    b = board(sys.argv[1])
    import app            # noqa: F401  (and everything it imports)
    app.forget_boot_modules()
    gc.collect()
    print(json.dumps({"board": sys.argv[1], "heap_bytes": gc.mem_alloc(), "keep": b is not None}))


main()
