"""The host's shape, read from its imports (module level, inside functions, importlib strings).

Rules (docs/ARCHITECTURE.md): no import cycle between ringctl's packages; the live packages
never import the stand-ins package ringctl.sim, except their command-line modules (cli.py,
bench.py) that register commands.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "host"
PKG = ROOT / "ringctl"
LIVE = {"link", "vision", "game", "record", "runner", "device", "board"}
CLI_FILES = {"cli.py", "bench.py", "__main__.py"}


def _module(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path):
    """Every ringctl module name `path` imports, wherever the import statement sits."""
    mod = _module(path)
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{a.name}" for a in node.names)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            yield node.args[0].value


def _package(name):
    """'ringctl.link.client' -> 'link'; None for top-level modules and outside names."""
    parts = name.split(".")
    if len(parts) > 1 and parts[0] == "ringctl" and (PKG / parts[1]).is_dir():
        return parts[1]
    return None


def package_graph():
    """-> ({package: {package it imports}}, [(file, imported name) live -> sim])"""
    edges, stand_in_imports = {}, []
    for path in sorted(PKG.rglob("*.py")):
        src = _package(_module(path))
        if src is None:
            continue
        for name in imported(path):
            dst = _package(name)
            if dst is None or dst == src:
                continue
            edges.setdefault(src, set()).add(dst)
            if src in LIVE and dst == "sim" and path.name not in CLI_FILES:
                stand_in_imports.append((str(path.relative_to(ROOT)), name))
    return edges, stand_in_imports


def cycles(edges):
    """Every package that can reach itself, with one path that shows it."""
    found = []
    for start in sorted(edges):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    found.append(" -> ".join(path + [start]))
                    stack = []
                    break
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
    return found


def test_no_import_cycle_between_packages():
    edges, _ = package_graph()
    assert {"link", "record", "runner", "device", "sim"} <= set(edges)   # it read them
    assert cycles(edges) == []


def test_live_packages_import_no_stand_in():
    _, bad = package_graph()
    assert bad == []


def test_the_checks_can_fail(tmp_path):
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a -> b -> c -> a", "b -> c -> a -> b",
                                                            "c -> a -> b -> c"]
    src = tmp_path / "ringctl" / "runner" / "host.py"
    src.parent.mkdir(parents=True)
    src.write_text("def f():\n    from ..sim import physics\n    importlib.import_module('ringctl.sim.camera')\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert set(imported(src)) == {"ringctl.sim", "ringctl.sim.physics", "ringctl.sim.camera"}
    finally:
        ROOT = old


def test_shared_firmware_modules_import_no_sibling_by_bare_name():
    """A firmware module the host imports (ringctl.fw.X) must not `import pins` & co.: on the
    host that name does not exist, and a guard would silently hide it."""
    fw = ROOT.parent / "firmware" / "lib"
    siblings = {p.stem for p in fw.glob("*.py")}
    shared = set()
    for path in PKG.rglob("*.py"):
        for name in imported(path):
            if name.startswith("ringctl.fw.") and name.split(".")[2] in siblings:
                shared.add(name.split(".")[2])
    for path in Path(__file__).parent.rglob("*.py"):        # the host's tests use ringctl.fw too
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "ringctl.fw":
                shared.update(a.name for a in node.names if a.name in siblings)
    assert {"ringlink", "ringmsg", "pins", "config"} <= shared
    bare = {}
    for mod in sorted(shared):
        tree = ast.parse((fw / (mod + ".py")).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and not node.level else [])
            bad = [n for n in names if n and n.split(".")[0] in siblings]
            if bad:
                bare.setdefault(mod, []).extend(bad)
    assert bare == {}
