"""The pure pieces behind the console's routes (projections/pages.py): cursors come back as the position
they were made at and nothing else is taken for one; difficult periods are the runs of negative moods
the fold flags (3 in a row), from their first message to their last."""
from __future__ import annotations

import base64
from datetime import datetime, timedelta, timezone

import orjson
import pytest

from projections import pages

AT = datetime(2026, 4, 3, 21, 0, 0, 123456, tzinfo=timezone(timedelta(hours=5, minutes=30)))


def test_a_cursor_comes_back_as_the_position_it_was_made_at():
    c = pages.encode_cursor("contacts", "acme", "last_seen", AT, "arjun/2")
    assert pages.decode_cursor(c, "contacts", "acme", "last_seen") == (AT, "arjun/2")
    assert pages.decode_cursor(pages.encode_cursor("contacts", "acme", "last_seen", None, "x"),
                               "contacts", "acme", "last_seen") == (None, "x")
    assert len(pages.encode_cursor("memories", "t" * 128, "c" * 128 + "\nactive", AT, "m" * 128)) \
        <= pages.MAX_CURSOR_CHARS


@pytest.mark.parametrize("made, asked", [
    (("contacts", "acme", "last_seen"), ("contacts", "beta", "last_seen")),    # another tenant's
    (("contacts", "acme", "last_seen"), ("contacts", "acme", "contact_id")),   # another sort's
    (("memories", "acme", "c1\n"), ("memories", "acme", "c2\n")),              # another contact's
    (("memories", "acme", "c1\n"), ("contacts", "acme", "c1\n")),              # another list's
])
def test_a_cursor_is_bound_to_what_it_pages(made, asked):
    with pytest.raises(pages.BadCursor, match="another list"):
        pages.decode_cursor(pages.encode_cursor(*made, AT, "x"), *asked)


def b64(value) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(value)).rstrip(b"=").decode()


@pytest.mark.parametrize("cursor", [
    "", "x" * (pages.MAX_CURSOR_CHARS + 1), "not base64!", "A", b64({"a": 1}), b64([2, "contacts", "acme", "last_seen",
                                                                                  None, "x"]),
    b64([1, "contacts", "acme", "last_seen", "yesterday", "x"]),       # not a time
    b64([1, "contacts", "acme", "last_seen", "2026-04-03T21:00:00", "x"]),  # a time without its offset
    b64([1, "contacts", "acme", "last_seen", None, ""]), b64([1, "contacts", "acme", "last_seen", None, 7]),
    b64([1, "contacts", "acme", "last_seen", 5, "x"]),
])
def test_anything_else_is_not_a_cursor(cursor):
    with pytest.raises(pages.BadCursor):
        pages.decode_cursor(cursor, "contacts", "acme", "last_seen")


def test_difficult_periods_are_the_flagged_runs_from_first_to_last_message():
    moods = ["happy", "sad", "sad", "anxious", "angry", "happy", "sad", "sad", "neutral", "angry", "angry", "angry"]
    rows = [{"at": AT + timedelta(hours=i), "mood": m} for i, m in enumerate(moods)]
    spans = pages.difficult_periods(rows)
    # 1-4 (four in a row, flagged at the third), 6-7 only two (not flagged), 9-11 running to the end
    assert [(s["start"], s["end"], s["count"]) for s in spans] == [
        (AT + timedelta(hours=1), AT + timedelta(hours=4), 4), (AT + timedelta(hours=9), AT + timedelta(hours=11), 3)]
    assert pages.difficult_periods([]) == []
    # frustrated and bored are negative to the mood model but not to the fold's sustained rule
    assert pages.difficult_periods([{"at": AT + timedelta(hours=i), "mood": "frustrated"} for i in range(5)]) == []
