"""Redis key names are injective in (tenant, contact): no two tenants' contacts share a cache key."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from schemas.cachekeys import WINDOW_PREFIX, parse_window_key, window_key

ids = st.text(min_size=1, max_size=40)
# ids built from the characters a naive join would confuse
confusable = st.text(alphabet=[":", "%", "3", "A", "a", "/", "é", "🙂", " ", "\\", ".", "v", "2"], min_size=1, max_size=12)


def test_the_reported_collision_is_gone():
    # issue 11: tenant `acme:x` / contact `y` read tenant `acme` / contact `x:y`'s window
    assert window_key("acme:x", "y") != window_key("acme", "x:y")
    assert window_key("a:b", "c") != window_key("a", "b:c")
    # an already-encoded-looking id is not the same as the id it would decode to
    assert window_key("a%3Ab", "c") != window_key("a:b", "c")


def test_known_encoding():
    # by hand: ':' -> %3A, '/' -> %2F, 'é' (C3 A9) -> %C3%A9
    assert window_key("acme:x", "a/é") == "rapport:window:v2:acme%3Ax:a%2F%C3%A9"


@settings(max_examples=400)
@given(st.one_of(ids, confusable), st.one_of(ids, confusable), st.one_of(ids, confusable), st.one_of(ids, confusable))
def test_distinct_pairs_never_share_a_key(t1, c1, t2, c2):
    if (t1, c1) != (t2, c2):
        assert window_key(t1, c1) != window_key(t2, c2)


@settings(max_examples=300)
@given(st.one_of(ids, confusable), st.one_of(ids, confusable))
def test_a_key_names_exactly_its_tenant_and_contact(t, c):
    k = window_key(t, c)
    assert k.startswith(WINDOW_PREFIX)
    assert k[len(WINDOW_PREFIX):].count(":") == 1  # the components hold no separator of their own
    assert parse_window_key(k) == (t, c)
