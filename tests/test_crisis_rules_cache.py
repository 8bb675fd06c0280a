"""The crisis rules' compiled patterns (agents/core/rules/crisis_rules.py) are kept in a bounded cache:
every rule of the table fits, and patterns beyond the bound (rules a caller makes) do not grow it."""
from __future__ import annotations

import re

from agents.core.rules import crisis_rules as cr


def test_every_rule_compiled_once_and_the_cache_bounded():
    patterns = {rule.pattern for rule in cr.RULES}
    assert len(patterns) <= cr.MAX_COMPILED // 2  # room to spare for rules made elsewhere
    assert all(rule.regex is rule.regex for rule in cr.RULES)  # compiled once, not per use
    made = [cr._Rule(f"made{n}", rf"\bword{n}\b", "medium", "ideation") for n in range(cr.MAX_COMPILED + 500)]
    compiled = [r.regex for r in made]
    assert [c.pattern for c in compiled[:2]] == [r"\bword0\b", r"\bword1\b"] and compiled[-1].search("a word1523 b")
    assert cr._compiled.cache_info().currsize <= cr.MAX_COMPILED
    assert isinstance(cr.RULES[0].regex, re.Pattern) and cr.RULES[0].regex.pattern == cr.RULES[0].pattern
