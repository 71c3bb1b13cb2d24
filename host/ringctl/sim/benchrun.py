"""What the one-core benches share at their start: OpenCV on one thread, a progress log, the JSON header."""
import os
import sys

import cv2


def start(progress, **header):
    """(log or None, the output dict): OpenCV pinned to one thread (the figures are one core's);
    `log(text)` says progress on stderr when `progress`; the dict opens with the thread count and
    the machine's load (other processes, when measured), then `header`."""
    cv2.setNumThreads(1)
    log = (lambda s: print(s, file=sys.stderr, flush=True)) if progress else None
    return log, {"threads": 1, "load_avg_1min": round(os.getloadavg()[0], 2), **header}
