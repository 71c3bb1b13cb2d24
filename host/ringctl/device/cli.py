"""`ring device`: list boards, build, deploy, provision, and check/generate from the pin map."""
import sys
from pathlib import Path

from ..board import build
from ..cliutil import group_parser
from ..errors import UserError
from ..link import boards
from . import keys, pinmap


def default_build_dir():
    """Where `ring device build` leaves the image (the builder decides)."""
    return build.OUT


def register(subparsers):
    p, sub = group_parser(subparsers, "device",
                          "technician: list, build, deploy, provision boards; pin map")
    s = sub.add_parser("list", help="boards on USB (VID:PID 2E8A:0005) with serial numbers")
    s.set_defaults(func=cmd_list)

    # prefix_chars="+": every argument, --help included, goes to the builder untouched.
    s = sub.add_parser("build", help="build the firmware image (mpy-cross + manifest)",
                       add_help=False, prefix_chars="+")
    s.add_argument("rest", nargs="*", help="arguments for the firmware builder")
    s.set_defaults(func=cmd_build)

    s = sub.add_parser("deploy", help="build and copy changed firmware files, reset, confirm")
    s.add_argument("--port", help="serial port (default: the only board found)")
    s.add_argument("--flash-dir", help="simulated board's flash dir instead of a port")
    s.add_argument("--build-dir", help="use this existing build instead of building")
    s.add_argument("--dry-run", action="store_true", help="print exactly what would be copied")
    s.add_argument("--no-confirm", action="store_true",
                   help="skip the image-hash confirmation over the link")
    s.set_defaults(func=cmd_deploy)

    s = sub.add_parser("provision", help="install a new per-device key (never printed)")
    s.add_argument("--port", help="serial port (default: the only board found)")
    s.add_argument("--flash-dir", help="simulated board's flash dir instead of a port")
    s.add_argument("--device-id", help="device id (default: the board's USB serial number)")
    s.add_argument("--force", action="store_true", help="replace an existing key")
    s.add_argument("--witness-copy", metavar="FILE",
                   help="create the audit-log witness key: installed on the board, its only other "
                        "copy written to FILE for the surveillance office (never kept on the host)")
    s.add_argument("--keep-witness", action="store_true",
                   help="replace the link key only; the board keeps its witness key and chain")
    s.set_defaults(func=cmd_provision)

    s = sub.add_parser("witness-head", help="ask the board where its audit-log witness stands: "
                                            "seq and an HMAC over your nonce (JSON)")
    s.add_argument("--port", required=True, help="serial port (or a simulated board's pty)")
    s.add_argument("--device-id", help="device id, if the port does not tell it")
    s.add_argument("--nonce", required=True, metavar="HEX", help="8..32 random bytes, hex")
    s.set_defaults(func=cmd_witness_head)

    s = sub.add_parser("pinmap", help="check the pin map, or regenerate pins.py and the SVG")
    s.add_argument("action", choices=("check", "generate"))
    s.add_argument("--pinmap", help="pin map JSON (default hardware/pinmap.json)")
    s.set_defaults(func=cmd_pinmap)
    return p


def cmd_list(args):
    found = boards.find_boards()
    if not found:
        print(boards.NONE_FOUND + ". Check:")
        for c in boards.CHECKS:
            print("  - " + c)
        for chip in boards.bootsel_boards():
            print("found a %s board in BOOTSEL mode: copy the MicroPython UF2 onto its "
                  "drive (hardware/MICROPYTHON.md), then run this again" % chip)
        return 0
    print("%-16s %-18s %s" % ("PORT", "SERIAL (device id)", "DESCRIPTION"))
    for b in found:
        print("%-16s %-18s %s" % (b["port"], b["serial"] or "?", b["description"]))
    return 0


def cmd_build(args):
    return run_build(args.rest)


def run_build(argv):
    pinmap.check_or_raise(pinmap.load())
    stale = pinmap.stale_outputs(pinmap.load())
    if stale:
        raise UserError("generated files are out of date with hardware/pinmap.json: %s; run "
                        "`ring device pinmap generate` and commit them" % ", ".join(
                            str(s.relative_to(pinmap.ROOT)) for s in stale), code=1)
    return build.main(list(argv)) or 0


def _target(args):
    from .target import FlashDirTarget, MpremoteTarget
    if args.flash_dir:
        if args.port:
            raise UserError("give --port or --flash-dir, not both")
        return FlashDirTarget(args.flash_dir)
    return MpremoteTarget(boards.pick_port(args.port))


def _reach_repl(target, usb_serial):
    """A board running the controller ignores mpremote's Ctrl-C (kbd_intr(-1)): ask it over
    the authenticated link to reboot into the REPL first. -> True if it was asked."""
    from .target import MpremoteTarget
    if not isinstance(target, MpremoteTarget) or not usb_serial:
        return False
    from . import devlink
    why = devlink.escape_to_repl(target.port, usb_serial)
    if why is not None:
        print("note: not asking the controller for the REPL (%s); using mpremote directly"
              % why.split(";")[0])
        return False
    target.port = target.name = devlink.wait_for_board(usb_serial)
    print("board %s restarted into the REPL for mpremote (%s)" % (usb_serial, target.port))
    return True


def cmd_deploy(args):
    from . import deploy
    if args.build_dir:
        bdir = Path(args.build_dir)
    else:
        # a simulated board's flash dir runs the unix port: its machine code is this machine's
        status = run_build(["--target", "sim"] if args.flash_dir else [])
        if status:
            return status
        bdir = default_build_dir()
    files, image, manifest_bytes = deploy.load_build(bdir)
    deploy.check_target(manifest_bytes, "sim" if args.flash_dir else "pico")
    target = _target(args)
    # Before the reset: the board's USB serial (its device id) to find it again afterwards.
    usb_serial = None if args.flash_dir else boards.serial_for_port(target.port)
    escaped = _reach_repl(target, usb_serial)
    p = deploy.plan(files, target.read(deploy.MANIFEST), target.list_code(),
                    target.hashes(sorted(files)), manifest_bytes)
    print(deploy.format_plan(p, bdir, files, image, target.name))
    if args.dry_run:
        print("dry run: nothing copied")
        if escaped:
            target.reset()      # back to the controller
        return 0
    n = deploy.apply(p, bdir, target, manifest_bytes)
    print("copied %d file(s); resetting %s" % (n, target.name))
    target.reset()
    from . import devlink
    if args.flash_dir:
        return _confirm_sim(args.flash_dir, image, args.no_confirm)
    if args.no_confirm:
        return 0
    ok, msg = deploy.confirm_image(image, devlink.hello_once(target.port, usb_serial,
                                                            usb_serial=usb_serial))
    print(msg)
    return 0 if ok else 1


def _confirm_sim(flash_dir, image, no_confirm):
    """A running `ring sim board --flash DIR` is reset onto the new image over the link and
    confirms its hash, exactly as a Pico does; one not running boots it when started."""
    from . import deploy, devlink
    from ..link.ports import sim_port_for_device
    dev = devlink.sim_device_id(flash_dir)
    port = sim_port_for_device(dev)
    if port is None:
        print("simulated board %s is not running: `ring sim board --flash %s` boots the "
              "deployed image; `ring doctor --flash-dir %s` confirms its hash"
              % (dev or "?", flash_dir, flash_dir))
        return 0
    why = devlink.reset_board(port, dev)
    if why is not None:
        raise UserError(f"simulated board {dev} on {port} was not reset ({why.split(';')[0]}); "
                        f"restart `ring sim board --flash {flash_dir}` to run the new image",
                        code=1)
    print("simulated board %s on %s reset onto the new image" % (dev, port))
    if no_confirm:
        return 0
    import time
    time.sleep(1.0)             # the old process acks, exits and the new one boots
    ok, msg = deploy.confirm_image(image, devlink.hello_once(port, dev))
    print(msg)
    return 0 if ok else 1


def _sim_identity(flash_dir, wanted=None):
    """The simulated board's id lives in <flash>/device_id (its 'chip id', as SimBoard keeps
    it). A fresh flash dir gets one here, so it can be provisioned before its first boot."""
    import os
    from . import devlink
    have = devlink.sim_device_id(flash_dir)
    if have and wanted and have != wanted:
        raise UserError(f"flash dir {flash_dir} belongs to simulated board {have}, not "
                        f"{wanted}; drop --device-id or use another flash dir")
    if have:
        return have
    dev = keys.check_device_id(wanted or "SIM" + os.urandom(5).hex().upper())
    (Path(flash_dir) / "device_id").write_text(dev)
    return dev


def _device_id(args, target):
    if args.flash_dir:
        return _sim_identity(args.flash_dir, args.device_id)
    if args.device_id:
        return args.device_id
    dev = boards.serial_for_port(target.port)
    if dev:
        return dev
    out = target.exec("import machine, binascii\n"
                      "print(binascii.hexlify(machine.unique_id()).decode().upper())")
    return out.decode().strip().splitlines()[-1]


def cmd_provision(args):
    from . import provision
    if bool(args.witness_copy) == bool(args.keep_witness):
        raise UserError("say where the surveillance office's copy of the new witness key goes "
                        "(--witness-copy FILE), or --keep-witness to replace the link key only")
    target = _target(args)
    dev = _device_id(args, target)
    provision.check_free(dev, args.force)
    if args.witness_copy:
        provision.check_witness_copy(args.witness_copy, args.force)
    escaped = _reach_repl(target, dev if not args.flash_dir else None)
    path, fp, wfp = provision.provision(target, dev, force=args.force,
                                        witness_copy=args.witness_copy)
    if escaped:
        target.reset()          # the controller restarts with the new key
    print("provisioned device %s: key installed on %s as /key.bin, host copy %s (mode 0600), "
          "fingerprint %s" % (dev, target.name, path, fp))
    if wfp:
        print("witness key installed as /witness.key (chain restarted), fingerprint %s; the "
              "surveillance office's copy is %s: hand it over and keep it off this host"
              % (wfp, args.witness_copy))
    if args.flash_dir:
        from ..link.ports import sim_port_for_device
        running = sim_port_for_device(dev) is not None
        print("%s the simulated board (ring sim board --flash %s) so it loads the new key"
              % ("restart" if running else "start", args.flash_dir))
    elif not escaped:
        print("reset the board (power cycle) so the controller loads the new key")
    return 0


def cmd_witness_head(args):
    import json
    from .witness_query import query_head
    try:
        nonce = bytes.fromhex(args.nonce)
    except ValueError:
        raise UserError("--nonce must be hex (8..32 bytes)") from None
    seq, mac = query_head(args.port, args.device_id, nonce)
    print(json.dumps({"port": args.port, "seq": seq, "mac": mac.hex(), "nonce": args.nonce}))
    return 0


def cmd_pinmap(args):
    pm = pinmap.load(args.pinmap)
    errs = pinmap.check(pm)
    if errs:
        for e in errs:
            print("pinmap: " + e, file=sys.stderr)
        raise UserError("pin map has %d problem(s) (listed above); fix %s" % (
            len(errs), args.pinmap or pinmap.PINMAP_PATH), code=1)
    if args.action == "generate":
        for path in pinmap.write_outputs(pm):
            print("wrote %s" % path)
        return 0
    stale = [] if args.pinmap else pinmap.stale_outputs(pm)
    if stale:
        raise UserError("out of date with the pin map: %s; run `ring device pinmap generate`"
                        % ", ".join(str(s) for s in stale), code=1)
    print("pin map OK: %d pins on %s; pins.py and wiring.svg up to date" % (
        len(pm["pins"]), ", ".join(b["id"] for b in pm["boards"])))
    return 0
