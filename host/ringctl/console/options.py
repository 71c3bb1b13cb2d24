"""`--console [HOST:]PORT` for `ring run` and `ring demo`, and starting the console beside
a host (kept apart from server.py so that a command's --help does not load the web stack)."""
import os
import secrets

from .users import ROLES, Users, default_path


def add_console_option(parser):
    """`--console [HOST:]PORT` for `ring run` and `ring demo`."""
    parser.add_argument("--console", metavar="[HOST:]PORT", default=None,
                        help="serve the web console (boxer, supervisor, spins, players' board) "
                             "on this port; 127.0.0.1 unless a HOST is named")
    parser.add_argument("--console-users", metavar="PATH", default=None,
                        help="console user file (default $RING_HOME/console-users.json)")
    parser.add_argument("--console-tls", nargs=2, metavar=("CERT", "KEY"), default=None,
                        help="serve the console over HTTPS with this certificate and key")


def ring_outline(ring_model):
    """The ring boundary the camera overlays draw (a vision RingModel), or None without one."""
    return ring_model.to_dict() if ring_model is not None else None


def demo_logins(users_path):
    """One-time logins for a demo run (random passwords, in the demo's own user file)."""
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
    from .server import ConsoleServer
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
