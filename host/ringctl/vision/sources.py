"""Frame sources behind one interface: camera / video / stream, folder of images, or any callable.

Every source has `read() -> (frame BGR uint8 or None at the end, t_s)`, `size` (w, h) or None
when unknown, `fps` (None when unknown), `close()`, and works as a context manager.
`open_source(spec)` picks the kind: int (or digit string) = camera index; a folder = images in
name order; a file = video; 'rtsp://', 'http://', 'https://' = stream; a callable or an
iterator = the simulator (yields frames or (frame, t_s) pairs).
"""
import os
import time
from pathlib import Path

import cv2

from ..errors import UserError

IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class Source:
    size = None
    fps = None

    def read(self):
        raise NotImplementedError

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        while True:
            frame, t = self.read()
            if frame is None:
                return
            yield frame, t


class CaptureSource(Source):
    """cv2.VideoCapture: camera index, video file, RTSP/HTTP stream."""

    def __init__(self, what, live):
        self._cap = cv2.VideoCapture(what)
        if not self._cap.isOpened():
            raise UserError(f"cannot open video source {what!r}; check the camera index, path or URL")
        self._live = live
        self._t0 = time.monotonic()
        w, h = self._cap.get(cv2.CAP_PROP_FRAME_WIDTH), self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)
        self.size = (int(w), int(h)) if w and h else None
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and fps > 0 else None

    def read(self):
        ok, frame = self._cap.read()
        if not ok:
            return None, None
        if self._live:   # live: wall-clock arrival time; file: its own timeline
            return frame, time.monotonic() - self._t0
        return frame, self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0

    def close(self):
        self._cap.release()


class FolderSource(Source):
    """Images of a folder in name order; t_s = index / fps (default 1 frame per second)."""

    def __init__(self, folder, fps=1.0):
        self._files = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_EXTS)
        if not self._files:
            raise UserError(f"no images ({', '.join(sorted(IMAGE_EXTS))}) in folder {folder}")
        self.fps = fps
        self._i = 0
        first = cv2.imread(str(self._files[0]), cv2.IMREAD_COLOR)
        self.size = (first.shape[1], first.shape[0]) if first is not None else None

    def read(self):
        if self._i >= len(self._files):
            return None, None
        path = self._files[self._i]
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise UserError(f"cannot read image {path}; is it a PNG/JPEG file?")
        t = self._i / self.fps
        self._i += 1
        return frame, t


class CallableSource(Source):
    """The simulator: a callable returning a frame / (frame, t_s) / None, or an iterator of those."""

    def __init__(self, fn, fps=None, size=None):
        self._next = fn if callable(fn) and not hasattr(fn, "__next__") else (lambda it=iter(fn): next(it, None))
        self.fps, self.size = fps, size
        self._n = 0
        self._t0 = time.monotonic()

    def read(self):
        item = self._next()
        if item is None:
            return None, None
        if isinstance(item, tuple):
            frame, t = item
        else:
            frame = item
            t = self._n / self.fps if self.fps else time.monotonic() - self._t0
        self._n += 1
        if self.size is None and frame is not None:
            self.size = (frame.shape[1], frame.shape[0])
        return frame, float(t)


def open_source(spec, fps=None):
    """Open a frame source from an int, path, URL, callable or iterator (see module doc)."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return CaptureSource(int(spec), live=True)
    if isinstance(spec, (str, os.PathLike)):
        s = str(spec)
        if s.startswith(("rtsp://", "http://", "https://")):
            return CaptureSource(s, live=True)
        p = Path(s)
        if p.is_dir():
            return FolderSource(p, fps=fps or 1.0)
        if p.is_file():
            return CaptureSource(s, live=False)
        raise UserError(f"no such camera, file or folder: {s}")
    if callable(spec) or hasattr(spec, "__iter__"):
        return CallableSource(spec, fps=fps)
    raise UserError(f"cannot use {spec!r} as a frame source; give a camera index, path, URL or callable")
