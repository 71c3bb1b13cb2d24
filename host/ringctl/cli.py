"""The `ring` command: subcommand groups, each implemented in its own module.

Each group module exposes `register(subparsers)` which adds its parser(s) and sets
`func` on them; `func(args)` returns an exit status. Groups are imported lazily so that
`ring --help` and a typo never pay for OpenCV or pybullet imports, and a broken group
cannot take the others down.
"""
import importlib
import sys

from .cliutil import OneLineParser
from .errors import UserError

# name -> (module, one-line help). A module registers exactly the parser `name`.
GROUPS = {
    "link": ("ringctl.link.cli", "ring link: dump captured traffic, talk to a board"),
    "vision": ("ringctl.vision.cli", "overhead camera: calibrate, train, classify"),
    "game": ("ringctl.game.cli", "rules engine: replay a game script"),
    "log": ("ringctl.record.cli", "audit log: verify, export"),
    "device": ("ringctl.device.cli", "technician: list, build, deploy, provision boards"),
    "doctor": ("ringctl.device.doctor", "one report on link, firmware, sensors, light, camera"),
    "sim": ("ringctl.sim.cli", "simulated board and ring"),
    "run": ("ringctl.runner.cli", "run the host against a real board and camera"),
    "demo": ("ringctl.sim.demo", "play a simulated game end to end"),
    "console": ("ringctl.console.cli", "web console: users (serve it with run/demo --console)"),
    "bench": ("ringctl.bench", "benchmarks that print figures as JSON"),
}


def build_parser(only=None):
    parser = OneLineParser(prog="ring", description="Two-Up ring controller")
    sub = parser.add_subparsers(dest="group", metavar="COMMAND", parser_class=OneLineParser)
    for name, (module, help_text) in GROUPS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            p = sub.add_parser(name, help=help_text + " [unavailable]")
            p.set_defaults(func=_unavailable(name, exc))
            continue
        mod.register(sub)
    return parser


def _unavailable(name, exc):
    def run(args):
        raise UserError(f"'ring {name}' is not available in this install ({exc}); "
                        "reinstall with 'make venv'", code=1)
    return run


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # Only import the group being run (plus stubs for the others so --help lists them all).
    first = next((a for a in argv if not a.startswith("-")), None)
    only = first if first in GROUPS else None
    parser = build_parser(only=only if only else "__none__")
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2 if args.group is None else 0
    try:
        return func(args) or 0
    except UserError as exc:
        print(f"ring: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("ring: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:        # the last line of defence: one line + a report file
        from .crash import report_unexpected
        print("ring: error: " + report_unexpected(argv, exc), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
