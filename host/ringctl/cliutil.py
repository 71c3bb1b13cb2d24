"""Small helpers shared by the CLI group modules."""
import argparse
import json


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports bad arguments in one line (no usage dump, no traceback)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def group_parser(subparsers, name, help_text):
    """Add a group parser whose bare invocation prints its own help."""
    p = subparsers.add_parser(name, help=help_text, description=help_text)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])
    return p, p.add_subparsers(dest="cmd", metavar="SUBCOMMAND", parser_class=type(p))


def print_figures(figures, as_json):
    """A benchmark's figures: one JSON line, or one aligned `name value` line each."""
    if as_json:
        print(json.dumps(figures))
        return
    for k, v in figures.items():
        print(f"{k:28s} {v}")
