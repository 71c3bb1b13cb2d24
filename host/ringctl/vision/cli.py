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
    c.set_defaults(func=cmd_calibrate)
    t = sub.add_parser("train", help="learn both coin faces from photos of one coin lying flat")
    t.add_argument("--heads", required=True, metavar="DIR", help="folder of photos showing heads")
    t.add_argument("--tails", required=True, metavar="DIR", help="folder of photos showing tails")
    t.add_argument("--ring", required=True, metavar="RING.json")
    t.add_argument("-o", "--output", required=True, metavar="MODEL")
    t.set_defaults(func=cmd_train)
    k = sub.add_parser("classify", help="judge still images: heads, tails, odds, no-spin or unsure")
    k.add_argument("--ring", required=True, metavar="RING.json")
    k.add_argument("--model", required=True, metavar="MODEL")
    k.add_argument("--json", action="store_true", help="one JSON object per image per line")
    k.add_argument("images", nargs="+", metavar="IMAGE")
    k.set_defaults(func=cmd_classify)
    return p


def read_image(path):
    import cv2
    p = Path(path)
    if not p.is_file():
        raise UserError(f"no such image file: {path}")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
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
    from .ring import calibrate
    model = calibrate(read_image(args.empty), coin_mm=args.coin_mm, ring_mm=args.ring_mm)
    model.save(args.output)
    d = model.to_dict()
    print(f"ring: centre ({d['center'][0]:.1f}, {d['center'][1]:.1f}) px, semi-axes "
          f"{d['axes'][0]:.1f} x {d['axes'][1]:.1f} px at {d['angle_deg']:.0f} deg; "
          f"coins about {d['coin_diameter_px']:.0f} px across; saved {args.output}")
    for w in model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    return 0


def cmd_train(args):
    from .faceid import train
    from .ring import RingModel
    ring = RingModel.load(args.ring)
    hf, tf = _folder_images(args.heads, "heads"), _folder_images(args.tails, "tails")
    model = train([read_image(p) for p in hf], [read_image(p) for p in tf], ring,
                  names=[str(p) for p in hf + tf])
    model.save(args.output)
    print(json.dumps({"saved": args.output, "cross_validation": model.report}))
    return 0


def cmd_classify(args):
    from .faceid import FaceModel
    from .judge import classify
    from .ring import RingModel
    ring = RingModel.load(args.ring)
    model = FaceModel.load(args.model)
    for path in args.images:
        v = classify(read_image(path), ring, model)   # decoding is outside `ms` (issue 4)
        v = {"image": path, **v}
        if args.json:
            print(json.dumps(v), flush=True)
        else:
            print(f"{path}: {v['result']} ({'; '.join(v['reasons'])}) {v['ms']:.1f} ms", flush=True)
    return 0
