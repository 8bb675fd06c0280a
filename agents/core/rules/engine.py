"""A small rule engine: an ordered table of (compiled pattern -> handler).

A rule is a name, a compiled pattern, a handler and one example the rule is written for. `first` tries
the rules in order on a text; the first rule whose pattern matches calls its handler with the match
(the text is `match.string`) and whatever arguments the caller passes. A rule with a `view` matches
its pattern on `view(text)` (a cleaned form of the text) instead. A handler returns its answer,
or None to decline ("the pattern matched but this rule does not apply"), and the next rule is tried.
Order is part of the table: an earlier rule shadows a later one on the texts both match.

Pure: no state, no clock; a table is a tuple built once at import.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    handler: Callable[..., Any]
    example: str = ""  # a text the rule fires on (the engine's tests read every table's examples)
    view: Callable[[str], str] | None = None  # what the pattern reads, when not the text itself


def rule(name: str, pattern: re.Pattern[str] | str, handler: Callable[..., Any], example: str = "",
         flags: int = re.I, view: Callable[[str], str] | None = None) -> Rule:
    """A Rule; a string pattern is compiled with `flags` (case-insensitive unless told)."""
    rx = re.compile(pattern, flags) if isinstance(pattern, str) else pattern
    return Rule(name, rx, handler, example, view)


def first(rules: Iterable[Rule], text: str, *args: Any) -> Any:
    """The answer of the first rule whose pattern matches `text` at its start and whose handler does not
    decline (return None); None when no rule answers."""
    for r in rules:
        m = r.pattern.match(text if r.view is None else r.view(text))
        if m is not None:
            out = r.handler(m, *args)
            if out is not None:
                return out
    return None


def which(rules: Iterable[Rule], text: str, *args: Any) -> str | None:
    """The name of the rule `first` would answer with (for tests and for reading a decision)."""
    for r in rules:
        m = r.pattern.match(text if r.view is None else r.view(text))
        if m is not None and r.handler(m, *args) is not None:
            return r.name
    return None
