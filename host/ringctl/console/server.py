"""Serve the console beside a running host: uvicorn on its own thread, bound to 127.0.0.1
unless another address is named."""
import os
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
                                     ws="websockets", lifespan="on", access_log=False,
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
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(5.0)


def add_console_option(parser):
    """`--console [HOST:]PORT` for `ring run` and `ring demo`."""
    parser.add_argument("--console", metavar="[HOST:]PORT", default=None,
                        help="serve the web console (boxer, supervisor, spins, players' board) "
                             "on this port; 127.0.0.1 unless a HOST is named")
    parser.add_argument("--console-users", metavar="PATH", default=None,
                        help="console user file (default $RING_HOME/console-users.json)")
    parser.add_argument("--console-tls", nargs=2, metavar=("CERT", "KEY"), default=None,
                        help="serve the console over HTTPS with this certificate and key")


def demo_logins(users_path):
    """One-time logins for a demo run (random passwords, in the demo's own user file)."""
    import secrets
    from .users import ROLES, Users
    users = Users(users_path)
    logins = {}
    for role in ROLES:
        pw = secrets.token_urlsafe(9)
        users.add(role, role, pw, replace=True)
        logins[role] = pw
    return logins


def serve_beside(host, log_path, args, parse_command, ring=None, say=print, demo_dir=None):
    """Start the console for a running host when --console was given -> ConsoleServer or None.
    A demo gets its own user file with one-time logins, printed with the URL."""
    if not getattr(args, "console", None):
        return None
    from .users import default_path
    users_path = args.console_users or (os.path.join(demo_dir, "console-users.json") if demo_dir
                                        else default_path())
    logins = demo_logins(users_path) if demo_dir and not args.console_users else None
    cert, key = args.console_tls or (None, None)
    server = ConsoleServer(host, log_path, users_path, parse_command, bind=args.console, ring=ring,
                           ssl_certfile=cert, ssl_keyfile=key).start()
    say("console: %s  (players' board: %s/board)" % (server.url, server.url))
    if logins:
        say("console: one-time logins for this demo: " + ", ".join(
            "%s / %s" % (role, pw) for role, pw in logins.items()))
    elif not os.path.exists(users_path):
        say("console: no users yet: add one with 'ring console user add NAME --role boxer'")
    return server
