"""Small helpers shared by the CLI group modules."""


def group_parser(subparsers, name, help_text):
    """Add a group parser whose bare invocation prints its own help."""
    p = subparsers.add_parser(name, help=help_text, description=help_text)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])
    return p, p.add_subparsers(dest="cmd", metavar="SUBCOMMAND", parser_class=type(p))
