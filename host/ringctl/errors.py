"""The one exception type that the `ring` command turns into a one-line message."""


class UserError(Exception):
    """A problem the user can fix: the message names the problem and the fix.

    `code` is the process exit status the CLI uses (2 = bad input, 1 = operation failed).
    """

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code
