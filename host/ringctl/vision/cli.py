"""`ring vision`: calibrate the ring, train the coin faces, classify images (sample scenes: `ring sim scenes`)."""
import json
import sys
from pathlib import Path

from ..cliutil import group_parser
from ..errors import UserError

IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


def register(subparsers):
    p, sub = group_parser(subparsers, "vision", "overhead camera: calibrate, train, classify")
    c = sub.add_parser("calibrate", help="find the ring in a photo of the empty ring")
    c.add_argument("empty", metavar="EMPTY", help="overhead photo of the empty ring")
    c.add_argument("-o", "--output", required=True, metavar="RING.json")
    c.add_argument("--coin-mm", type=float, default=30.8, help="coin diameter in mm (default 30.8)")
    c.add_argument("--ring-mm", type=float, default=3000.0, help="ring inner diameter in mm (default 3000)")
    c.add_argument("--settle-band", action="store_true",
                   help="a band all round just inside the edge found (the wall's inner part, or a border printed "
                        "on the layout): save both boundaries for `ring vision train` to settle by the coins' size, "
                        "not refuse; only with --ring-mm and --coin-mm measured to about 1%% (a diameter off by "
                        "about the band's width settles on the wrong boundary)")
    c.set_defaults(func=cmd_calibrate)
    v = sub.add_parser("calibrate-views", help="several cameras: each camera's pixels to one ring plane "
                       "in mm, from the calibration sheet and the ring's diameter")
    v.add_argument("--camera", nargs=3, action="append", required=True, metavar=("NAME", "SHEET", "EMPTY"),
                   help="once per camera: its name, its photo of the sheet lying near the ring's centre, "
                        "its photo of the empty ring")
    v.add_argument("-o", "--output", required=True, metavar="RIG.json")
    v.add_argument("--coin-mm", type=float, default=30.8, help="coin diameter in mm (default 30.8)")
    v.add_argument("--ring-mm", type=float, default=3000.0, help="ring inner diameter in mm (default 3000)")
    v.add_argument("--json", action="store_true", help="print the report as one JSON object")
    v.set_defaults(func=cmd_calibrate_views)
    sh = sub.add_parser("sheet", help="write the calibration sheet to print (one A0 sheet at 100%%)")
    sh.add_argument("-o", "--output", required=True, metavar="SHEET.png")
    sh.add_argument("--px-per-mm", type=float, default=4.0, help="print resolution (default 4 px/mm)")
    sh.set_defaults(func=cmd_sheet)
    t = sub.add_parser("train", help="learn both coin faces from photos of one coin lying flat in the ring, "
                       "taken by the ring's camera under its own lights: 12 per face, the coin turned a "
                       "clock-hour (30 deg) and moved to another spot between photos")
    t.add_argument("--heads", required=True, metavar="DIR", help="folder of photos showing heads (12 recommended)")
    t.add_argument("--tails", required=True, metavar="DIR", help="folder of photos showing tails (12 recommended)")
    t.add_argument("--ring", required=True, metavar="RING.json")
    t.add_argument("--empty", metavar="EMPTY.jpg", help="the photo of the empty ring RING.json was calibrated "
                   "from (same camera): lets a coin lying on printed artwork be told from the print")
    t.add_argument("-o", "--output", required=True, metavar="MODEL")
    t.add_argument("--annotate", metavar="DIR", help="where a refused photo's annotated picture goes "
                   "(default: next to MODEL)")
    t.add_argument("--json", action="store_true", help="the cross-validation figures as JSON")
    t.set_defaults(func=cmd_train)
    ce = sub.add_parser("confirm-edge", help="after `ring vision train` settled a band round the ring by the "
                        "coins' size: confirm the boundary it drew lies on the wall's foot all round (until then "
                        "nothing but training takes the ring)")
    ce.add_argument("--ring", required=True, metavar="RING.json")
    ce.add_argument("--by", required=True, metavar="NAME", help="who looked at the boundary drawn (kept in RING.json)")
    ce.set_defaults(func=cmd_confirm_edge)
    k = sub.add_parser("classify", help="judge still images: heads, tails, odds, no-spin or unsure")
    k.add_argument("--ring", required=True, metavar="RING.json")
    k.add_argument("--model", required=True, metavar="MODEL")
    k.add_argument("--json", action="store_true", help="one JSON object per image per line")
    k.add_argument("--annotate", metavar="DIR", help="also write each image with the ring, coins, other objects "
                   "and the verdict drawn on, as DIR/NAME.annotated.png")
    k.add_argument("images", nargs="+", metavar="IMAGE")
    k.set_defaults(func=cmd_classify)
    kv = sub.add_parser("classify-views", help="judge one moment from every camera's image of it")
    kv.add_argument("--rig", required=True, metavar="RIG.json")
    kv.add_argument("--model", required=True, metavar="MODEL")
    kv.add_argument("images", nargs="+", metavar="IMAGE", help="one per camera, in the rig's order")
    kv.set_defaults(func=cmd_classify_views)
    return p


def read_image(path):
    import cv2
    import numpy as np
    from .imagefile import image_problem
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{path} is a folder, not an image; give a PNG or JPEG file")
    if not p.is_file():
        raise UserError(f"no such image file: {path}")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read image {path} ({exc.strerror}); check its permissions") from None
    problem = image_problem(data)           # before decoding: a cut-off file is named as such
    if problem:
        raise UserError(f"image {path} {problem}")
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if img is None:
        raise UserError(f"cannot read image {path}; is it a PNG or JPEG file?")
    return img


def _folder_images(folder, what):
    d = Path(folder)
    if not d.is_dir():
        raise UserError(f"--{what}: no such folder {folder}")
    files = sorted(p for p in d.iterdir() if p.suffix.lower() in IMAGE_EXTS)
    if not files:
        raise UserError(f"--{what}: no images in {folder}")
    return files


def cmd_calibrate(args):
    from .ring import BandRefusal, calibrate
    from ..atomic import check_target, write_atomic
    check_target(args.output)
    try:
        model = calibrate(read_image(args.empty), coin_mm=args.coin_mm, ring_mm=args.ring_mm,
                          unsettled_ok=args.settle_band)
    except BandRefusal as exc:
        if exc.band is None or args.settle_band:
            raise
        raise UserError(f"{exc}; or, with --ring-mm and --coin-mm measured to about 1%, calibrate with "
                        "--settle-band and let 'ring vision train' settle it by the coins' size (then confirm "
                        "the boundary it draws: hardware/INSTALL.md step 7)") from None
    write_atomic(args.output, model.to_json())
    if model.unsettled:
        # a band round the ring: two boundaries, which training in the ring settles by the coins' size
        print(f"ring: not settled, two boundaries: the edge found, {_ring_line(model)}; "
              f"the band's inner side, {_ring_line(model.band_inner)}; saved {args.output}")
        print(f"warning: {model.unsettled}: train the coin faces in the ring next ('ring vision train ... "
              f"--ring {args.output}'), which settles it by the coins' size and saves it settled; nothing else "
              "takes this calibration until then (or mark the wall's foot with contrasting tape and calibrate "
              "again)", file=sys.stderr)
        for w in model.warnings:
            print(f"warning: {w}", file=sys.stderr)
        return 0
    print(f"ring: {_ring_line(model)}; saved {args.output}")
    for w in model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return 0


def _ring_line(model):
    d = model.to_dict()
    return (f"centre ({d['center'][0]:.1f}, {d['center'][1]:.1f}) px, semi-axes "
            f"{d['axes'][0]:.1f} x {d['axes'][1]:.1f} px at {d['angle_deg']:.0f} deg; "
            f"coins about {d['coin_diameter_px']:.0f} px across")


def cmd_calibrate_views(args):
    from ..atomic import check_target, write_atomic
    from .viewcal import calibrate_rig
    check_target(args.output)
    cams = [(name, read_image(sheet), read_image(empty)) for name, sheet, empty in args.camera]
    if len({n for n, _, _ in cams}) != len(cams):
        raise UserError("--camera NAME: give every camera its own name (A, B, ...)")
    rig = calibrate_rig(cams, ring_mm=args.ring_mm, coin_mm=args.coin_mm)
    write_atomic(args.output, rig.to_json())
    rep = rig.report
    if args.json:
        print(json.dumps(dict(rep, saved=args.output)))
    else:
        for c in rep["cameras"]:
            print(f"camera {c['name']}: {c['markers']} sheet markers, corner error {c['corner_rms_mm']} mm, "
                  f"{c['edge_points']} points of the ring's edge")
        r = rep["ring"]
        print(f"ring: {r['measured_diameter_mm']:.0f} mm across as measured (known {r['known_diameter_mm']:.0f}); "
              f"edge fits the known circle to {r['edge_residual_mm']} mm")
        print(f"coverage: {rep['coverage']['text']}")
        print(f"saved {args.output}")
    if not rep["coverage"]["ok"]:
        print(f"error: coverage check failed: {rep['coverage']['text']}", file=sys.stderr)
        return 1
    return 0


def cmd_sheet(args):
    import cv2
    from .viewcal import SHEET_MARKER_MM, sheet_image
    if not 1 <= args.px_per_mm <= 20:
        raise UserError("--px-per-mm must be between 1 and 20")
    from ..atomic import check_target, write_atomic
    check_target(args.output)
    img = sheet_image(px_per_mm=args.px_per_mm)
    ok, buf = cv2.imencode(".png", img)
    if not ok:
        raise UserError(f"cannot encode {args.output} as PNG", code=1)
    write_atomic(args.output, buf.tobytes())      # whole or not at all (a full disk)
    side = img.shape[0] / args.px_per_mm
    print(f"wrote {args.output}: {side:.0f} x {side:.0f} mm at {args.px_per_mm:g} px/mm; print at 100 % "
          f"(check one marker measures {SHEET_MARKER_MM:.0f} mm)")
    return 0


def cmd_classify_views(args):
    from .faceid import FaceModel
    from .viewcal import Rig
    from .views import judge_views
    rig = Rig.load(args.rig)
    if len(args.images) != len(rig.views):
        raise UserError(f"the rig has {len(rig.views)} cameras ({', '.join(v.name for v in rig.views)}): "
                        f"give one image per camera in that order, got {len(args.images)}")
    out = judge_views([read_image(p) for p in args.images], rig, FaceModel.load(args.model))
    out["views"] = [{k: v[k] for k in ("camera", "result", "reasons")} for v in out["views"] if v]
    print(json.dumps(out))
    return 0


def _write_annotated(folder, name, img, result, suffix="annotated", flag="--annotate"):
    import cv2
    from .annotate import annotate
    d = Path(folder)
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{flag}: cannot make folder {folder} ({exc.strerror}); give a writable folder")
    path = d / f"{Path(name).stem}.{suffix}.png"
    if not cv2.imwrite(str(path), annotate(img, result)):
        raise UserError(f"{flag}: cannot write {path}; give a writable folder")
    return path


def cmd_train(args):
    from .faceid import TrainingPhotoError, settle, train
    from .ring import RingModel
    from ..atomic import check_target, write_atomic
    check_target(args.output)
    ring = RingModel.load(args.ring, unsettled_ok=True)
    if ring.unsettled:
        check_target(args.ring, "--ring")
    hf, tf = _folder_images(args.heads, "heads"), _folder_images(args.tails, "tails")
    heads, tails = [read_image(p) for p in hf], [read_image(p) for p in tf]
    empty = read_image(args.empty) if args.empty else None
    folder = args.annotate or (Path(args.output).parent / "refused")
    left_out = []
    # a calibration beside a band round the ring: the coins' size chooses its boundary first
    both = (ring, ring.band_inner)
    ring, settled = settle(ring, heads, tails, names=[str(p) for p in hf + tf], empty=empty)
    try:
        model = train(heads, tails, ring, names=[str(p) for p in hf + tf], empty=empty, refused=left_out)
    except TrainingPhotoError as exc:
        path = _write_annotated(folder, exc.name, exc.image, exc.found)
        raise UserError(f"{exc}; what was found is drawn in {path}", code=exc.code)
    drawn = {exc.name: str(_write_annotated(folder, exc.name, exc.image, exc.found)) for exc in left_out}
    for entry in model.report["left_out"]:
        entry["drawn"] = drawn[entry["photo"]]
    model.report.update({"ring_settled": settled} if settled else {})
    if settled:   # the picture the technician confirms it by, named in the ring file
        picture = _write_settled(Path(args.output).parent, args.ring, empty if empty is not None else heads[0],
                                 ring, next(r for r in both if r.axes != ring.axes))
        ring.settled_by_coins.update(drawn=str(picture.resolve()), drawn_sha256=_sha256(picture, "-o"),
                                     drawn_boundary=ring.boundary())
    write_atomic(args.output, json.dumps(model.to_dict()))
    if settled:   # saved settled only once a model trained on it is saved (an unsettled ring is refused)
        try:
            write_atomic(args.ring, ring.to_json(), "--ring")
        except UserError as exc:
            raise UserError(f"{exc} (the face model {args.output} was saved; {args.ring} is still not settled: "
                            "train again once it can be written)", code=exc.code) from None
    if ring.unconfirmed:   # on every run that leaves it so, --json or not
        print(f"warning: {ring.not_confirmed(args.ring)}; nothing but training takes {args.ring} until then",
              file=sys.stderr)
    if args.json:
        print(json.dumps({"saved": args.output, "cross_validation": model.report}
                         | ({"ring_saved": args.ring, "drawn": str(picture)} if settled else {})
                         | ({"ring_unconfirmed": ring.not_confirmed(args.ring)} if ring.unconfirmed else {})))
        return 0
    from .verdict import train_verdict
    _, lines = train_verdict(model.report, args.output)
    if settled:
        print(f"saved the ring's calibration {args.ring} settled: {settled}; both boundaries are drawn in {picture}")
    print(f"saved the face model {args.output}")
    print("\n".join(lines))
    print("(the figures behind this: --json)")
    return 0


def _sha256(path, flag):
    import hashlib
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise UserError(f"{flag}: cannot read {path} ({exc.strerror}); check its permissions") from None


def _settled_picture(ring, ring_path):
    """The picture training drew of this ring's boundary: where it was written, or beside the
    ring file (the two moved together), with the SHA-256 training wrote; UserError otherwise."""
    how = ring.settled_by_coins
    drawn = Path(how["drawn"])
    want = how.get("drawn_sha256")
    for place in (drawn, Path(ring_path).parent / drawn.name):
        if place.is_file() and (want is None or _sha256(place, "--ring") == want):
            return place
    there = [p for p in (drawn, Path(ring_path).parent / drawn.name) if p.is_file()]
    raise UserError(f"the picture of the boundary settled, {drawn.name} (drawn at {drawn}), is "
                    f"{'changed since training drew it' if there else 'neither there nor beside ' + str(ring_path)}; "
                    "put it back, or calibrate again with --settle-band and train again, which draws it")


def cmd_confirm_edge(args):
    import datetime
    from .ring import NOT_SETTLED, RingModel
    from ..atomic import check_target, write_atomic
    ring = RingModel.load(args.ring, unsettled_ok=True)
    if ring.unsettled:
        raise UserError(NOT_SETTLED.format(ring.unsettled))
    if not ring.unconfirmed and ring.settled_by_coins:
        done = ring.settled_by_coins["confirmed"]
        print(f"{args.ring}: already confirmed by {done['by']} at {done['at']}; nothing changed")
        return 0
    # in memory first (nothing to confirm, no picture of this boundary, no name: refused there),
    # then the picture drawn must be at hand, then the file is written
    ring.confirm(args.by, datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    picture = _settled_picture(ring, args.ring)
    check_target(args.ring, "--ring")
    write_atomic(args.ring, ring.to_json(), "--ring")
    done = ring.settled_by_coins["confirmed"]
    print(f"{args.ring}: the boundary drawn white in {picture} confirmed by {done['by']} at "
          f"{done['at']}; the ring's calibration is ready for play")
    return 0


def _write_settled(folder, ring_path, img, chosen, other):
    """NAME.settled.png in `folder`: the photo with the boundary settled on (white) and the other
    (red), for the technician to check the white one lies on the wall's foot all round."""
    import cv2
    from .annotate import RED
    pic = img.copy()
    lw = max(1, int(round(2 * max(pic.shape[:2]) / 1280)))
    cv2.ellipse(pic, (other.center, (2 * other.axes[0], 2 * other.axes[1]), other.angle_deg), RED, lw, cv2.LINE_AA)
    ring = {"center": list(chosen.center), "axes": list(chosen.axes), "angle_deg": chosen.angle_deg}
    return _write_annotated(folder, ring_path, pic, {"result": "settled", "ring": ring, "reasons": [
        "the ring's edge settled by the coins' size: the white boundary",
        "the other boundary beside the band (red) was not taken",
        "check the white one lies on the wall's foot all round"]}, "settled", "-o")


def cmd_classify(args):
    from .faceid import FaceModel
    from .judge import classify
    from .ring import RingModel
    ring = RingModel.load(args.ring)
    model = FaceModel.load(args.model)
    for path in args.images:
        img = read_image(path)
        v = classify(img, ring, model)   # decoding is outside `ms` (issue 4)
        if args.annotate:
            v["annotated"] = str(_write_annotated(args.annotate, path, img, v))
        v = {"image": path, **v}
        if args.json:
            print(json.dumps(v), flush=True)
        else:
            print(f"{path}: {v['result']} ({'; '.join(v['reasons'])}) {v['ms']:.1f} ms", flush=True)
    return 0
