"""Serve the console beside a running host: uvicorn on its own thread, bound to 127.0.0.1
unless another address is named."""
import threading
import time

import uvicorn

from ..errors import UserError
from .app import create_app


def parse_bind(spec):
    """'[HOST:]PORT' -> (host, port). Only a named host opens the console beyond this machine."""
    spec = str(spec).strip()
    host, _, port = spec.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port)
    except ValueError:
        raise UserError(f"--console {spec!r}: expected [HOST:]PORT, e.g. 8080 or 0.0.0.0:8080")
    if not 0 <= port <= 65535:
        raise UserError(f"--console {spec!r}: port must be 0..65535")
    return host, port


class ConsoleServer:
    """The console app under uvicorn in a daemon thread; `url` once started."""

    def __init__(self, host, log_path, users_path, parse_command, bind="127.0.0.1:8080", ring=None,
                 ssl_certfile=None, ssl_keyfile=None):
        self.bind_host, self.port = parse_bind(bind)
        self.app = create_app(host, log_path, users_path, parse_command, ring=ring,
                              secure_cookies=bool(ssl_certfile))
        self.config = uvicorn.Config(self.app, host=self.bind_host, port=self.port, log_level="warning",
                                     ws="websockets-sansio", lifespan="on", access_log=False,
                                     timeout_graceful_shutdown=1,
                                     ssl_certfile=ssl_certfile, ssl_keyfile=ssl_keyfile)
        self.server = uvicorn.Server(self.config)
        self.thread = None
        self.scheme = "https" if ssl_certfile else "http"

    def start(self, timeout=10.0):
        self.thread = threading.Thread(target=self.server.run, name="console-http", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise UserError(f"the console could not listen on {self.bind_host}:{self.port} "
                                "(port in use? pick another with --console PORT)")
            time.sleep(0.02)
        sockets = [s for srv in self.server.servers for s in srv.sockets]
        if sockets:
            self.port = sockets[0].getsockname()[1]
        return self

    @property
    def url(self):
        h = self.bind_host if self.bind_host not in ("0.0.0.0", "::") else "127.0.0.1"
        return f"{self.scheme}://{h}:{self.port}"

    def stop(self):
        console = self.app.state.console
        console.hub.close_clients()         # open sockets finish instead of being cancelled
        console.camera.close()
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(5.0)

