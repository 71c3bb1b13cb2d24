"""firmware/LINK.md's code tables and worked examples are what ringmsg.py and ringlink.py generate (tests/link/linkdoc.py)."""
import re

import linkdoc
from ringctl.fw import ringlink as rl, ringmsg


def test_link_md_generated_blocks_are_current():
    text = linkdoc.LINK_MD.read_text()
    names = re.findall(r"<!-- generated: (\w+) -->", text)
    assert sorted(names) == sorted(linkdoc.BLOCKS), "every generated block is in LINK.md once"
    assert linkdoc.render(text) == text, (
        "firmware/LINK.md differs from ringmsg.py/ringlink.py: run python tests/link/linkdoc.py")


def test_every_code_is_in_the_spec():
    text = linkdoc.LINK_MD.read_text()
    for table in (ringmsg.EVENT_NAMES, ringmsg.CMD_NAMES, ringmsg.RESULT_NAMES):
        for code, name in table.items():
            assert re.search(r"^\| %d \| `\w+` \| %s \|" % (code, re.escape(name)), text, re.M), name
    assert "version %d.%d" % (rl.PROTO_MAJOR, rl.PROTO_MINOR) in text.splitlines()[0]
    assert "| %d.%d |" % (rl.PROTO_MAJOR, rl.PROTO_MINOR) in text, "the version history names it"


def test_a_changed_comment_is_caught(monkeypatch, tmp_path):
    """The check can fail: a description edited in ringmsg.py no longer matches LINK.md."""
    src = linkdoc.RINGMSG.read_text().replace("# spinner left the mat: coins in the air",
                                               "# (edited)")
    fake = tmp_path / "ringmsg.py"
    fake.write_text(src)
    monkeypatch.setattr(linkdoc, "RINGMSG", fake)
    text = linkdoc.LINK_MD.read_text()
    assert linkdoc.render(text) != text
