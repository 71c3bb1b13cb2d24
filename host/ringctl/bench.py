"""`ring bench AREA`: dispatch to each area's benchmark, which prints its figures as JSON."""
import argparse
import importlib

from .errors import UserError

AREAS = {
    "link": ("ringctl.link.bench", "link frames/s on both runtimes and round trip over a pty"),
    "firmware": ("ringctl.board.bench", "edge-to-light, edge-to-frame, loop time, heap peak"),
    "vision": ("ringctl.sim.vision_bench", "adjudication and motion-check ms; held-out accuracy"),
    "rig": ("ringctl.sim.rig_bench", "two or four cameras each over part of the ring: valid, third coin on the floor, coins outside"),
    "face-light": ("ringctl.sim.face_light_bench", "face models under lamps unlike their training: right/unsure/wrong"),
    "camera-drift": ("ringctl.sim.camera_drift_bench", "scenes judged after the camera moved, turned or drifted in colour since calibration"),
    "calibration": ("ringctl.sim.calib_bench", "ring calibration alone: refused, >3 px off, worst px"),
    "training": ("ringctl.sim.training_bench", "training photos in each ring: refused (why), accepted off the coin; --scale: boundaries moved, refused for the coins' size"),
    "sim": ("ringctl.sim.bench", "toss simulation speed and rest-time distribution"),
    "rules": ("ringctl.game.bench", "rules engine ops/s at 10k/100k/1M ops; worst chip rounding"),
    "log": ("ringctl.record.bench", "audit log: durable appends/s, verify s and peak MB per million"),
    "console": ("ringctl.sim.console_bench", "board latency in a browser, camera frames/s, viewer cost"),
}


def register(subparsers):
    p = subparsers.add_parser("bench", help="benchmarks that print figures as JSON",
                              description="Benchmarks. Each prints one JSON object with --json. "
                              "Areas: " + ", ".join(f"{k} ({v[1]})" for k, v in AREAS.items()))
    p.add_argument("area", choices=sorted(AREAS), help="what to measure")
    # REMAINDER: `ring bench link --json` hands --json to the area's own parser.
    p.add_argument("rest", nargs=argparse.REMAINDER, metavar="ARG",
                   help="options for that benchmark, e.g. --json")
    p.set_defaults(func=run)
    return p


def run(args):
    module, _ = AREAS[args.area]
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise UserError(f"benchmark '{args.area}' is not available ({exc})", code=1)
    return mod.main(list(args.rest))
