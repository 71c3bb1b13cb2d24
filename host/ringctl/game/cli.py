"""`ring game`: run the rules engine over a game script."""
import sys

from ..cliutil import group_parser


def register(subparsers):
    _, sub = group_parser(subparsers, "game", "rules engine: replay a game script")
    p = sub.add_parser("replay", help="run a game script (one JSON op per line) and print one "
                                      "JSON event per line (settled, rejected, ...), printed "
                                      "only once the whole script proved valid: a bad line "
                                      "prints no events")
    p.add_argument("script", metavar="SCRIPT", help="game script file ('-' for stdin)")
    p.set_defaults(func=_replay)


def _replay(args):
    from .script import replay_file
    replay_file(args.script, sys.stdout)
    return 0
