"""`ring console user add|list|remove`: the console's users (the console itself is served by
`ring run --console` and `ring demo --console`)."""
import getpass
import sys

from ..cliutil import group_parser
from ..errors import UserError
from .users import ROLES, Users, default_path


def register(subparsers):
    _, sub = group_parser(subparsers, "console", "web console: users (serve it with run/demo --console)")
    user = sub.add_parser("user", help="add, list or remove console users")
    usub = user.add_subparsers(dest="ucmd", metavar="ACTION", parser_class=type(user))
    user.set_defaults(func=lambda args: (user.print_help(), 2)[1])
    p = usub.add_parser("add", help="add a user (asks for the password, or --password-stdin)")
    p.add_argument("name")
    p.add_argument("--role", required=True, choices=ROLES)
    p.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    p.add_argument("--replace", action="store_true", help="the user exists: set a new password/role")
    _common(p)
    p.set_defaults(func=_add)
    p = usub.add_parser("list", help="list users and their roles")
    _common(p)
    p.set_defaults(func=_list)
    p = usub.add_parser("remove", help="remove a user")
    p.add_argument("name")
    _common(p)
    p.set_defaults(func=_remove)


def _common(p):
    p.add_argument("--users", default=None, metavar="PATH",
                   help="user file (default $RING_HOME/console-users.json: %s)" % default_path())
    p.add_argument("--log", default=None, metavar="PATH",
                   help="audit log that records the change (default $RING_HOME/audit.db)")


def _password(args):
    if args.password_stdin:
        pw = sys.stdin.readline().rstrip("\n")
    else:
        if not sys.stdin.isatty():
            raise UserError("no terminal to ask for the password: pass --password-stdin")
        pw = getpass.getpass("password for %s: " % args.name)
        if getpass.getpass("again: ") != pw:
            raise UserError("the two passwords differ; run the command again")
    return pw


def _record(args, action, name, role=None):
    from ..record.records import record_user_change
    from ..record.log import AuditLog, default_path as log_path
    import getpass as gp
    with AuditLog(args.log or log_path()) as log:
        record_user_change(log, action, name, role, by=gp.getuser())


def _add(args):
    users = Users(args.users or default_path())
    existed = args.name in users.load()
    users.add(args.name, args.role, _password(args), replace=args.replace)
    _record(args, "replace" if existed else "add", args.name, args.role)
    print("console user %s (%s) %s in %s" % (args.name, args.role, "updated" if existed else "added",
                                             users.path))
    return 0


def _list(args):
    for name, role in Users(args.users or default_path()).roles().items():
        print("%-20s %s" % (name, role))
    return 0


def _remove(args):
    users = Users(args.users or default_path())
    users.remove(args.name)
    _record(args, "remove", args.name)
    print("console user %s removed" % args.name)
    return 0
