"""`ring log show` (issue 17): one readable line per record in local time with its zone,
filters by spin, kind and time; `--json` keeps the machine form."""
import json
import os
import time

import pytest

from ringctl.cli import main
from ringctl.errors import UserError
from ringctl.record import records, show
from ringctl.record.log import AuditLog

T0 = 1_790_000_000.0     # 2026-09-21 (epoch s), well clear of any zone's date line


@pytest.fixture(autouse=True)
def zone(monkeypatch):
    monkeypatch.setenv("TZ", "Australia/Sydney")
    time.tzset()
    yield
    monkeypatch.delenv("TZ")
    time.tzset()


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "audit.db")
    with AuditLog(path) as log:
        log.append("op", {"op": {"op": "bets-open"}, "events": [{"event": "bets-open", "rule": "6.2"}],
                          "user": "ann", "role": "boxer"}, ts=T0)
        log.append("arm", {"spin": 1, "user": "ann", "role": "boxer"}, ts=T0 + 60)
        log.append("override", {"spin": 1, "actor": "boxer", "result": "heads",
                                "reason": "both heads\nby eye", "outcome": {}, "user": "ann",
                                "role": "boxer"}, ts=T0 + 70)
        log.append("arm", {"spin": 2, "user": "ann", "role": "boxer"}, ts=T0 + 3600)
        log.append("alarm", {"alarm": "board-fault", "text": "ring board FAULT: beam", "spin": None},
                   ts=T0 + 3700)
    return path


def shown(capsys, *args):
    assert main(["log", "show", "--db", *args]) == 0
    return capsys.readouterr().out.splitlines()


def test_one_readable_line_per_record_in_local_time_with_zone(db, capsys):
    lines = shown(capsys, db)
    assert len(lines) == 5                       # a reason with a newline stays one line
    assert lines[0].startswith("2026-09-22 ") and " AEST " in lines[0]
    assert "#3" in lines[2] and "spin 1" in lines[2] and "HEADS by the boxer (ann): both heads by eye" in lines[2]
    assert "{" not in lines[1] and "armed" in lines[1]


def test_filters_by_spin_kind_and_time(db, capsys):
    assert [l.split()[3] for l in shown(capsys, db, "--spin", "1")] == ["#2", "#3"]
    assert len(shown(capsys, db, "--kind", "arm,alarm")) == 3
    since = show.local_time(T0 + 3000)[:19]      # local wall-clock time, as a person types it
    assert [l.split()[3] for l in shown(capsys, db, "--since", since)] == ["#4", "#5"]
    assert [l.split()[3] for l in shown(capsys, db, "--until", since, "--kind", "arm")] == ["#2"]


def test_json_keeps_the_machine_form(db, capsys):
    rows = [json.loads(l) for l in shown(capsys, db, "--json", "--spin", "2")]
    assert rows == [{"seq": 4, "ts": T0 + 3600, "kind": "arm", "event": None,
                     "data": {"spin": 2, "user": "ann", "role": "boxer"}}]


def test_times_people_type(db):
    assert show.parse_time("2026-09-22T00:13:20+10:00") == T0
    assert show.parse_time(str(int(T0))) == T0
    assert show.parse_time(show.local_time(T0)[:19]) == T0
    with pytest.raises(UserError, match="HH:MM"):
        show.parse_time("yesterday")
