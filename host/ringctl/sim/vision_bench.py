"""`ring bench vision [--json]`: per scene set, the confusion per scene kind, the called / flagged
fractions, wrong calls (a voided valid spin counts as wrong) and classify ms, all on one core;
plus still-frame adjudication and motion-check ms at 1920x1080 and 3840x2160.

Sets: `tuning-960` is the tuning generator's own held-out seed range (scenes.HELDOUT_SEEDS);
the others come from the independent generator `ringctl.sim.heldout` (its SETS: `tune-*`,
`check-*`, `edge-*`, and `sealed-1` to `sealed-56`: each sealed set was made with fresh
entropy, never looked at while tuning, run once by the lead on the final code of its day, and
then opened (docs/VISION.md); a new sealed set needs fresh entropy). Face models: `--train site` (default) trains one per
set from its training site's photos of one coin, used in every scene's ring under other lights
(the harder test); `--train ring` trains each scene's ring from 12 photos per face taken in it
under its own lights, a clock-hour turn apart (the technician's procedure, hardware/INSTALL.md).
"""
import collections
import json
import os
import sys
import time

import cv2
import numpy as np

from ..errors import UserError
from ..vision import faceid, judge, rest, ring as ringmod
from . import benchrun, heldout, render, scenes
from ..cliutil import OneLineParser

RING_PHOTOS = faceid.RECOMMENDED_PHOTOS   # photos per face when each scene's ring trains its own model (--train ring)
TRAIN_SITE_SEED = 3    # the "site" whose photos train the face model (a training seed)
CALLS = ("heads", "tails", "odds")
DEFAULT_SETS = ("tuning-960", "tune-1080p", "tune-4k", "check-1080p", "check-4k", "sealed-2")
# not in the defaults: run by name (`--sets sealed-5:80,tune-light:100`)
OTHER_SETS = tuple(n for n in heldout.SETS if n not in DEFAULT_SETS)


def face_model(size=(960, 720), n=10):
    """Face model trained from rendered photos of one coin lying flat (training seeds only)."""
    base = scenes.base_spec(TRAIN_SITE_SEED, size, conditions=False)
    empty, _ = render.render_scene(scenes.empty(base), np.random.default_rng(0))
    rm = ringmod.calibrate(empty, ring_mm=scenes.ring_mm(base))
    imgs = {}
    for face in ("heads", "tails"):
        imgs[face] = [render.render_scene(sp, np.random.default_rng(i))[0]
                      for i, sp in enumerate(scenes.training_specs(TRAIN_SITE_SEED, face, n, size))]
    return faceid.train(imgs["heads"], imgs["tails"], rm)


def site(spec, seed=0):
    """Calibrate on the empty version of a scene's ring (what the technician does on site)."""
    empty, _ = render.render_scene(scenes.empty(spec), np.random.default_rng([seed, 99]))
    return ringmod.calibrate(empty, ring_mm=scenes.ring_mm(spec))


def score(result, expect):
    """One verdict against the expected result -> 'right' | 'unsure' | 'voided' | 'wrong'.

    'wrong' is a heads/tails/odds that is not the truth (a paid wrong call); 'voided' is a
    no-spin without the evidence for one (a valid spin, or a scene where the camera cannot
    know): a wrong call too. 'unsure' leaves the call to the boxer."""
    if result == expect:
        return "right"
    if result == "unsure":
        return "unsure"
    if result == "no-spin":
        return "voided"
    return "wrong"


class Tally:
    """Confusion per scene kind (expected -> result counts) and the summary figures."""

    def __init__(self):
        self.kinds = collections.defaultdict(collections.Counter)
        self.scores = collections.Counter()
        self.valid = self.valid_called = self.invalid = self.invalid_flagged = self.invalid_nospin = 0
        self.calibration_failed = self.training_failed = 0
        self.exposure_lowered = 0   # rings (or the training site) whose exposure was lowered: the coin clipped
        self.settled_by_coins = 0   # rings calibrated beside a band, settled at training (faceid.settle)
        self.calibration_off_px = []   # per calibrated ring: its axes' largest error, px
        self.ms = []
        # (seed, kind, expected, result, reasons) of every non-right verdict, and of every ring
        # refused at calibration or training (expected "calibration failed" | "training failed",
        # result None, reasons [the refusal])
        self.misses = []

    def add(self, seed, kind, expect, v):
        s = score(v["result"], expect)
        self.kinds[kind][f"{expect}->{v['result']}"] += 1
        self.scores[s] += 1
        self.ms.append(v["ms"])
        if expect in CALLS:
            self.valid += 1
            self.valid_called += v["result"] != "unsure"
        elif expect == "no-spin":
            self.invalid += 1
            self.invalid_flagged += v["result"] in ("no-spin", "unsure")
            self.invalid_nospin += v["result"] == "no-spin"
        if s != "right":
            self.misses.append((seed, kind, expect, v["result"], v["reasons"]))

    def calibrated(self, spec, rm):
        """How far the calibrated ring is from the generator's own (the layout's edge)."""
        a = spec["ring"]["radius"]
        b = a * (spec["ring"].get("ellipse") or {"ratio": 1.0})["ratio"]
        self.calibration_off_px.append(max(abs(rm.axes[0] - a), abs(rm.axes[1] - b)))

    def training_failure(self, seed, kind, why):
        self.training_failed += 1
        self.kinds[kind]["training-failed"] += 1
        self.misses.append((seed, kind, "training failed", None, [why]))

    def calibration_failure(self, seed, kind, why):
        self.calibration_failed += 1
        self.kinds[kind]["calibration-failed"] += 1
        self.misses.append((seed, kind, "calibration failed", None, [why]))

    def summary(self):
        q = lambda p: round(float(np.percentile(self.ms, p)), 2) if self.ms else None  # noqa: E731
        return {"scenes": sum(self.scores.values()), "right": self.scores["right"],
                "wrong": self.scores["wrong"], "voided": self.scores["voided"],
                "wrong_including_voided": self.scores["wrong"] + self.scores["voided"],
                "unsure": self.scores["unsure"], "calibration_failed": self.calibration_failed,
                "training_failed": self.training_failed, "exposure_lowered": self.exposure_lowered,
                "calibration_settled_by_coins": self.settled_by_coins,
                # rings calibrated more than 3 px off the truth (e.g. on the wall's outer edge)
                "calibration_off_3px": sum(e > 3.0 for e in self.calibration_off_px),
                "calibration_off_px_max": round(max(self.calibration_off_px), 2)
                if self.calibration_off_px else None,
                "valid": self.valid, "valid_called": self.valid_called,
                "called_fraction_of_valid": round(self.valid_called / max(1, self.valid), 4),
                "invalid": self.invalid, "invalid_flagged": self.invalid_flagged,
                "flagged_fraction_of_invalid": round(self.invalid_flagged / max(1, self.invalid), 4),
                "no_spin_fraction_of_invalid": round(self.invalid_nospin / max(1, self.invalid), 4),
                "classify_ms_median": q(50), "classify_ms_p99": q(99),
                "per_kind": {k: dict(sorted(c.items())) for k, c in sorted(self.kinds.items())}}


def evaluate(seeds, model, size=(960, 720), kind=None):
    """The tuning generator's scenes (`scenes.make`) -> Tally."""
    t = Tally()
    for seed in seeds:
        spec = scenes.make(seed, kind, size)
        try:
            rm = site(spec, seed)
        except UserError as exc:   # the technician would be told at calibration: no frame is judged
            t.calibration_failure(seed, spec["kind"], str(exc))
            continue
        img, truth = render.render_scene(spec, np.random.default_rng([seed, 1]))
        v = judge.classify(img, rm, model)
        expect = "unsure" if spec["kind"] == "one" else truth["result"]   # no void without evidence
        t.add(seed, spec["kind"], expect, v)
    return t


# the camera's exposure the technician tries in turn while training refuses a photo whose coin is
# at the camera's limit (faceid.CLIPPED; hardware/INSTALL.md): each about a sixth lower
EXPOSURES = (1.0, 0.85, 0.72, 0.61)


def exposed_training(train_at):
    """(face model, exposure): `train_at(exposure, refused)` (faceid.train's result at that
    exposure, `refused` getting the photos left out) at the first of EXPOSURES where no photo is
    refused for a coin at the camera's limit (at the last, whatever it gives)."""
    for k in EXPOSURES:
        refused = []
        try:
            model = train_at(k, refused)
        except faceid.TrainingPhotoError as exc:
            if not exc.clipped or k == EXPOSURES[-1]:
                raise
            continue
        if k == EXPOSURES[-1] or not any(e.clipped for e in refused):
            return model, k


def site_model(cfg, n=10, seed=0):
    """(the training site's spec as photographed, its face model, the exposure): a set's site
    trained from its photos of one coin lying flat, the exposure lowered while the coin clips
    (`exposed_training`)."""
    got = {}

    def train_at(k, refused):
        imgs = {}
        for face in ("heads", "tails"):
            got["site"], imgs[face] = heldout.training_frames(cfg, face, n, seed=seed, exposure=k)
        rm = ringmod.calibrate(heldout.empty_frame(got["site"], seed), ring_mm=heldout.ring_mm(got["site"]))
        return faceid.train(imgs["heads"], imgs["tails"], rm, refused=refused)
    model, k = exposed_training(train_at)
    return got["site"], model, k


def heldout_model(cfg, n=10):
    """A set's face model, trained from its own site's photos of one coin lying flat."""
    return site_model(cfg, n)[1]


def ring_model(spec, seed, rm, n=RING_PHOTOS, frames=heldout.ring_training_frames, empty=None, refused=None):
    """The face model a scene's own ring is trained to: `n` photos per face of one coin in that
    ring under its lights, turned and moved between photos (`frames`: heldout.ring_training_frames
    or the same photos kept), with the calibration's photo of the empty ring (`empty`; default
    the one `heldout.empty_frame` renders), as `ring vision train --empty` takes it (`refused`:
    faceid.train's, the photos left out)."""
    return ring_trained(spec, seed, rm, n, frames, empty, refused)[1]


def ring_trained(spec, seed, rm, n=RING_PHOTOS, frames=heldout.ring_training_frames, empty=None, refused=None):
    """(ring, face model) as `ring vision train` leaves them (ring_model): a ring calibrated
    beside a band (`rm.unsettled`) settled first by the coins' size in the same photos
    (faceid.settle)."""
    imgs = {face: frames(spec, seed, face, n) for face in ("heads", "tails")}
    if empty is None:
        empty = heldout.empty_frame(spec, seed)
    rm, _ = faceid.settle(rm, imgs["heads"], imgs["tails"], empty=empty)
    return rm, faceid.train(imgs["heads"], imgs["tails"], rm, empty=empty, refused=refused)


def exposed_ring(spec, seed, rm, img):
    """(spec, calibrated ring, play frame, face model) of a scene's ring trained as the technician
    trains it: at its own exposure, or a lower one while the coin clips (`exposed_training`), the
    ring then calibrated again and its play photographed at that exposure too."""
    got = {}

    def train_at(k, refused):
        sp = heldout.exposed(spec, k)
        r = rm if k == 1.0 else ringmod.calibrate(heldout.empty_frame(sp, seed), ring_mm=heldout.ring_mm(sp),
                                                  unsettled_ok=True)
        r, model = ring_trained(sp, seed, r, refused=refused)
        got.update(spec=sp, rm=r)
        return model
    model, k = exposed_training(train_at)
    return got["spec"], got["rm"], img if k == 1.0 else heldout.render_frame(got["spec"], seed), model


def heldout_scenes(cfg, n, tally=None, specs=False, kind=None, unsettled_ok=False):
    """(seed, kind, expected, RingModel or None, frame[, spec]) for `n` scenes of a heldout set
    (all of `kind` if given, else each of its own); each calibration's error against the
    generator's ring goes to `tally`, and each ring refused at calibration (RingModel None) with
    its reason. `unsettled_ok`: a ring calibrated beside a band comes unsettled (ring.calibrate),
    for training in it to settle (its error is the caller's to tally then)."""
    for seed in heldout.set_seeds(cfg, n):
        spec, expect = heldout.make(seed, kind, cfg)
        try:
            rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec),
                                   unsettled_ok=unsettled_ok)
        except UserError as exc:
            rm = None
            if tally is not None:
                tally.calibration_failure(seed, spec["kind"], str(exc))
        if rm is not None and not rm.unsettled and tally is not None:
            tally.calibrated(spec, rm)
        img = heldout.render_frame(spec, seed) if rm else None
        yield (seed, spec["kind"], expect, rm, img) + ((spec,) if specs else ())


def evaluate_set(name, n, train="site", kind=None):
    """Tally of `n` scenes of a named set (DEFAULT_SETS). `train`: "site" = one face model for the
    whole set, trained at the set's own training site (every scene is another ring under other
    lights: a harder test than a casino's); "ring" = each scene's ring trains its own model under
    its own lights (hardware/INSTALL.md's procedure; not for tuning-960). `kind`: every scene of
    that kind (heldout.FORCED_KINDS), each seed's scene made so."""
    if name == "tuning-960":
        return evaluate(scenes.HELDOUT_SEEDS[:n], face_model())
    if name not in heldout.SETS:
        raise UserError(f"unknown scene set {name!r}; one of {', '.join(DEFAULT_SETS + OTHER_SETS)}")
    cfg = heldout.SETS[name]
    t = Tally()
    model = None
    if train == "site":
        try:
            _, model, k = site_model(cfg)
        except UserError as exc:   # the site's technician is told at training: no frame is judged
            for seed in heldout.set_seeds(cfg, n):
                t.training_failure(seed, heldout.make(seed, kind, cfg)[0]["kind"], str(exc))
            return t
        t.exposure_lowered = int(k != 1.0)
    for seed, got, expect, rm, img, spec in heldout_scenes(cfg, n, t, specs=True, kind=kind,
                                                           unsettled_ok=train == "ring"):
        if rm is None:   # refused at calibration (in the tally): no frame is judged
            continue
        if train == "ring":
            try:
                spec2, rm2, img2, model = exposed_ring(spec, seed, rm, img)
            except UserError as exc:   # the technician is told at training: no frame is judged
                if rm.unsettled and str(exc).startswith(rm.unsettled):   # the band stays unsettled
                    t.calibration_failure(seed, got, str(exc))
                else:
                    t.training_failure(seed, got, str(exc))
                continue
            t.exposure_lowered += img2 is not img
            # settled at training by the coins' size (at this exposure, or at a lower one the ring
            # was calibrated again at): the settled ring's own warning says so
            t.settled_by_coins += any(w.startswith(ringmod.SETTLED) for w in rm2.warnings)
            if rm.unsettled:   # its error counted now
                t.calibrated(spec2, rm2)
            spec, rm, img = spec2, rm2, img2
        c0 = time.thread_time()
        v = judge.classify(img, rm, model)
        v["ms"] = round((time.thread_time() - c0) * 1000, 2)   # one core's CPU time
        t.add(seed, got, expect, v)
    return t


def _timed(fn, n):
    """(wall ms list, this thread's CPU ms list): CPU time is what one core spends, unaffected by
    other processes competing for the cores; wall time includes their interference."""
    wall, cpu = [], []
    for _ in range(n):
        w0, c0 = time.perf_counter(), time.thread_time()
        fn()
        cpu.append((time.thread_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return wall, cpu


def _timing(cfg, n, n_scenes=4):
    """ms per frame for classify (still-frame adjudication) and the live motion check (the
    stillness rule, `rest.StillnessWatch.update`, on a still frame: its costliest case, the
    full-resolution check around every object runs), over
    `n_scenes` valid spins with chips around from a heldout set at that resolution.

    `adjudicate_*` is the live path's cost: the frame's detection-scale copy was made by the
    motion check that found it still (the runner judges the frame it has just checked).
    `adjudicate_new_frame_*` makes that copy too, as for a frame nothing has looked at."""
    model = heldout_model(cfg, n=RING_PHOTOS)   # as many templates as the training procedure makes
    aw, ac, nc, mw, mcpu = [], [], [], [], []
    for seed in heldout.set_seeds(dict(cfg, stream=[7] + list(cfg["stream"])), n_scenes):
        spec, _ = heldout.make(seed, "valid", cfg)
        rm = ringmod.calibrate(heldout.empty_frame(spec, seed), ring_mm=heldout.ring_mm(spec))
        img = heldout.render_frame(spec, seed)
        judge.classify(img, rm, model)
        w, c = _timed(lambda: judge.classify(img, rm, model), max(1, n // n_scenes))
        aw += w
        ac += c

        def new_frame():
            rm._small_last = rm._region_last = None
            judge.classify(img, rm, model)
        nc += _timed(new_frame, max(1, n // n_scenes))[1]
        mc = rest.StillnessWatch(rm)
        frames = [img, cv2.add(img, 1)]
        mc.update(frames[0], 0.0)
        k = [0]

        def step():
            k[0] += 1
            mc.update(frames[k[0] % 2], k[0] / 30)
        w, c = _timed(step, max(1, 3 * n // n_scenes))
        mw += w
        mcpu += c
    q = lambda v, p: round(float(np.percentile(v, p)), 2)  # noqa: E731
    return {"adjudicate_ms_median": q(aw, 50), "adjudicate_ms_p99": q(aw, 99),
            "adjudicate_cpu_ms_median": q(ac, 50), "adjudicate_cpu_ms_p99": q(ac, 99),
            "adjudicate_new_frame_cpu_ms_median": q(nc, 50), "adjudicate_new_frame_cpu_ms_p99": q(nc, 99),
            "motion_ms_median": q(mw, 50), "motion_ms_p99": q(mw, 99),
            "motion_cpu_ms_median": q(mcpu, 50), "motion_cpu_ms_p99": q(mcpu, 99),
            "load_avg_1min": round(os.getloadavg()[0], 2)}   # other processes on the machine, when measured


TARGETS = {"wrong_including_voided": 0, "called_fraction_of_valid": 0.99, "flagged_fraction_of_invalid": 0.99,
           "adjudicate_cpu_ms_median_3840x2160": 8, "adjudicate_cpu_ms_median_1920x1080": 4,
           "motion_cpu_ms_median_1920x1080": 3}


def main(argv=None):
    p = OneLineParser(prog="ring bench vision", description=__doc__)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--sets", default=",".join(DEFAULT_SETS),
                   help=f"comma-separated scene sets, NAME or NAME:SCENES (default {','.join(DEFAULT_SETS)}; "
                        f"also {','.join(OTHER_SETS)})")
    p.add_argument("--scenes", type=int, default=100, help="scenes per set (default 100)")
    p.add_argument("--repeat", type=int, default=40, help="timed runs per resolution (over 4 scenes)")
    p.add_argument("--train", choices=("site", "ring"), default="site",
                   help="site: one face model per set, trained at the set's training site (default); ring: "
                        "each scene's ring trains its own model under its own lights (the technician's "
                        "procedure, hardware/INSTALL.md)")
    p.add_argument("--misses", action="store_true",
                   help="list every scene not called right, and every ring refused at calibration or "
                        "training, with why")
    p.add_argument("--kind", choices=heldout.FORCED_KINDS,
                   help="every scene of this kind (e.g. tilted: the invalid spins a rescued outline can "
                        "call flat; layout-chip: a chip in the ring of the layout's own colour; chip-beside: that chip "
                        "a little off a coin's rim), not each seed's own")
    args = p.parse_args(argv)
    sets = heldout.parse_sets(args.sets, args.scenes, check=False)   # tuning-960 is no heldout set
    if args.kind and any(name == "tuning-960" for name, _ in sets):
        raise UserError("--kind needs held-out sets (tuning-960's scenes are fixed); drop tuning-960 from --sets")
    _, out = benchrun.start(False, timing={}, sets={}, **({"kind": args.kind} if args.kind else {}))
    for name in ("tune-1080p", "tune-4k"):
        cfg = heldout.SETS[name]
        out["timing"]["x".join(map(str, cfg["size"]))] = _timing(cfg, args.repeat)
    out["two_4k_views"] = __import__("ringctl.sim.multiview_bench", fromlist=["timing"]).timing()  # issue 13
    ok = True
    for name, n in sets:
        t0 = time.perf_counter()
        tally = evaluate_set(name, n, "site" if name == "tuning-960" else args.train, args.kind)
        res = tally.summary()
        res["seconds"] = round(time.perf_counter() - t0, 1)
        if args.misses:
            res["misses"] = [list(m) for m in tally.misses]
        out["sets"][name] = res
        ok &= res["wrong_including_voided"] == 0
    out["targets"] = TARGETS
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {json.dumps(v, indent=1) if isinstance(v, dict) else v}")
    sys.stdout.flush()
    return 0 if ok else 1
