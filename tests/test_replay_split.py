"""How a parallel replay splits the ledger's contacts over its processes (pure)."""
from ops import replay as rp


def test_contacts_are_split_whole_into_parts_of_about_equal_events():
    counts = [("t", "a", 400), ("t", "b", 380), ("t", "c", 30), ("u", "a", 20), ("t", "d", 5)]
    # largest first, each to the lightest part: a -> 0; b -> 1; c -> 1 (380 < 400); u/a -> 0 (400 < 410)...
    assert rp.split_contacts(counts, 2) == [[("t", "a"), ("u", "a")], [("t", "b"), ("t", "c"), ("t", "d")]]
    assert rp.split_contacts(counts[:1], 4) == [[("t", "a")]]  # no empty parts

