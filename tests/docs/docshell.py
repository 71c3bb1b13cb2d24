"""Docs as tests: take the shell blocks out of the Markdown and run their commands in order.

A block is the ```sh fence after a heading; each line is one command (`# ...` comments
dropped). Run from a fresh folder that stands for the checkout (`docs/` and `.venv/` linked
in), with `/tmp/` rewritten to that folder and `$RING_HOME` inside it, so what runs is what
the technician types. A line ending in `&` starts a background process (the simulated board)
and waits for its "link tty:" line. A trailing comment "exit N" is the documented status.
"""
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def section_blocks(md_path, heading=None):
    """[(heading, [lines])] of the ```sh blocks, optionally only under `heading` (a prefix of
    the heading text)."""
    out, current, block = [], "", None
    for line in Path(md_path).read_text().splitlines():
        if block is not None:
            if line.startswith("```"):
                out.append((current, block))
                block = None
            else:
                block.append(line)
        elif line.startswith("#"):
            current = line.lstrip("#").strip()
        elif line.strip() in ("```sh", "```"):
            block = []
    return [(h, b) for h, b in out if heading is None or h.startswith(heading)]


def commands(lines):
    """Block lines -> [(command, comment)] (comment lines and blank lines dropped)."""
    out = []
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cmd, _, comment = line.partition("  #")
        if not cmd.strip() and out:         # a comment continued on the next line
            continue
        out.append((cmd.strip(), comment.strip()))
    return out


def ring_words(cmd):
    """'.venv/bin/ring doctor --port auto' -> ['doctor', '--port', 'auto'] (None if no ring)."""
    try:
        words = shlex.split(cmd.rstrip("&").strip())
    except ValueError:            # prose-like inline text with an apostrophe
        words = cmd.rstrip("&").split()
    if words and words[0].endswith("ring") and words[0].split("/")[-1] == "ring":
        return words[1:]
    return None


class DocShell:
    """Runs documented commands in order in one folder; background processes stopped at close."""

    def __init__(self, folder, stdin_for=None):
        self.dir = Path(folder)
        self.dir.mkdir(parents=True, exist_ok=True)
        for name in ("docs", ".venv"):
            if not (self.dir / name).exists():
                os.symlink(ROOT / name, self.dir / name)
        self.env = dict(os.environ, RING_HOME=str(self.dir / "ring-home"),
                        PATH="%s:%s" % (BIN, os.environ.get("PATH", "")))
        self.stdin_for = stdin_for or {}
        self.background = []
        self.log = []

    def local(self, cmd):
        return cmd.replace("/tmp/", str(self.dir) + "/")

    def run(self, cmd, comment="", timeout=120):
        """Run one documented command -> CompletedProcess; AssertionError on an undocumented
        exit status (the output is in the message)."""
        line = self.local(cmd)
        if line.endswith("&"):
            return self._start(line[:-1].strip())
        want = int(m.group(1)) if (m := re.search(r"\bexit (\d+)", comment)) else 0
        words = ring_words(cmd) or []
        stdin = next((v for k, v in self.stdin_for.items() if words[:len(k)] == list(k)), "")
        t0 = time.monotonic()
        if isinstance(stdin, list):          # typed lines, each after a pause
            p = subprocess.Popen(line, shell=True, cwd=self.dir, env=self.env, text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
            for pause, text in stdin:
                time.sleep(pause)
                p.stdin.write(text)
                p.stdin.flush()
            out, err = p.communicate(timeout=timeout)
            proc = subprocess.CompletedProcess(line, p.returncode, out, err)
        else:
            proc = subprocess.run(line, shell=True, cwd=self.dir, env=self.env, input=stdin,
                                  capture_output=True, text=True, timeout=timeout)
        self.log.append((cmd, proc.returncode, round(time.monotonic() - t0, 1)))
        assert proc.returncode == want, "%s -> exit %d (documented %d)\n%s%s" % (
            cmd, proc.returncode, want, proc.stdout[-3000:], proc.stderr[-3000:])
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    def _start(self, line, timeout=20):
        proc = subprocess.Popen(line, shell=True, cwd=self.dir, env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        self.background.append(proc)
        seen = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            out = proc.stdout.readline()
            if not out:
                break
            seen.append(out)
            if out.startswith("firmware:"):        # the last line `ring sim board` prints
                return proc
        raise AssertionError("%s did not start:\n%s" % (line, "".join(seen)))

    def close(self):
        for proc in self.background:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
