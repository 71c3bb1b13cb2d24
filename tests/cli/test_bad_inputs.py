"""No traceback anywhere: every `ring` command over bad inputs gives one line naming the problem
and the fix, a non-zero exit, and leaves nothing half-written.

The table covers every command `ring --help` lists (test_every_command_is_in_the_table keeps
it so): missing paths, folders where files belong, the wrong kind of file, a read-only file
system, a full one, plus the causes that were once misnamed.
"""
import json
import os
from pathlib import Path

import pytest

from ringctl import cli



def listing(folder):
    """Every file under folder (to prove nothing half-written was left)."""
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))


@pytest.fixture(scope="session")
def good(places, tmp_path_factory):
    """Valid inputs to pair with one bad one: a ring calibration, a face model, an image, a
    truncated JPEG, an audit log, a game script."""
    import cv2
    d = tmp_path_factory.mktemp("good")
    old = os.environ.get("RING_HOME")
    os.environ["RING_HOME"] = str(d / "home")
    try:
        assert cli.main(["sim", "scenes", "-o", str(d / "s"), "-n", "0"]) == 0
        assert cli.main(["vision", "calibrate", str(d / "s" / "empty.png"), "--ring-mm", "395",
                         "-o", str(d / "ring.json")]) == 0
        assert cli.main(["vision", "train", "--heads", str(d / "s" / "heads"), "--tails",
                         str(d / "s" / "tails"), "--ring", str(d / "ring.json"),
                         "-o", str(d / "model.json")]) == 0
    finally:
        if old is None:
            os.environ.pop("RING_HOME", None)
        else:
            os.environ["RING_HOME"] = old
    ok, jpg = cv2.imencode(".jpg", cv2.imread(str(d / "s" / "empty.png")))
    (d / "empty.jpg").write_bytes(jpg.tobytes())
    (d / "cut.jpg").write_bytes(jpg.tobytes()[: len(jpg) * 2 // 3])     # copy cut short
    png = (d / "s" / "empty.png").read_bytes()
    (d / "cut.png").write_bytes(png[: len(png) // 2])
    from ringctl.record.log import AuditLog
    with AuditLog(str(d / "audit.db")) as log:
        log.append("note", {"text": "a record that must survive"})
    (d / "game.jsonl").write_text(json.dumps({"op": "open"}) + "\n")
    return {k: str(d / v) for k, v in {
        "ring": "ring.json", "model": "model.json", "img": "s/empty.png", "cut_jpg": "cut.jpg",
        "cut_png": "cut.png", "db": "audit.db", "heads": "s/heads", "tails": "s/tails",
        "game": "game.jsonl", "jpg": "empty.jpg"}.items()}


# (id, argv, words the one line must hold, the folder that must stay empty or unchanged)
CASES = [
    # ---- vision -------------------------------------------------------------------------
    ("calibrate-missing", "vision calibrate {missing}.png -o {base}/r.json", ["no such image"], None),
    ("calibrate-dir", "vision calibrate {dir} -o {base}/r.json", ["is a folder"], None),
    ("calibrate-notes", "vision calibrate {notes} -o {base}/r.json", ["cannot read image", "PNG or JPEG"], None),
    ("calibrate-truncated-jpeg", "vision calibrate {cut_jpg} -o {base}/r.json", ["truncated", "copy it again"], None),
    ("calibrate-truncated-png", "vision calibrate {cut_png} -o {base}/r.json", ["truncated"], None),
    ("calibrate-out-missing-folder", "vision calibrate {img} -o {missing}/r.json", ["does not exist", "mkdir -p"], None),
    ("calibrate-out-dir", "vision calibrate {img} -o {dir}", ["is a folder"], "dir"),
    ("calibrate-out-ro", "vision calibrate {img} -o {ro}/r.json", ["read-only"], "ro"),
    ("calibrate-out-full", "vision calibrate {img} -o {full}/r.json", ["disk is full"], "full"),
    ("train-heads-missing", "vision train --heads {missing} --tails {tails} --ring {ring} -o {base}/m.json", ["no such folder"], None),
    ("train-heads-notes", "vision train --heads {notes} --tails {tails} --ring {ring} -o {base}/m.json", ["no such folder"], None),
    ("train-heads-empty", "vision train --heads {dir} --tails {tails} --ring {ring} -o {base}/m.json", ["no images"], None),
    ("train-ring-notes", "vision train --heads {heads} --tails {tails} --ring {notes} -o {base}/m.json", ["ring calibration", "ring vision calibrate"], None),
    ("train-ring-dir", "vision train --heads {heads} --tails {tails} --ring {dir} -o {base}/m.json", ["ring calibration"], None),
    ("train-out-ro", "vision train --heads {heads} --tails {tails} --ring {ring} -o {ro}/m.json", ["read-only"], "ro"),
    ("train-out-full", "vision train --heads {heads} --tails {tails} --ring {ring} -o {full}/m.json", ["disk is full"], "full"),
    ("classify-model-notes", "vision classify --ring {ring} --model {notes} {img}", ["not JSON", "ring vision train"], None),
    ("classify-ring-missing", "vision classify --ring {missing} --model {model} {img}", ["cannot read ring calibration"], None),
    ("confirm-ring-missing", "vision confirm-edge --ring {missing} --by T", ["cannot read ring calibration"], None),
    ("confirm-ring-notes", "vision confirm-edge --ring {notes} --by T", ["ring calibration", "ring vision calibrate"], None),
    ("confirm-not-settled", "vision confirm-edge --ring {ring} --by T", ["not settled by the coins' size", "nothing to confirm"], None),
    ("classify-image-truncated", "vision classify --ring {ring} --model {model} {cut_jpg}", ["truncated"], None),
    ("classify-image-dir", "vision classify --ring {ring} --model {model} {dir}", ["is a folder"], None),
    ("sheet-out-ro", "vision sheet -o {ro}/sheet.png", ["read-only"], "ro"),
    ("sheet-out-full", "vision sheet -o {full}/sheet.png", ["disk is full"], "full"),
    ("views-sheet-truncated", "vision calibrate-views --camera a {cut_jpg} {img} -o {base}/rig.json", ["truncated"], None),
    ("views-out-missing-folder", "vision calibrate-views --camera a {img} {img} -o {missing}/rig.json", ["does not exist"], None),
    ("classify-views-rig-notes", "vision classify-views --rig {notes} --model {model} {img}", ["rig"], None),
    # ---- sim ----------------------------------------------------------------------------
    ("scenes-out-ro", "sim scenes -o {ro}/s -n 1", ["read-only"], "ro"),
    ("scenes-out-full", "sim scenes -o {full}/s -n 1", ["disk is full"], "full"),
    ("scenes-out-file", "sim scenes -o {notes} -n 1", ["is a file"], None),
    ("frames-out-ro", "sim frames {ro}/f --still 0.1", ["read-only"], "ro"),
    ("frames-out-full", "sim frames {full}/f --still 0.1", ["disk is full"], "full"),
    ("frames-out-file", "sim frames {notes}", ["is a file"], None),
    ("rig-photos-out-file", "sim rig-photos {notes}", ["is a file"], None),
    ("rig-photos-out-ro", "sim rig-photos {ro}/p", ["read-only"], "ro"),
    ("rest-bench-bad", "sim rest-bench --cameras 3", ["invalid choice"], None),
    ("toss-feed-missing", "sim toss --feed {missing}.sock", ["cannot connect to sensor socket"], None),
    ("board-flash-file", "sim board --flash {notes}", ["is a file"], None),
    ("board-flash-ro", "sim board --flash {ro}/flash", ["read-only"], "ro"),
    ("board-flash-full", "sim board --flash {full}/flash", ["disk is full"], "full"),
    ("board-key-notes", "sim board --flash {base}/fl --key {notes}", ["not a 32-byte key"], None),
    ("sim-bench-bad", "sim bench --seeds x", ["--seeds"], None),
    # ---- device ---------------------------------------------------------------------------
    ("build-out-ro", "device build --out {ro}/b", ["read-only"], "ro"),
    ("build-out-full", "device build --out {full}/b", ["disk is full"], "full"),
    ("build-out-file", "device build --out {notes}", ["is a file"], None),
    ("deploy-build-missing", "device deploy --flash-dir {notes} --build-dir {missing}", ["no manifest.json", "ring device build"], None),
    ("deploy-build-notes", "device deploy --flash-dir {base}/f2 --build-dir {notes}", ["ring device build"], None),
    ("provision-flash-file", "device provision --flash-dir {notes} --witness-copy {base}/w.key", ["is a file"], None),
    ("provision-flash-ro", "device provision --flash-dir {ro}/flash --witness-copy {base}/w.key", ["read-only"], "ro"),
    ("provision-flash-full", "device provision --flash-dir {full}/flash --witness-copy {base}/w.key", ["disk is full"], "full"),
    ("pinmap-missing", "device pinmap check --pinmap {missing}.json", ["pin map", "not found"], None),
    ("pinmap-notes", "device pinmap check --pinmap {notes}", ["pin map", "not valid JSON"], None),
    ("pinmap-dir", "device pinmap check --pinmap {dir}", ["pin map", "is a folder"], None),
    ("witness-head-nonce", "device witness-head --port {missing} --nonce zz", ["--nonce"], None),
    ("list-extra", "device list --bogus", ["unrecognized arguments"], None),
    # ---- doctor ---------------------------------------------------------------------------
    ("doctor-log-notes", "doctor --log {notes} --port {missing}", ["--log", "not an audit log"], None),
    ("doctor-log-dir", "doctor --log {dir} --port {missing}", ["--log", "is a folder"], None),
    ("doctor-log-ro", "doctor --log {ro}/audit.db --port {missing}", ["audit log", "read-only"], "ro"),
    ("doctor-config-dir", "doctor --config {dir}", ["--config", "is a folder"], None),
    ("doctor-config-notes", "doctor --config {notes}", ["not valid JSON"], None),
    ("doctor-zone", "doctor --zone big", ["--zone"], None),
    ("doctor-flash-missing", "doctor --flash-dir {missing}", ["not a simulated board's flash dir"], None),
    ("doctor-build-missing", "doctor --build-dir {missing}", ["no manifest.json", "ring device build"], None),
    # ---- run ------------------------------------------------------------------------------
    ("run-config-dir", "run --port {missing} --config {dir}", ["--config", "is a folder"], None),
    ("run-config-notes", "run --port {missing} --config {notes}", ["not valid JSON"], None),
    ("run-key-notes", "run --port {pty} --key {notes}", ["key file", "not a 32-byte key"], None),
    ("run-log-notes", "run --port {pty} --key {good_key} --log {notes}", ["not an audit log"], None),
    ("run-log-dir", "run --port {pty} --key {good_key} --log {dir}", ["is a folder"], None),
    ("run-log-ro", "run --port {pty} --key {good_key} --log {ro}/audit.db", ["read-only"], "ro"),
    ("run-log-full", "run --port {pty} --key {good_key} --log {full}/audit.db", ["full"], "full"),
    ("run-flash-missing", "run --flash-dir {missing}", ["no simulated board is running"], None),
    # ---- demo -----------------------------------------------------------------------------
    ("demo-workdir-ro", "demo --workdir {ro}/w --spins 1", ["--workdir", "read-only"], "ro"),
    ("demo-workdir-full", "demo --workdir {full}/w --spins 1", ["--workdir", "disk is full"], "full"),
    ("demo-workdir-file", "demo --workdir {notes} --spins 1", ["--workdir", "is a file"], None),
    # ---- log ------------------------------------------------------------------------------
    ("log-verify-missing", "log verify --db {missing}.db", ["no audit log"], None),
    ("log-verify-notes", "log verify --db {notes}", ["not an audit log"], None),
    ("log-verify-dir", "log verify --db {dir}", ["is a folder"], None),
    ("log-show-notes", "log show --db {notes}", ["not an audit log"], None),
    ("log-export-ro", "log export --db {db} --format json -o {ro}/x.json", ["read-only"], "ro"),
    ("log-export-full", "log export --db {db} --format json -o {full}/x.json", ["disk is full"], "full"),
    ("log-export-dir", "log export --db {db} --format csv -o {dir}", ["is a folder"], "dir"),
    ("log-export-missing-folder", "log export --db {db} --format csv -o {missing}/x.csv", ["does not exist"], None),
    ("log-frames-notes", "log frames --db {notes} --spin 1 -o {base}/fr", ["not an audit log"], None),
    ("log-frames-out-ro", "log frames --db {db} --spin 1 -o {ro}/fr", ["spin 1"], "ro"),
    # ---- console --------------------------------------------------------------------------
    ("console-user-users-dir", "console user add bob --role boxer --users {dir} --log {base}/a.db", ["{dir}"], None),
    ("console-user-log-notes", "console user list --users {notes}", ["{notes}"], None),
    # ---- game -----------------------------------------------------------------------------
    ("replay-missing", "game replay {missing}.jsonl", ["cannot read", "game script"], None),
    ("replay-dir", "game replay {dir}", ["it is a folder", "JSON-lines"], None),
    ("replay-notes", "game replay {notes}", ["line 1"], None),
    # ---- link -----------------------------------------------------------------------------
    ("dump-missing", "link dump {missing}.bin", ["cannot read capture"], None),
    ("dump-dir", "link dump {dir}", ["cannot read capture"], None),
    ("dump-key-notes", "link dump {notes} --key {notes}", ["not a 32-byte key"], None),
    ("status-key-notes", "link status --port {missing} --key {notes}", ["not a 32-byte key"], None),
    ("status-flash-missing", "link status --flash-dir {missing}", ["no simulated board is running"], None),
    ("monitor-flash-missing", "link monitor --flash-dir {missing}", ["no simulated board is running"], None),
    ("send-flash-missing", "link send status --flash-dir {missing}", ["no simulated board is running"], None),
    ("ports-extra", "link ports --bogus", ["unrecognized arguments"], None),
    # ---- bench ----------------------------------------------------------------------------
    ("bench-unknown", "bench warp", ["invalid choice"], None),
]


@pytest.fixture
def run_ring(places, good, tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("RING_HOME", str(tmp_path / "home"))
    key = tmp_path / "good.key"
    key.write_bytes(os.urandom(32))
    os.chmod(key, 0o600)
    # A port that exists (a pty nobody answers on), so the key and log checks are reached.
    master, slave = os.openpty()
    subs = dict(places, **good, good_key=str(key), base=str(tmp_path), pty=os.ttyname(slave))

    def run(template):
        argv = [w.format(**subs) for w in template.split()]
        try:
            rc = cli.main(argv)
        except SystemExit as exc:          # argparse's own exit (one line, see cliutil)
            rc = exc.code
        out, err = capfd.readouterr()
        return rc, out, err
    yield run, subs
    os.close(master)
    os.close(slave)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_naming_problem_and_fix(case, run_ring, places):
    name, template, words, untouched = case
    run, subs = run_ring
    before = listing(places[untouched]) if untouched else None
    rc, out, err = run(template)
    lines = [l for l in err.splitlines() if l.strip()]
    assert rc not in (0, None), f"{name}: exit {rc}\n{out}\n{err}"
    assert "Traceback" not in err + out, err
    assert len(lines) == 1 and lines[0].startswith("ring"), f"{name}: not one line:\n{err}"
    for w in words:
        w = w.format(**subs)
        assert w in lines[0], f"{name}: '{w}' not in: {lines[0]}"
    assert "bug: please report" not in lines[0], lines[0]
    if untouched:
        assert listing(places[untouched]) == before, f"{name}: left files behind"


def test_nothing_recorded_is_lost(good, run_ring):
    from ringctl.record.log import AuditLog
    run, _ = run_ring
    for t in ("log export --db {db} --format json -o {full}/x.json",
              "run --port {pty} --key {notes} --log {db}",
              "doctor --log {db} --flash-dir {dir}"):
        rc, _, err = run(t)
        assert rc != 0 and "Traceback" not in err
    with AuditLog(good["db"], create=False) as log:
        assert [r.data["text"] for r in log.records("note")] == ["a record that must survive"]
        assert log.verify()["ok"]


def test_every_command_is_in_the_table():
    parser = cli.build_parser(only=None)
    groups = [a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)][0]
    covered = {tuple(c[1].split()[:2]) for c in CASES} | {(c[1].split()[0],) for c in CASES}
    missing = []
    for name in cli.GROUPS:
        sub = groups.choices[name]
        subs = [a for a in sub._actions if hasattr(a, "choices") and isinstance(a.choices, dict)]
        if subs:
            missing += [f"{name} {s}" for s in subs[0].choices if (name, s) not in covered]
        elif (name,) not in covered:
            missing.append(name)
    assert not missing, f"commands with no bad-input case: {missing}"


def test_an_unexpected_error_is_one_line_and_a_report_file(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("RING_HOME", str(tmp_path))
    from ringctl.game import cli as game_cli

    def boom(args):
        raise ZeroDivisionError("division by zero")
    monkeypatch.setattr(game_cli, "cmd_replay", boom, raising=False)
    parser_build = cli.build_parser

    def patched(only=None):
        p = parser_build(only)
        for a in p._actions:
            if hasattr(a, "choices") and isinstance(a.choices, dict) and "game" in a.choices:
                g = a.choices["game"]
                for b in g._actions:
                    if hasattr(b, "choices") and isinstance(b.choices, dict):
                        b.choices["replay"].set_defaults(func=boom)
        return p
    monkeypatch.setattr(cli, "build_parser", patched)
    rc = cli.main(["game", "replay", "x"])
    err = capfd.readouterr().err
    assert rc == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert "unexpected ZeroDivisionError: division by zero; this is a bug" in err
    report = Path(err.rsplit(" with ", 1)[1].strip())
    assert report.parent == tmp_path / "reports" and "Traceback" in report.read_text()
    assert "ring game replay x" in report.read_text()
