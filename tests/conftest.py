"""Collects firmware tests (tests/firmware/mp_test_*.py) and runs them under `micropython`.

Each `def test_*` in such a file becomes a pytest item; the file is run once under the
real unix-port binary and every item reports its own line, so a failing firmware test
fails `make test` like any other.
"""
import os
import re
import sys
from pathlib import Path

# One OpenBLAS thread in the run and its children (workers, `ring` processes), unless the shell
# says otherwise: set before anything imports numpy. The LAPACK calls the tests make are small
# (faceid.shading_basis' lstsq: a k x 3 design, one column per pixel of a coin patch), and with a
# thread per core each call woke, then spun, a second thread, while `make test`'s other worker held
# that core: test_print_search took 79 s of CPU serially, 57-60 s with one thread. The results are
# the same bit for bit (the face models, calibrations and verdicts of five sets compared, forty-
# eighth session); only the CPU spent differs.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))

# Bytecode caches on for the run and its children, whatever the shell says: with
# PYTHONDONTWRITEBYTECODE set, pytest rewrites (recompiles) every test module's asserts on every
# run (~10 s of collection) and every `ring` child process compiles the ringctl modules it
# imports again. The .pyc files go to __pycache__/ (git-ignored); nothing a test checks.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
from mprun import run_mp  # noqa: E402
from hypothesis import settings  # noqa: E402

# No Hypothesis deadline (200 ms an example by default) in any test; most already say
# deadline=None. What they check is the property, not an example's speed, and on two workers
# (and whatever else the machine runs) an example may wait for a core.
settings.register_profile("ring", deadline=None)
settings.load_profile("ring")

_results = {}


def _run_file(path):
    if path not in _results:
        proc = run_mp(path, timeout=300)
        lines = {}
        for line in proc.stdout.splitlines():
            parts = line.split(" ", 3)
            if len(parts) >= 3 and parts[0] == "MPTEST" and parts[1] in ("ok", "fail", "skip"):
                lines[parts[2]] = (parts[1], parts[3] if len(parts) > 3 else "")
        _results[path] = (proc, lines)
    return _results[path]


class MPFile(pytest.File):
    def collect(self):
        for name in re.findall(r"^def (test_\w+)\(", self.path.read_text(), re.M):
            yield MPItem.from_parent(self, name=name)


class MPItem(pytest.Item):
    def runtest(self):
        proc, lines = _run_file(self.path)
        status, msg = lines.get(self.name, (None, ""))
        if status == "skip":
            pytest.skip(msg)
        if status != "ok":
            tail = (proc.stdout[-3000:] + "\n" + proc.stderr[-3000:]).strip()
            raise MPFailure(f"{self.name}: {msg or 'did not report (crash?)'}\n{tail}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, MPFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"[micropython] {self.name}"


class MPFailure(Exception):
    pass


def _is_mp_test(path):
    return path.name.startswith("mp_test_") and path.suffix == ".py"


def pytest_collect_file(parent, file_path):
    # A file named on the command line is collected by the python plugin, which asks
    # pytest_pycollect_makemodule below: don't collect it twice.
    if _is_mp_test(file_path) and not parent.session.isinitpath(file_path):
        return MPFile.from_parent(parent, path=file_path)


def pytest_pycollect_makemodule(module_path, parent):
    # Never import a firmware test under CPython: it runs under micropython.
    if _is_mp_test(module_path):
        return MPFile.from_parent(parent, path=module_path)


@pytest.fixture(scope="session")
def site2():
    """A simulated two-camera site (1.2 m ring, 44 px coins), calibrated with the sheet and
    trained once, for the multi-camera tests (vision, runner)."""
    from ringctl.sim.restbench import Site
    return Site(ring_mm=1200.0, cameras=2, coin_px=44.0, seed=3)



# --- Two workers (pytest-xdist: `-n 2 --dist loadfile` in pyproject.toml) ------------------------
# The scheduler below hands out groups; a group runs whole on one worker, in file order. By
# default a group is one module (as --dist loadfile: its module fixtures are made once, its tests
# keep their order -- test_browser's scenarios build on each other --, a firmware file's items
# share its one micropython run). Modules that share an in-process session cache are one group,
# so one worker makes the cache and the other never needs it. Which files share what was
# measured (one run recording every cache miss and hit by file).
# (Not xdist_group marks with --dist loadgroup: xdist 3.8 sets them through the node id, which
# pytest 9.2 no longer lets it change, so they silently group nothing; pytest-xdist #1386.)
SOLO = "solo"
GROUPS = {
    # tests/vision/vcache.py's held-out face models and calibrated scenes: test_printed_edge
    # reuses test_own_texture's scenes and model and one of test_judge_evidence's models (~28 s
    # of CPU), test_judge_evidence one of test_heldout_sets' (~5 s), when the tests that make them
    # run (some are `make soak` only since the twenty-fourth session: then the next asker makes
    # them). test_ring_training's ring photos are used in no other file. Since the forty-eighth
    # session one group with what was the "edge-tune" group below and test_print_search and
    # test_shade: they train the same edge-tune, edge-1080p, edge-4k and tune-1080p models (the
    # thirty-eighth session's record and a partial one of the forty-eighth: test_judge_evidence's
    # models trained again by test_shadow, test_balance and test_drift, test_printed_edge's by
    # test_shadow, when the two groups ran on different workers). ~290 s of the ~1310 s of test
    # time of a two-worker run: started first, it leaves the other worker the rest to balance.
    "edge": ("vision/test_judge_evidence.py", "vision/test_own_texture.py",
             "vision/test_printed_edge.py", "vision/test_heldout_sets.py",
             "vision/test_balance.py", "vision/test_drift.py", "vision/test_tilted_nearly_round.py",
             "vision/test_shadow.py", "vision/test_inner_rim.py",
             "vision/test_print_search.py", "vision/test_shade.py"),
    # the two-camera `site2` fixture (calibrated and trained: ~7 s), and test_chips, whose vcache
    # held-out models test_views and test_coin_measures reuse (sealed-19's: ~15 s)
    "site2": ("vision/test_views.py", "vision/test_rest.py", "runner/test_rigwatch.py",
              "vision/test_chips.py", "vision/test_coin_measures.py", "sim/test_rig_bench.py"),
    # more vcache held-out models used by several files (thirty-eighth session, every cache miss
    # and hit recorded by file): sealed-23's (~12 s) and sealed-22's (~6 s), and sealed-48's
    # (~10 s: test_away_size and test_face_lamp, forty-fifth session) ...
    "sealed-23": ("vision/test_chip_in_ring_wrong_calls.py", "vision/test_chip_rim_rows.py",
                  "vision/test_away_size.py", "vision/test_face_lamp.py"),
    # ... sealed-32's (~10 s; test_dented_outline also trains sealed-51's, used by no other file) ...
    "sealed-32": ("vision/test_dented_outline.py", "vision/test_uncrossed_rays.py"),
    # tests/commissioned.py's site commissioning (~12 s), shared by these DemoSessions; they
    # also play in real time, so this run never has two of them at once
    "commissioned": ("e2e/test_demo_e2e.py", "e2e/test_witness_e2e.py",
                     "console/test_browser.py"),
    # SOLO: tests whose point is a tight wall-clock bound that a busy second core can break
    # (a command answered on arrival, median round trip < 20 ms: failed 1 in 10 beside two busy
    # processes; the board bars within 100 ms of the beam's crossing; the sensor feeder < 50 ms
    # late; two cameras' frames of one moment at most one apart; a 50 fps source's pace). They
    # run last, on one worker, once the other has finished: as in a serial run. ~5 s.
    SOLO: ("firmware/test_link_served_on_arrival.py", "sim/test_board_feed.py",
           "sim/test_sensors.py", "vision/test_paired.py", "sim/test_hdcamera.py"),
}
_GROUP_OF = {"tests/" + f: g for g, files in GROUPS.items() for f in files}

# Rough seconds of the groups (the forty-seventh session's `make test --durations=0`, two workers on
# a shared machine, summed by group; groups under 5 s left out): the scheduler hands out the heaviest
# group left first, so no long group starts last while the other worker idles. Only the order
# depends on them; an unlisted group counts a tenth of a second per test (test_band_settle's 12
# tests, among the heaviest files, would count 1.2 s and start among the last).
SECONDS = {"edge": 293, "site2": 77, "sealed-23": 76, "commissioned": 75,
           "tests/vision/test_band_settle.py": 68, "tests/vision/test_training.py": 45,
           "tests/vision/test_face_relit.py": 38, "tests/console/test_serve.py": 38,
           "tests/vision/test_camera_marks.py": 35, "tests/vision/test_ring_printed_circle.py": 29,
           "tests/vision/test_judge.py": 24, "tests/cli/test_bad_inputs.py": 23,
           "tests/docs/test_doc_sequences.py": 22, "tests/vision/test_lens.py": 21,
           "tests/vision/test_ring_training.py": 21, "tests/vision/test_training_empty.py": 20,
           "tests/runner/test_ring_run_camera.py": 18, "tests/vision/test_rest_replay.py": 18,
           "tests/vision/test_ring_artwork.py": 18, "tests/sim/test_camera.py": 15,
           "sealed-32": 30, "tests/sim/test_simboard.py": 12,
           "tests/vision/test_training_clipped.py": 12, "tests/sim/test_camera_drift_bench.py": 11,
           "tests/vision/test_face_light.py": 11, "tests/vision/test_ring_wall.py": 11,
           "tests/vision/test_train_verdict.py": 11, "tests/vision/test_faceid.py": 11,
           "tests/sim/test_fastrender.py": 11, "tests/vision/test_ring_full_res.py": 11,
           "tests/vision/test_outside_objects.py": 10, "tests/vision/test_ring_wall_colour.py": 10,
           "tests/runner/test_one_camera.py": 10, "tests/console/test_http.py": 9,
           "tests/sim/test_training_bench.py": 9, "tests/record/test_record_robust.py": 8,
           "tests/sim/test_heldout.py": 7, "tests/runner/test_ring_run_port.py": 7,
           "tests/runner/test_ring_run.py": 7, "tests/link/test_pty_link.py": 6,
           "tests/sim/test_calib_bench.py": 6, "tests/runner/test_host.py": 6,
           "tests/vision/test_training_leave_out.py": 6, "tests/link/test_link_spec_client.py": 6,
           "tests/firmware/test_link_stall.py": 6, "tests/board/test_firmware_bench.py": 5,
           "tests/vision/test_calibrate_narrow_wall.py": 5}


def group_of(nodeid):
    """The group a test runs in: its module's, or the shared cache's of GROUPS."""
    module = nodeid.split("::", 1)[0]
    return _GROUP_OF.get(module, module)


def pytest_xdist_make_scheduler(config, log):
    if config.getoption("dist") not in ("loadfile", "loadgroup"):
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return group_of(nodeid)

        def _assign_work_unit(self, node):
            # the heaviest group left first; SOLO only through _reschedule
            rest = [g for g in self.workqueue if g != SOLO]
            if not rest:
                return
            heaviest = max(rest, key=lambda g: SECONDS.get(g, 0.1 * len(self.workqueue[g])))
            self.workqueue.move_to_end(heaviest, last=False)
            super()._assign_work_unit(node)

        def _reschedule(self, node):
            if node.shutting_down or list(self.workqueue) != [SOLO]:
                return super()._reschedule(node)
            # Only SOLO is left. A worker holds its last test until it gets more work or is
            # told to stop, so: once every worker is out of work, all but this one stop; when
            # they have finished (remove_node), this one, the last, runs SOLO alone.
            if self._pending_of(self.assigned_work[node]) > 2:
                return
            if len(self.assigned_work) == 1:
                super()._assign_work_unit(node)
                return
            alive = [n for n in self.assigned_work if not n.shutting_down]
            if all(self._pending_of(self.assigned_work[n]) <= 2 for n in alive):
                for n in alive:
                    if n is not node:
                        n.shutdown()

        def remove_node(self, node):
            crashed = super().remove_node(node)
            for n in list(self.assigned_work):
                self._reschedule(n)
            return crashed

    return Groups(config, log)
