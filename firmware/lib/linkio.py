# The board's link output: a preallocated byte buffer written to the line only as fast as the line takes it, never blocking the controller.
# USB-CDC on the rp2 port (MicroPython 1.28, shared/tinyusb/mp_usbd_cdc.c): POLLOUT means one
# free byte in the 256-byte FIFO, and write() waits up to 500 ms for each 64-byte piece that
# does not fit — with a host that holds the port open without reading, every write would
# stall the loop. So the Pico writes one byte per POLLOUT check (piece=1: never more than the
# line promised); a non-blocking fd (the simulated board's pty) takes whole runs (piece=0).
import time
import select

from micropython import const

TX_BYTES = const(1024)     # ~7 full frames waiting; more is the link's job (it resends)


class TxBuffer:
    def __init__(self, stream, piece=0, budget=4096, size=TX_BYTES, poll_obj=None):
        """stream: where the bytes go; poll_obj: what to poll for POLLOUT (default the
        stream; on the Pico sys.stdout, whose .buffer is the stream)."""
        self.stream = stream
        self.poller = select.poll()
        self.poller.register(stream if poll_obj is None else poll_obj, select.POLLOUT)
        self.buf = bytearray(size)
        self.mv = memoryview(self.buf)
        self.one = bytearray(1)
        self.start = 0
        self.end = 0
        self.piece = piece
        self.budget = budget     # bytes per flush() at most: bounds one loop pass on the chip
        self.max_us = 0          # longest flush() (it never waits on the line)
        self.short = 0           # writes the line took only part of (host not reading)
        self.dropped = 0         # frames that found no room (the link protocol resends)

    def room(self):
        return len(self.buf) - (self.end - self.start)

    def put(self, data):
        """Queue one encoded frame and write what the line takes now. -> False if no room."""
        n = len(data)
        if self.end + n > len(self.buf) and self.start:
            k = self.end - self.start
            self.mv[0:k] = self.mv[self.start:self.end]
            self.start = 0
            self.end = k
        if self.end + n > len(self.buf):
            self.dropped += 1
            return False
        self.mv[self.end:self.end + n] = data
        self.end += n
        self.flush()
        return True

    def flush(self):
        """Write what the line takes now, at most `budget` bytes; never waits."""
        if self.start == self.end:
            return
        t = time.ticks_us()
        if self.piece == 1:
            self._trickle()
        else:
            self._runs()
        d = time.ticks_diff(time.ticks_us(), t)
        if d > self.max_us:
            self.max_us = d
        if self.start == self.end:
            self.start = self.end = 0

    def _trickle(self):
        # one byte per POLLOUT check: the loop is kept short, it runs per byte on the chip
        buf = self.buf
        one = self.one
        write = self.stream.write
        ready = self.poller.ipoll
        i = self.start
        end = self.end
        if end - i > self.budget:
            end = i + self.budget
        try:
            while i < end:
                for _ in ready(0):
                    break
                else:
                    break
                one[0] = buf[i]
                if not write(one):
                    self.short += 1
                    break
                i += 1
        except OSError:
            self.short += 1      # host gone: the link protocol resends
        self.start = i

    def _runs(self):
        left = self.budget
        while self.start < self.end and left > 0:
            ready = False
            for _ in self.poller.ipoll(0):
                ready = True
            if not ready:
                break
            n = self.end - self.start
            if n > left:
                n = left
            try:
                w = self.stream.write(self.mv[self.start:self.start + n])
            except OSError:
                w = 0            # host gone: the link protocol resends
            if not w:
                self.short += 1
                break
            self.start += w
            left -= w
            if w < n:
                self.short += 1  # the line is full: the rest waits for the next pass
                break
