"""Word gates derived from a regex (issue 24): the literal strings of which every match must contain one.

`required_literals(pattern)` -> a frozenset of non-empty strings such that any match of `pattern` (a `re.search`
or `re.finditer` hit, of any length) contains at least one of them as a substring; or None when no such set can be
derived (the rule then always runs). The crisis engine (agents/core/crisis.py) skips a rule on a message whose
normalised text (`doc.norm`, the very string the rule's regex runs over, after the typo and chat-spelling folding)
contains none of them: the regex could not have matched, so the hits are the same, only cheaper.

How it is derived (from the parse tree of Python's own regex parser, so it reads the pattern exactly as `re` does):
    - a literal, a small character class ([sz]), a group, an alternation of such, an optional part (x?, x{0,2})
      and zero-width assertions (\\b, ^, $, lookarounds: they match "") have a finite set of exact strings; a run of
      such items in a sequence has the product of their sets (while it stays at most MAX_SET strings);
    - a sequence needs one of: the exact set of any such run, or the requirement of any one item; the best is kept
      (the longest shortest string, then the fewest strings);
    - an alternation needs the union of its branches' requirements (None if any branch has none);
    - a repeat at least once needs what its item needs; anything else (., [^...], \\w, \\s, backreferences,
      a case-insensitive part, a repeat that may be skipped) adds no requirement and has no exact set.
Every step only ever keeps strings a match provably contains, so a gate is never wrong, only sometimes absent.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import ahocorasick

try:  # Python 3.11+: the parser under its private name (sre_parse warns on import)
    from re import _constants as _c, _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover (Python < 3.11)
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

MAX_SET = 64        # strings kept in an exact set (a larger product is not formed: the run starts again)
MAX_REQ = 4096      # strings kept in a requirement (a larger union is dropped: no gate from it)
MAX_REPEAT = 3      # an optional or bounded repeat is expanded into exact strings up to this many times

Lits = frozenset[str]
_REPEATS = tuple(op for op in (getattr(_c, "MAX_REPEAT", None), getattr(_c, "MIN_REPEAT", None),
                               getattr(_c, "POSSESSIVE_REPEAT", None)) if op is not None)
_ZERO_WIDTH = (_c.AT, _c.ASSERT, _c.ASSERT_NOT)


SELECTIVE = 8       # a literal this long is taken as rare enough: then fewer strings (cheaper tests) are better


def _score(lits: Lits) -> tuple[int, int, int]:
    shortest = min(len(s) for s in lits)
    return min(shortest, SELECTIVE), -len(lits), shortest


def _best(cands: list[Lits]) -> Lits | None:
    ok = [c for c in cands if c and "" not in c and len(c) <= MAX_REQ]
    return max(ok, key=_score) if ok else None


def _product(a: Lits, b: Lits) -> Lits | None:
    if len(a) * len(b) > MAX_SET:
        return None
    return frozenset(x + y for x in a for y in b)


def _class(items: list[tuple[object, object]]) -> Lits | None:
    """The exact strings of a character class [...] (None with a negation, a category or a large range)."""
    out: set[str] = set()
    for op, av in items:
        if op == _c.LITERAL:
            out.add(chr(av))  # type: ignore[arg-type]
        elif op == _c.RANGE:
            lo, hi = av  # type: ignore[misc]
            if hi - lo >= MAX_SET:
                return None
            out.update(chr(k) for k in range(lo, hi + 1))
        else:  # NEGATE, CATEGORY (\w, \s, \d), anything else
            return None
    return frozenset(out) if 0 < len(out) <= MAX_SET else None


def _merged(items: list[tuple[object, object]]) -> list[tuple[object, object]]:
    """The items with each run of literal characters as one item ("myself": one product, not six)."""
    out: list[tuple[object, object]] = []
    for op, av in items:
        if op == _c.LITERAL:
            if out and out[-1][0] is _TEXT:
                out[-1] = (_TEXT, out[-1][1] + chr(av))  # type: ignore[operator, arg-type]
            else:
                out.append((_TEXT, chr(av)))  # type: ignore[arg-type]
        else:
            out.append((op, av))
    return out


_TEXT = object()  # a run of literal characters (an item of _merged)


def _seq(items: list[tuple[object, object]]) -> tuple[Lits | None, Lits | None]:
    """(exact strings, requirement) of a sequence of parse items."""
    cands: list[Lits] = []
    run: Lits = frozenset({""})
    whole = True  # the run has covered the whole sequence so far (then it is the sequence's exact set)
    for item in _merged(items):
        exact, req = (frozenset({item[1]}), None) if item[0] is _TEXT else _node(item)  # type: ignore[arg-type]
        if req is not None:
            cands.append(req)
        if exact is None:
            cands.append(run)
            run, whole = frozenset({""}), False
            continue
        nxt = _product(run, exact)
        if nxt is None:
            cands.append(run)
            nxt, whole = exact, False  # the run starts again at this item
        run = nxt
    cands.append(run)
    return (run if whole else None), _best(cands)


def _node(item: tuple[object, object]) -> tuple[Lits | None, Lits | None]:
    """(exact strings, requirement) of one parse item."""
    op, av = item  # (a literal character never comes here: _merged made it part of a _TEXT run)
    if op == _c.IN:
        return _class(av), None  # type: ignore[arg-type]
    if op in _ZERO_WIDTH:
        return frozenset({""}), None   # matches no characters (lookarounds read the text, not the match)
    if op == _c.SUBPATTERN:
        _group, add_flags, _del_flags, sub = av  # type: ignore[misc]
        if add_flags & re.IGNORECASE:
            return None, None
        return _seq(sub.data)
    if op == getattr(_c, "ATOMIC_GROUP", object()):
        return _seq(getattr(av, "data", av))  # type: ignore[arg-type]
    if op == _c.BRANCH:
        _none, branches = av  # type: ignore[misc]
        parts = [_seq(b.data) for b in branches]
        exacts = [e for e, _ in parts]
        exact: Lits | None = None
        if all(e is not None for e in exacts):
            u = frozenset().union(*exacts)  # type: ignore[arg-type]
            exact = u if len(u) <= MAX_SET else None
        reqs = [r if r is not None else (e if e is not None and "" not in e else None) for e, r in parts]
        req: Lits | None = None
        if all(r is not None for r in reqs):
            u = frozenset().union(*reqs)  # type: ignore[arg-type]
            req = u if len(u) <= MAX_REQ else None
        return exact, req
    if op in _REPEATS:
        lo, hi, sub = av  # type: ignore[misc]
        e, r = _seq(sub.data)
        exact = None
        if e is not None and hi <= MAX_REPEAT:
            acc: Lits | None = frozenset({""})
            total: set[str] = set()
            for k in range(hi + 1):
                if k >= lo:
                    total.update(acc)  # type: ignore[arg-type]
                if k < hi:
                    acc = _product(acc, e) if acc is not None else None
                    if acc is None:
                        break
            exact = frozenset(total) if acc is not None and len(total) <= MAX_SET else None
        if lo >= 1:
            req = r if r is not None else (e if e is not None and "" not in e and len(e) <= MAX_SET else None)
            return exact, req
        return exact, None
    # ANY, NOT_LITERAL, CATEGORY, GROUPREF, GROUPREF_EXISTS, ...: no exact strings, no requirement
    return None, None


@lru_cache(maxsize=4096)
def required_literals(pattern: str) -> Lits | None:
    """Strings of which every match of `pattern` contains at least one (substring); None: none derived.
    Raises re.error on a pattern `re` would not compile."""
    if not isinstance(pattern, str):
        raise TypeError(f"a pattern string, not {type(pattern).__name__}")
    parsed = _p.parse(pattern)
    if parsed.state.flags & re.IGNORECASE:
        return None
    return _seq(parsed.data)[1]


def passes(lits: Lits | None, text: str) -> bool:
    """May a regex with these required literals match `text`? (None: no gate, always.)"""
    return lits is None or any(s in text for s in lits)


@dataclass(frozen=True)
class Gates:
    """The gates of a table of patterns, tested together: one Aho-Corasick pass over a text finds every required
    literal it contains (overlapping ones too), and with them the patterns that may match."""
    count: int                              # patterns in the table
    always: frozenset[int]                  # patterns with no gate: they always run
    opens: tuple[tuple[int, ...], ...]      # literal id -> the patterns it opens
    automaton: ahocorasick.Automaton | None  # the literals (value: literal id); None when there are none

    @classmethod
    def build(cls, patterns: list[str] | tuple[str, ...]) -> "Gates":
        ids: dict[str, int] = {}
        opens: list[list[int]] = []
        always: set[int] = set()
        for k, pattern in enumerate(patterns):
            lits = required_literals(pattern)
            if lits is None:
                always.add(k)
                continue
            for s in sorted(lits):
                if s not in ids:
                    ids[s] = len(ids)
                    opens.append([])
                opens[ids[s]].append(k)
        automaton = None
        if ids:
            automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)
            for s, n in ids.items():
                automaton.add_word(s, n)
            automaton.make_automaton()
        return cls(len(patterns), frozenset(always), tuple(tuple(o) for o in opens), automaton)

    def open_in(self, text: str) -> list[int]:
        """The indices (ascending) of the patterns that may match `text`: those without a gate, and those one of
        whose required literals `text` contains."""
        if self.automaton is None:
            return sorted(self.always)
        found = {n for _end, n in self.automaton.iter(text)}
        out = set(self.always)
        for n in found:
            out.update(self.opens[n])
        return sorted(out)
