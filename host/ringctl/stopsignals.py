"""Make Ctrl-C, `kill` (SIGTERM) and a closed terminal (SIGHUP) stop a long-running command
through its `finally` blocks, so it closes its link, web console and audit log cleanly."""
import signal


def _stop(signum, frame):
    raise KeyboardInterrupt


def stop_on_signals():
    """Call from the main thread before serving. SIGINT is reset to Python's handler because a
    shell without job control starts background jobs with it ignored (then Ctrl-C or `kill
    -INT` did nothing); SIGTERM and SIGHUP would otherwise end the process without cleanup."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
