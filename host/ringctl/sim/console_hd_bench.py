"""The 1080p figure of `ring bench console`: the console serving a real RingHost whose camera is
a 1920x1080 source at 25 fps, three viewers on /ws/camera as WebSocket clients in this process,
each counting the frames it receives (every one decoded as a JPEG) over `seconds`.

The console's CPU is read from the kernel's per-thread counters of its two threads, the
encoder (annotate, resize, JPEG) and the server's event loop (WebSocket sends); also the
whole process's extra CPU with the viewers (console and the three clients together)."""
import contextlib
import os
import re
import tempfile
import threading
import time

import cv2
import numpy as np


def _thread_cpu_s(tid):
    """CPU seconds (user + system) the kernel has counted for one thread of this process."""
    with open("/proc/self/task/%d/stat" % tid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _login(url, users_path):
    """-> the session cookie header of a fresh boxer login (the form's own CSRF token)."""
    import httpx2 as httpx
    from ..console.options import demo_logins
    pw = demo_logins(users_path)["boxer"]
    with httpx.Client(base_url=url, follow_redirects=False) as http:
        page = http.get("/login").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        r = http.post("/login", data={"user": "boxer", "password": pw, "csrf": csrf})
        if r.status_code != 303 or "error" in r.headers.get("location", ""):
            raise RuntimeError("bench login refused: %s" % r.headers.get("location"))
        return "; ".join("%s=%s" % kv for kv in http.cookies.items())


class Viewer:
    """One /ws/camera client on its own thread: frames received per second, each decoded."""

    def __init__(self, ws_url, cookie):
        from websockets.sync.client import connect
        self._open = contextlib.ExitStack()      # the socket is closed through its context
        self.ws = self._open.enter_context(connect(ws_url, additional_headers={"Cookie": cookie},
                                                   max_size=None))
        self.times, self.bad, self.size, self.run = [], 0, None, True
        self.decode_cpu_s = 0.0     # this client's decoding: not the console's cost
        self.thread = threading.Thread(target=self._recv, daemon=True)
        self.thread.start()

    def _recv(self):
        while self.run:
            try:
                data = self.ws.recv(timeout=1.0)
            except TimeoutError:
                continue
            except Exception:
                return
            c0 = time.thread_time()
            img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            self.decode_cpu_s += time.thread_time() - c0
            if img is None:
                self.bad += 1
                continue
            self.size = [img.shape[1], img.shape[0]]
            self.times.append(time.monotonic())

    def fps(self, t0, t1):
        return sum(t0 <= t < t1 for t in self.times) / (t1 - t0)

    def close(self):
        self.run = False
        self._open.close()
        self.thread.join(2.0)


def run_hd(viewers=3, seconds=12.0, warmup_s=2.0):
    from ..console.options import ring_outline
    from ..console.server import ConsoleServer
    from ..runner.commands import parse_command
    from .hdcamera import HD, hd_ring_host
    work = tempfile.mkdtemp(prefix="ring-bench-console-hd-")
    log_path = os.path.join(work, "audit.db")
    host, rig = hd_ring_host(log_path)
    users = os.path.join(work, "console-users.json")
    server = ConsoleServer(host, log_path, users, parse_command, bind="127.0.0.1:0",
                           ring=ring_outline(rig.views[0].ring)).start()
    clients = []
    try:
        time.sleep(warmup_s)                 # the host alone: its watcher at 1080p, 25 fps
        w0, p0 = time.monotonic(), time.process_time()
        time.sleep(seconds / 2)
        alone = (time.process_time() - p0) / (time.monotonic() - w0)
        cookie = _login(server.url, users)
        ws_url = server.url.replace("http", "ws", 1) + "/ws/camera"
        clients = [Viewer(ws_url, cookie) for _ in range(viewers)]
        time.sleep(warmup_s)
        feed = server.app.state.console.camera
        t0, e0, c0, l0 = time.monotonic(), feed.encoded, feed.cpu_s, os.getloadavg()[0]
        tids = [server.thread.native_id, feed._thread.native_id]
        v0, p0, d0 = host.watcher.frames, time.process_time(), sum(v.decode_cpu_s for v in clients)
        k0 = [_thread_cpu_s(t) for t in tids]
        time.sleep(seconds)
        t1, e1, c1 = time.monotonic(), feed.encoded, feed.cpu_s
        p1, d1 = time.process_time(), sum(v.decode_cpu_s for v in clients)
        k1 = [_thread_cpu_s(t) for t in tids]
        v1 = host.watcher.frames
        fps = [round(v.fps(t0, t1), 1) for v in clients]
        out = {"source": "%dx%d at 25 fps (pre-rendered, coins moving), a real RingHost's "
                         "camera watcher" % HD,
               "viewers": viewers, "seconds": round(t1 - t0, 1),
               "fps_per_viewer": fps, "fps_min": min(fps), "fps_median": float(np.median(fps)),
               "frames_not_decoded": sum(v.bad for v in clients),
               "frame_size_sent": clients[0].size,
               "encoder_fps": round((e1 - e0) / (t1 - t0), 1),
               "encoder_cpu_share": round((k1[1] - k0[1]) / (t1 - t0), 3),
               "server_loop_cpu_share": round((k1[0] - k0[0]) / (t1 - t0), 3),
               "encoder_duty_counted": round((c1 - c0) / (t1 - t0), 3),
               "process_extra_cpu_share": round((p1 - p0 - (d1 - d0)) / (t1 - t0) - alone, 3),
               "cpu_note": "shares of one core; process_extra is the console and the three "
                           "clients' WebSocket receiving together (their decoding excluded)",
               "host_alone_cpu_share": round(alone, 3),
               "max_fps": feed.period and round(1.0 / feed.period, 1),
               "host_watcher_fps": round((v1 - v0) / (t1 - t0), 1),
               "load_avg_1min": [round(l0, 2), round(os.getloadavg()[0], 2)]}
    finally:
        for v in clients:
            v.close()
        server.stop()
        host.watcher.stop()
    return out


if __name__ == "__main__":
    import json
    print(json.dumps(run_hd(), indent=1))
