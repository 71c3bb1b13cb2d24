"""The documented commissioning sequences run as written against the simulated board (docs as tests).

The blocks are read from README.md and hardware/README.md at test time, so a changed doc is
a changed test. One simulated board serves both blocks, as a technician would run them.
"""
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from docshell import ROOT, DocShell, commands, ring_words, section_blocks  # noqa: E402

from ringctl.cli import build_parser  # noqa: E402

DOCS = ["README.md", "hardware/README.md", "hardware/INSTALL.md", "hardware/MICROPYTHON.md",
        "firmware/SIM.md", "firmware/README.md", "docs/ARCHITECTURE.md"]


def _block(doc, heading, n=0):
    blocks = section_blocks(ROOT / doc, heading)
    assert len(blocks) > n, f"{doc}: no shell block under '{heading}'"
    return commands(blocks[n][1])


def test_the_documented_sim_commissioning_runs_as_written(tmp_path):
    board_steps = _block("hardware/README.md", "The simulated board")
    ring_steps = _block("README.md", "Building and commissioning", 1)
    # ring run: the technician waits for "link up", types s (status), then q.
    sh = DocShell(tmp_path, stdin_for={("run",): [(3.0, "s\n"), (1.0, "q\n")]})
    try:
        out = {}
        for cmd, comment in board_steps + ring_steps:
            proc = sh.run(cmd, comment)
            if proc is not None and hasattr(proc, "stdout") and isinstance(proc.stdout, str):
                out.setdefault(" ".join((ring_words(cmd) or [cmd])[:2]), []).append(proc.stdout)
    finally:
        sh.close()
        print("\n".join("%5.1fs exit %d  %s" % (t, rc, c) for c, rc, t in sh.log))
    # Provision made a key the board and the host share; deploy reset the running board onto
    # the new image and confirmed its hash; the doctor found the board from --flash-dir.
    assert "provisioned device SIM" in out["device provision"][0]
    assert re.search(r"board runs image [0-9a-f]{16}", out["device deploy"][-1])
    assert re.search(r"link up on \S*ringsim-by-id-\d+/SIM", out["link status"][0])
    assert out["vision train"][0].startswith("saved the face model coins.model\n"
                                              "The two faces separate well")
    no_camera, full = out["doctor --flash-dir"]
    assert no_camera.rstrip().endswith("NOT ready for play (not checked: camera)")
    assert "OK    image vs build         board runs the current build" in full
    assert "from the ring calibration, 395 mm ring" in full
    assert re.search(r"-> ready( \(read the warnings above\))?$", full.rstrip()), full
    assert "0 FAIL, 0 skipped" in full
    # ring run found the device id and key itself, took the config's log, and quit on q.
    run = out["run --flash-dir"][0]
    assert "link up: firmware" in run and "audit log %s/audit.db" % tmp_path in run
    # The doctor recorded what it acknowledged into the config's log, as `ring run` does.
    from ringctl.record.log import AuditLog
    with AuditLog(str(tmp_path / "audit.db")) as log:
        assert any(r.data.get("by") == "ring doctor" for r in log.records("event"))


def _steps(cmds):
    """The commissioning steps a block performs, in its order."""
    names = []
    for cmd, _ in cmds:
        words = ring_words(cmd) or cmd.split()
        if cmd.startswith("make deploy"):
            names.append("device deploy")
        elif words[:1] in (["device"], ["vision"], ["link"]):
            names.append(" ".join(words[:2]))
        elif words[:1] in (["doctor"], ["run"]):
            names.append(words[0])
        elif words[:1] == ["cp"]:
            names.append("config")
    return [n for i, n in enumerate(names) if i == 0 or names[i - 1] != n]


def test_real_board_and_sim_blocks_take_the_same_steps_in_the_same_order():
    real = _steps(_block("README.md", "Building and commissioning", 0))
    sim = _steps(_block("hardware/README.md", "The simulated board")
                 + _block("README.md", "Building and commissioning", 1))
    order = ["device provision", "device deploy", "link status", "vision calibrate",
             "vision train", "config", "doctor", "run"]
    assert [s for s in real if s in order] == order, real
    assert [s for s in sim if s in order and s != "doctor"][:len(order) - 1] == \
        [s for s in order if s != "doctor"], sim
    assert sim.index("device provision") < sim.index("device deploy") < sim.index("doctor")


def test_provision_comes_before_deploy_in_every_doc():
    # Deploy confirms the new image over the authenticated link: the key must be there first.
    for doc in ("README.md", "hardware/README.md", "hardware/INSTALL.md",
                "hardware/MICROPYTHON.md"):
        text = (ROOT / doc).read_text()
        p = text.find("ring device provision")
        d = min(i for i in (text.find("ring device deploy"), text.find("make deploy")) if i >= 0)
        assert 0 <= p < d, f"{doc}: deploy is documented before provision"


INLINE = re.compile(r"`((?:\.venv/bin/)?ring [^`]+)`")


def _documented_ring_commands():
    for doc in DOCS:
        text = (ROOT / doc).read_text()
        found = {m.group(1) for m in INLINE.finditer(text)}
        for _, block in section_blocks(ROOT / doc):
            found |= {c for c, _ in commands(block) if ring_words(c) is not None}
        for cmd in sorted(found):
            yield doc, cmd


@pytest.mark.parametrize("doc,cmd", list(_documented_ring_commands()))
def test_every_documented_ring_command_exists_with_its_options(doc, cmd):
    words = ring_words(cmd)
    # Placeholders (`ring device list | build`, `[--flash DIR]`, `…`) name a family of
    # commands: check the command and the options that are spelled out.
    words = [w for w in words if not re.search(r"[|\[\]…<>]|\.\.\.", w)]
    opts = [w for w in words if w.startswith("--")]
    head = []
    for w in words:
        if w.startswith("-"):
            break
        head.append(w)
    parser = build_parser(only=head[0] if head else None)
    sub = parser
    for w in head:
        actions = [a for a in sub._actions if hasattr(a, "choices") and isinstance(a.choices, dict)]
        if not actions or w not in actions[0].choices:
            break
        sub = actions[0].choices[w]
    if head:
        assert sub is not parser, f"{doc}: `{cmd}`: no command '{head[0]}' in `ring --help`"
    if sub.prefix_chars != "-" or any(a.nargs == "..." for a in sub._actions):
        return                       # passes its options to another parser (build, sim board)
    known = {o for a in sub._actions for o in a.option_strings}
    unknown = [o.split("=")[0] for o in opts if o.split("=")[0] not in known]
    assert not unknown, f"{doc}: `{cmd}`: {unknown} not options of `ring {' '.join(head)}`"


def test_install_sends_the_live_tests_to_a_live_command():
    text = (ROOT / "hardware/INSTALL.md").read_text()
    assert "`ring link dump` running" not in text and "running `ring link dump`" not in text
    assert text.count("`ring link monitor` running") >= 2


def test_sim_md_python_example_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("RING_HOME", str(tmp_path / "home"))
    text = (ROOT / "firmware/SIM.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    code = code.replace("b.kill(); b.restart()", "b.kill(); b.restart(); tty, pts = b.tty, b.pts; b.stop()")
    import os
    scope = {"flash_dir": tmp_path / "flash", "key": os.urandom(32)}
    exec(compile(code, "firmware/SIM.md", "exec"), scope)
    b = scope["b"]
    assert scope["tty"].endswith("ringsim-by-id-%d/%s" % (os.getuid(), b.device_id))
    assert b.device_id.startswith("SIM") and scope["pts"].startswith("/dev/pts/")
    assert not os.path.lexists(scope["tty"])        # gone with its board
