"""`ring sim`: the simulated board, one simulated toss, rendered camera frames and scenes, speed figures."""
import json
from pathlib import Path

from ..atomic import check_writable_dir, write_atomic
from ..cliutil import group_parser
from ..errors import UserError


def _write_png(path, img):
    """Encode in memory, then write whole: a full disk is one error, not a half-written PNG
    (cv2.imwrite only returns False, and libpng prints to stderr)."""
    import cv2
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise UserError(f"cannot encode {path} as PNG", code=1)
    write_atomic(path, buf.tobytes(), "output")


def register(subparsers):
    p, sub = group_parser(subparsers, "sim", "simulated board and ring")
    # prefix_chars no option uses: every argument, --help included, goes to the board's parser
    b = sub.add_parser("board", help="run the firmware under micropython as a simulated board",
                       add_help=False, prefix_chars="\x01")
    b.add_argument("rest", nargs="...", help="options for the board (see 'ring sim board --help')")
    b.set_defaults(func=run_board)

    t = sub.add_parser("toss", help="simulate one spin: ground truth and sensor timeline")
    _toss_args(t)
    t.add_argument("--json", action="store_true", help="one JSON object instead of text")
    t.add_argument("--timeline", action="store_true", help="also list every sensor event")
    t.add_argument("--feed", metavar="SOCKET", default=None,
                   help="then play the sensors in real time to a simulated board's sensor "
                        "socket (the path 'ring sim board' prints)")
    t.set_defaults(func=run_toss)

    f = sub.add_parser("frames", help="write rendered camera frames of a toss to a folder")
    _toss_args(f)
    f.add_argument("folder", help="output folder (created)")
    f.add_argument("--fps", type=float, default=10.0, help="frames per simulated second")
    f.add_argument("--coin-px", type=float, default=None,
                   help="coin diameter px on the layout (sizes the image); default: --size")
    f.add_argument("--size", default="960x960", help="WxH px when --coin-px is not given")
    f.add_argument("--noise", type=float, default=2.0, help="sensor noise sigma, grey levels")
    f.add_argument("--still", type=float, default=1.0, help="seconds of frames after rest")
    f.set_defaults(func=run_frames)

    s = sub.add_parser("scenes", help="write rendered ring scenes (empty ring, both faces, "
                       "spins with their truth) to try `ring vision` on")
    s.add_argument("-o", "--output", required=True, metavar="DIR")
    s.add_argument("--seed", type=int, default=1, help="first scene seed")
    s.add_argument("-n", type=int, default=6, help="scenes to write (default 6)")
    s.add_argument("--size", default="960x720", help="WIDTHxHEIGHT (default 960x720)")
    s.set_defaults(func=run_scenes)

    bn = sub.add_parser("bench", help="simulation speed and rest times as JSON",
                        add_help=False, prefix_chars="\x01")
    bn.add_argument("rest", nargs="...", help="--seeds N --ring-diameter M")
    bn.set_defaults(func=lambda a: __import__("ringctl.sim.bench", fromlist=["main"]).main(a.rest))
    rp = sub.add_parser("rig-photos", help="write every simulated camera's photos of the calibration "
                        "sheet and of the empty ring (to try 'ring vision calibrate-views')")
    rp.add_argument("folder", help="output folder (created)")
    rp.add_argument("--ring-mm", type=float, default=3000.0, help="ring inner diameter (default 3000)")
    rp.add_argument("--cameras", type=int, default=2, choices=(1, 2, 4))
    rp.add_argument("--coin-px", type=float, default=44.0, help="coin diameter px on the layout")
    rp.add_argument("--seed", type=int, default=0)
    rp.set_defaults(func=run_rig_photos)
    rb = sub.add_parser("rest-bench", help="result delay after the coins' true rest (JSON)",
                        add_help=False, prefix_chars="\x01")
    rb.add_argument("rest", nargs="...", help="--ring-mm MM --cameras N --tosses N --json")
    rb.set_defaults(func=lambda a: __import__("ringctl.sim.restbench", fromlist=["main"]).main(a.rest))
    return p


def _toss_args(p):
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--force", default=None,
                   choices=["outside", "wall", "stack", "lean", "low", "mat"],
                   help="provoke a case: coin out (7.3.1), wall strike (7.3.2), stacked or "
                        "leaning coin (7.3.4), low toss (7.1.2), spinner off the mat (7.3.3)")
    p.add_argument("--angle", type=float, default=None, help="direction of a forced coin, deg")
    p.add_argument("--ring-diameter", type=float, default=1.5, help="layout diameter, m")


def _simulate(args):
    from .geometry import RingGeometry
    from .physics import simulate_toss
    if not 0.4 <= args.ring_diameter <= 6:
        raise UserError("--ring-diameter must be between 0.4 and 6 m (the layout's inner diameter)")
    return simulate_toss(args.seed, ring=RingGeometry(layout_radius_m=args.ring_diameter / 2),
                         force=args.force, force_angle_deg=args.angle)


def run_board(args):
    from . import simboard
    return simboard.main(list(args.rest))


def run_toss(args):
    from .sensors import summary
    toss = _simulate(args)
    tl = toss.sensor_timeline
    tr = toss.truth
    if args.json:
        out = {"truth": tr, "sim_s": round(toss.duration_s, 3),
               "x_realtime": round(toss.speedup, 1), "sensors": summary(tl)}
        if args.timeline:
            out["timeline"] = tl
        print(json.dumps(out))
        return 0
    print(f"seed {args.seed}{' force ' + args.force if args.force else ''}: {tr['outcome']}"
          f"  rest {tr['rest_t']} s  first impact {tr['first_impact_t']} s"
          f"  ({toss.duration_s:.2f} s simulated, x{toss.speedup:.0f} real time)")
    for r in tr["reasons"]:
        print("  " + r)
    for i, c in enumerate(tr["coins"]):
        pos = ", ".join(f"{v:+.3f}" for v in c["xyz"])
        print(f"  coin {i}: {c['up_side']:5s} up  tilt {c['tilt_deg']:5.1f} deg  "
              f"{'flat' if c['flat'] else 'NOT flat'}  {'inside' if c['inside'] else 'OUTSIDE'}"
              f"  at ({pos}) m  apex {c['apex_m']:.2f} m"
              + (f"  on coin {c['on_top_of']}" if c["on_top_of"] is not None else ""))
    for kind, s in summary(tl).items():
        print(f"  sensor {kind:6s} {s['n']:4d} events  {s['first_t']:+.3f} .. {s['last_t']:+.3f} s")
    if args.timeline:
        for e in tl:
            print(f"    {e[0]:+9.4f} {e[1]:6s} ch{e[2]} {e[3]}")
    if args.feed:
        _feed(args.feed, tl)
    return 0


def _feed(path, tl):
    import time
    from .sensors import SensorFeeder
    try:
        feeder = SensorFeeder(path, connect_timeout_s=2.0)
    except OSError as exc:
        raise UserError(f"cannot connect to sensor socket {path} ({exc.strerror or exc}); "
                        "start 'ring sim board' and use the path it prints", code=1)
    try:
        t0 = time.monotonic() + 1.0          # the mat goes on 1 s before the release
        stats = feeder.play(tl, t0)
        time.sleep(0.2)
        print(f"fed {stats['sent']} events (latest {stats['late_ms_max']:.1f} ms late); "
              f"board said: {', '.join(feeder.replies[-8:]) or 'nothing'}")
    finally:
        feeder.close()


def run_frames(args):
    from .camera import CameraSource
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        assert len(size) == 2 and min(size) >= 64
    except (ValueError, AssertionError):
        raise UserError("--size must look like 960x960 (each side at least 64 px)")
    if args.fps <= 0:
        raise UserError("--fps must be positive")
    out = Path(args.folder)
    check_writable_dir(out, "FOLDER")
    toss = _simulate(args)
    src = CameraSource(toss, size=size, coin_px=args.coin_px, fps=args.fps, realtime=False,
                       noise=args.noise, seed=args.seed, still_s=args.still)
    n = 0
    for frame, t in src:
        _write_png(out / f"frame_{n:05d}_{t:07.3f}s.png", frame)
        n += 1
    write_atomic(out / "truth.json", json.dumps(toss.truth, indent=1), "FOLDER")
    print(f"{n} frames {src.size[0]}x{src.size[1]} (coin {src.coin_px:.0f} px) in {out}; "
          f"outcome {toss.truth['outcome']}, rest at {toss.truth['rest_t']} s; truth.json beside them")
    return 0


def run_scenes(args):
    """Rendered ring scenes with their truth, to try `ring vision calibrate|train|classify` on."""
    import numpy as np
    from . import render, scenes
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise UserError(f"--size {args.size!r}: give WIDTHxHEIGHT, e.g. 960x720")
    out = Path(args.output)
    check_writable_dir(out, "-o")
    base = scenes.base_spec(args.seed, (w, h), conditions=False)
    img, _ = render.render_scene(scenes.empty(base), np.random.default_rng(0))
    _write_png(out / "empty.png", img)
    for face in ("heads", "tails"):
        (out / face).mkdir(exist_ok=True)
        for i, sp in enumerate(scenes.training_specs(args.seed, face, 10, (w, h))):
            _write_png(out / face / f"{i:02d}.png", render.render_scene(sp, np.random.default_rng(i))[0])
    truths = {}
    for k in range(args.n):
        spec = scenes.make(args.seed * 1000 + k, scenes.KINDS[k % len(scenes.KINDS)], (w, h), conditions=False)
        spec["layout"], spec["floor"] = base["layout"], base.get("floor", {})
        spec["ring"] = base["ring"]
        img, truth = render.render_scene(spec, np.random.default_rng(k))
        name = f"scene{k:02d}.png"
        _write_png(out / name, img)
        truths[name] = {"result": truth["result"], "reasons": truth["reasons"]}
    write_atomic(out / "truth.json", json.dumps(truths, indent=1), "-o")
    ring_mm = scenes.ring_mm(base)
    print(f"wrote {out}/empty.png, heads/, tails/, {args.n} scenes and truth.json. Try:\n"
          f"  ring vision calibrate {out}/empty.png --ring-mm {ring_mm:.0f} -o {out}/ring.json\n"
          f"  ring vision train --heads {out}/heads --tails {out}/tails --ring {out}/ring.json -o {out}/model.json\n"
          f"  ring vision classify --ring {out}/ring.json --model {out}/model.json --json {out}/scene*.png")
    return 0


def run_rig_photos(args):
    import numpy as np
    from .cameras import calibration_photos, camera_rig
    from .geometry import RingGeometry
    from .render import render_scene
    if not 600 <= args.ring_mm <= 6000:
        raise UserError("--ring-mm must be between 600 and 6000")
    out = Path(args.folder)
    check_writable_dir(out, "FOLDER")
    cams = camera_rig(RingGeometry(layout_radius_m=args.ring_mm / 2000), args.cameras, args.coin_px)
    cmd = []
    for name, sheet, empty in calibration_photos(cams, render_scene, np.random.default_rng(args.seed)):
        for what, img in (("sheet", sheet), ("empty", empty)):
            _write_png(out / f"{what}_{name}.png", img)
        cmd.append(f"--camera {name} {out}/sheet_{name}.png {out}/empty_{name}.png")
    print(f"wrote {len(cams)} camera(s)' photos to {out}. Try:\n  ring vision calibrate-views "
          + " ".join(cmd) + f" --ring-mm {args.ring_mm:.0f} -o {out}/rig.json")
    return 0
