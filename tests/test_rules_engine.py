"""The rule engine on its own (agents/core/rules/engine.py) and the extraction tables it reads.

Each rule of a table fires on its own example, the table answers with the earliest rule that does not
decline, and a rule that matches but declines lets the next one try.
"""
from __future__ import annotations

import re

import pytest

from agents.core import extraction as ex
from agents.core.rules import engine
from agents.core.rules.engine import Rule, first, rule, which
from agents.core.rules.extraction_complement import SIMPLE_RULES
from agents.core.rules.extraction_phrases import _role_subject


def _ctx(scope: str = "contact") -> dict:
    return {"scope": scope, "greeting": False, "introduced": [], "names": {}, "last_subj": None,
            "clause_index": 0}


# ---------------------------------------------------------------- the engine
def _toy() -> tuple[Rule, ...]:
    return (
        rule("shout", r"^hey\b", lambda m: "SHOUT"),
        rule("picky", r"^(\w+)", lambda m: m.group(1).upper() if m.group(1) == "cat" else None),
        rule("stop", r"^dog\b", lambda m: []),
        rule("any", r"^\w+", lambda m: "ANY"),
    )


def test_first_rule_that_answers_wins():
    rules = _toy()
    assert first(rules, "hey there") == "SHOUT"          # earlier rule shadows "picky" and "any"
    assert which(rules, "hey there") == "shout"
    assert first(rules, "cat nap") == "CAT"


def test_a_declining_rule_lets_the_next_try_and_an_empty_answer_stops():
    rules = _toy()
    assert first(rules, "bird song") == "ANY"          # "picky" matched "bird" and declined
    assert which(rules, "bird song") == "any"
    assert first(rules, "dog days") == []              # "stop" answers [] and "any" is never tried
    assert which(rules, "dog days") == "stop"


def test_no_match_is_none_and_patterns_anchor_at_the_start():
    assert first(_toy(), "!!! hey") is None
    assert which(_toy(), "") is None


def test_order_matters():
    rules = _toy()
    assert first(rules[::-1], "hey there") == "ANY"


def test_string_patterns_are_case_insensitive_unless_told():
    assert first((rule("hi", r"^hi\b", lambda m: 1),), "HI you") == 1
    assert first((rule("hi", r"^hi\b", lambda m: 1, flags=0),), "HI you") is None
    rx = re.compile(r"^x")
    assert rule("x", rx, lambda m: 1).pattern is rx


def test_handlers_get_the_match_and_the_callers_arguments():
    seen = []
    r = (rule("echo", r"^(\w+)", lambda m, a, b: seen.append((m.string, m.group(1), a, b)) or "ok"),)
    assert first(r, "word rest", 1, "two") == "ok"
    assert seen == [("word rest", "word", 1, "two")]


# ---------------------------------------------------------------- the extraction tables
TABLES = {"preference": ex.PREFERENCE_RULES, "tenant": ex.TENANT_RULES, "predicate": ex.PREDICATE_RULES,
          "complement": ex.COMPLEMENT_RULES, "self": ex.SELF_RULES, "request": ex.REQUEST_RULES,
          "business": ex.BUSINESS_RULES, "simple": SIMPLE_RULES, "subject": ex.SUBJECT_RULES}


def _args(table: str, text: str) -> tuple:
    """The arguments the table's caller passes (the complement rules also get the clause's time cue)."""
    ctx = _ctx("tenant" if table in {"tenant", "business"} else "contact")
    if table == "self":
        return (ctx, 0)
    if table in {"request", "business"}:
        return (ctx,)
    if table == "subject":  # one person introduced earlier in the message, by name
        priya = _role_subject("sister", "Priya")
        return ({**ctx, "introduced": [priya], "names": {"priya": priya}},)
    if table == "simple":  # a pet subject, so the breed rule can answer too
        return (_role_subject("dog", "Bruno"), ctx, True)
    return (ex.SELF, ctx, text, ex._cue(text)) if table == "complement" else (ex.SELF, ctx, text)




@pytest.mark.parametrize("table,r", [(t, r) for t, rules in TABLES.items() for r in rules],
                         ids=lambda x: x if isinstance(x, str) else x.name)
def test_each_rule_fires_on_its_own_example(table, r):
    assert r.example, f"{r.name} has no example"
    assert r.pattern.match(r.example if r.view is None else r.view(r.example))
    assert which(TABLES[table], r.example, *_args(table, r.example)) == r.name
    alone = (r,)
    assert first(alone, r.example, *_args(table, r.example)) is not None, f"{r.name} declined its own example"
    if r.name != "negated":  # "not ..." stops the ladder on purpose and answers nothing
        assert first(TABLES[table], r.example, *_args(table, r.example)), f"{r.name} answered nothing"


def test_rule_names_are_unique():
    names = [r.name for rules in TABLES.values() for r in rules]
    assert len(names) == len(set(names))


def _facts(items):
    return sorted((i["relation"], i["object"]) for i in items)


def test_business_rule_shadows_have_for_a_business():
    # "have a small bakery" matches both "runs_business" and "has"; the earlier rule answers
    text = "have a small bakery"
    assert [r.name for r in ex.PREDICATE_RULES if r.pattern.match(text)][:2] == ["runs_business", "has"]
    assert _facts(ex._predicate(ex.SELF, text, _ctx(), text)) == [("runs_business", "small bakery")]


def test_business_rule_declines_without_a_business_word():
    # "run a marathon" matches "runs_business" but names no business: the rule declines, nothing else fits
    assert ex.PREDICATE_RULES[1].pattern.match("run a marathon")
    assert which(ex.PREDICATE_RULES, "run a marathon", ex.SELF, _ctx(), "run a marathon") is None
    assert ex._predicate(ex.SELF, "run a marathon", _ctx(), "run a marathon") == []


def test_has_been_owns_motion_and_answers_nothing():
    # "have been to Paris" is a visit, not a fact; "has_been" stops the "has" rule from reading "been to Paris"
    assert ex._predicate(ex.SELF, "have been to Paris", _ctx(), "have been to Paris") == []


def test_a_planned_move_is_no_fact_yet():
    assert _facts(ex._predicate(ex.SELF, "moved to Paris", _ctx(), "I moved to Paris")) == [("lives_in", "paris")]
    assert ex._predicate(ex.SELF, "moved to Paris", _ctx(), "I moved to Paris next week") == []
    # only the move is read as planned: "live in" with the same cue still answers
    assert _facts(ex._predicate(ex.SELF, "live in Paris", _ctx(), "I live in Paris next week")) == [("lives_in", "paris")]


def test_a_tenant_only_states_wants():
    assert ex._predicate(ex.SELF, "live in Berlin", _ctx("tenant"), "we live in Berlin") == []
    assert _facts(ex._predicate(ex.SELF, "need a new website", _ctx("tenant"), "x")) == [("wants", "new website")]


def test_born_on_a_date_is_a_birthday_and_a_bare_year_nothing():
    assert _facts(ex._predicate(ex.SELF, "was born on 12 March", _ctx(), "x")) == [("birthday", "12 march")]
    assert _facts(ex._predicate(ex.SELF, "was born in Lagos", _ctx(), "x")) == [("born_in", "lagos")]
    assert ex._predicate(ex.SELF, "was born in 1990", _ctx(), "x") == []


def test_complement_view_rules_read_the_cleaned_text():
    # "x_fan" matches on _clean(comp), not on the complement as written
    assert which(ex.COMPLEMENT_RULES, "a big Marvel fan", *_args("complement", "a big Marvel fan")) == "x_fan"
    # "a bit of a fan" is no fandom: x_fan declines and nothing else answers
    assert which(ex.COMPLEMENT_RULES, "a bit of a fan", *_args("complement", "a bit of a fan")) is None


def test_a_trip_needs_a_time_cue():
    # "going to Goa" answers only with a cue; without one the rule owns the text and answers nothing
    assert ex._complement(ex.SELF, "going to Goa", _ctx(), "I am going to Goa") == []
    assert _facts(ex._complement(ex.SELF, "going to Goa", _ctx(), "I am going to Goa next week")) == \
        [("plan", "going to goa")]


def test_in_place_declines_without_a_cue_or_a_trip():
    # "in Tokyo" with no time cue and no trip is not a current location: in_place declines
    assert which(ex.COMPLEMENT_RULES, "in Tokyo", *_args("complement", "I am in Tokyo")) is None
    assert _facts(ex._complement(ex.SELF, "in Tokyo for work", _ctx(), "I am in Tokyo for work")) == \
        [("current_location", "tokyo")]
    assert _facts(ex._complement(ex.SELF, "in Tokyo this week", _ctx(), "I am in Tokyo this week")) == \
        [("current_location", "tokyo")]


def test_my_attr_reads_each_attribute_with_its_own_reader():
    def said(text):
        return _facts(ex._self_statements(text, _ctx(), 0))
    assert said("my hometown is Pune") == [("from", "pune")]
    assert said("my age is 25") == [("age", "25")]
    assert said("my office is in Pune") == [("work_location", "pune")]
    assert said("my employer is in Pune") == []          # only an office names a place to work in
    assert said("my office is Siemens") == []            # and an office is no employer
    assert said("my job is nurse") == [("job_title", "nurse")]   # anything else reads as a job


def test_here_introduces_only_in_the_first_clause():
    assert _facts(ex._self_statements("Rohan here", _ctx(), 0)) == [("name", "rohan")]
    assert ex._self_statements("Rohan here", _ctx(), 1) is None


def test_my_home_is_in_a_place():
    # "my flat is in Pune" once needed a second "is" ("my flat is in is Pune") and read nothing
    assert _facts(ex._self_statements("my flat is in Pune", _ctx(), 0) or []) == [("lives_in", "pune")]
    assert _facts(ex._self_statements("my house is in Berlin", _ctx(), 0) or []) == [("lives_in", "berlin")]
    assert ex._self_statements("my house is in a mess", _ctx(), 0) == []   # no place
    assert _facts(ex._self_statements("my office is in Pune", _ctx(), 0)) == [("work_location", "pune")]


def test_going_to_do_a_plan_verb_is_an_activity_and_a_place_stays_a_trip():
    # "going" ("going to <anything>") once ran first and read "going to paint the kitchen" as a trip to a
    # place "paint the kitchen"; going_to_do now reads a verb of PLAN_VERBS first
    args = _args("complement", "I am going to paint the kitchen tomorrow")
    assert which(ex.COMPLEMENT_RULES, "going to paint the kitchen tomorrow", *args) == "going_to_do"
    assert _facts(ex._complement(ex.SELF, "going to meet Sam for coffee tomorrow", _ctx(),
                                 "I am going to meet Sam for coffee tomorrow")) == [("plan", "meet sam for coffee")]
    for trip in ("going to school tomorrow", "going to Goa next week", "going to work tomorrow"):
        assert which(ex.COMPLEMENT_RULES, trip, *_args("complement", "I am " + trip)) == "going"
    assert ex._complement(ex.SELF, "going to paint the kitchen", _ctx(), "I am going to paint the kitchen") == []


# ---------------------------------------------------------------- requests, business statements, simple complements
def _rule(table, name):
    return next(r for r in table if r.name == name)


def test_a_request_rule_answers_alone_and_owns_its_clause():
    alone = (_rule(ex.REQUEST_RULES, "can_we_not"),)
    assert _facts(first(alone, "can we not talk about politics", _ctx())) == [("avoid_topic", "politics")]
    dont = (_rule(ex.REQUEST_RULES, "dont_talk"),)
    # a manner ("like that") or no topic ("yourself") is no avoided topic, and the rule still owns the clause
    assert first(dont, "do not talk to me about it like that", _ctx()) == []
    assert first(dont, "stop talking about yourself", _ctx()) == []
    love = (_rule(ex.REQUEST_RULES, "love_talking"),)
    assert _facts(first(love, "I love talking about old movies", _ctx())) == [("interest", "old movies")]
    assert first((_rule(ex.REQUEST_RULES, "tell_me_about"),), "tell me about yourself", _ctx()) == []


def test_call_me_is_a_request_of_a_contact_only():
    alone = (_rule(ex.REQUEST_RULES, "asks_to_be_called"),)
    assert _facts(first(alone, "call me Sam", _ctx())) == [("preferred_name", "sam")]
    assert first(alone, "call me Sam", _ctx("tenant")) is None


def test_business_rules_read_their_value_by_relation():
    is_a = (_rule(ex.BUSINESS_RULES, "is_a"),)
    assert _facts(first(is_a, "we are a small bakery in Pune", _ctx("tenant"))) == \
        [("business_location", "pune"), ("business_type", "small bakery")]
    assert first(is_a, "we are a bit busy", _ctx("tenant")) == []          # no kind of business
    offers = (_rule(ex.BUSINESS_RULES, "offers"),)
    assert first(offers, "we sell no cakes", _ctx("tenant")) == []          # a negated value
    assert _facts(first(offers, "we sell cakes and cookies", _ctx("tenant"))) == \
        [("business_offering", "cakes"), ("business_offering", "cookies")]
    hours = (_rule(ex.BUSINESS_RULES, "hours"),)
    assert _facts(first(hours, "our opening hours are 9 to 5!!", _ctx("tenant"))) == [("business_hours", "9 to 5")]


def test_simple_complement_rules_alone():
    dog = _role_subject("dog", "Bruno")
    assert first((_rule(SIMPLE_RULES, "breed"),), "a beagle", ex.SELF, _ctx(), True) is None   # only a pet has one
    assert _facts(first((_rule(SIMPLE_RULES, "breed"),), "a beagle", dog, _ctx(), True)) == [("breed", "beagle")]
    zodiac = (_rule(SIMPLE_RULES, "zodiac"),)
    assert first(zodiac, "leo", ex.SELF, _ctx(), True) is None                # lower case and bare: no sign
    assert _facts(first(zodiac, "a leo", ex.SELF, _ctx(), True)) == [("zodiac_sign", "leo")]
    name = (_rule(SIMPLE_RULES, "name"),)
    assert first(name, "Priya", ex.SELF, _ctx(), False) is None                # a name only as the first part
    assert _facts(first(name, "Priya", ex.SELF, _ctx(), True)) == [("name", "priya")]


def test_an_age_out_of_range_ends_the_first_part_only():
    age = (_rule(SIMPLE_RULES, "age"),)
    assert first(age, "7", ex.SELF, _ctx(), True) == ()                        # a self under 12: owned, nothing
    assert _facts(first(age, "7", _role_subject("dog", None), _ctx(), True)) == [("age", "7")]
    assert ex._complement(ex.SELF, "200, a nurse", _ctx(), "I am 200, a nurse") == []
    assert _facts(ex._complement(ex.SELF, "a nurse, 200", _ctx(), "I am a nurse, 200")) == [("job_title", "nurse")]


def test_subject_rules_alone():
    def subject(name, text, ctx):
        got = first((_rule(ex.SUBJECT_RULES, name),), text, ctx)
        return None if got is None else ((got[0] or {}).get("ref"), got[1].strip(), got[2])
    assert subject("my_role", "my sister Priya lives in Pune", _ctx()) == ("person:priya", "lives in Pune", None)
    assert subject("my_role", "my dog's name is Bruno", _ctx()) == ("pet:dog", "", "Bruno")
    assert subject("my_role", "my ex boyfriend lives in Pune", _ctx()) == (None, "lives in Pune", None)
    assert subject("my_role", "my mom's cooking is great", _ctx()) == (None, "'s cooking is great", None)
    # "she" names the one person introduced, and nobody when none or two were
    two = {**_ctx(), "introduced": [_role_subject("sister", "Priya"), _role_subject("mom", None)]}
    assert subject("pronoun", "she lives in Pune", two) == (None, "she lives in Pune", None)
    # a dropped "I": the speaker, "am" restored before a participle; never when the clause addresses "you"
    assert subject("dropped_i", "just moved to Toronto", _ctx()) == ("self", "just moved to Toronto", None)
    assert subject("dropped_i", "living in Pune", _ctx()) == ("self", "am living in Pune", None)
    assert subject("dropped_i", "love your style", _ctx()) is None
    assert subject("dropped_i", "love biryani", _ctx("tenant")) is None
    assert subject("known_name", "Priya lives in Pune", _ctx()) is None       # a name nobody introduced


# ---------------------------------------------------------------- the crisis table, one rule at a time
from agents.core import crisis  # noqa: E402
from agents.core.rules import crisis_rules  # noqa: E402


def _crisis_rule_fires(name: str, text: str) -> bool:
    rule_ = crisis_rules._RULES_BY_NAME[name]
    doc = crisis.parse(text)
    return any(crisis._judge(doc, rule_, m) is not None for m in rule_.regex.finditer(doc.norm))


def test_a_crisis_rule_reads_alone_with_its_check():
    # want_to_die's pattern excludes "dying for", and its check vetoes "cross my heart and hope to die"
    assert _crisis_rule_fires("want_to_die", "i just want to die")
    assert not _crisis_rule_fires("want_to_die", "i want to die my hair red")
    assert crisis_rules._RULES_BY_NAME["want_to_die"].severity == "high"


def test_crisis_rule_names_are_unique_and_the_table_is_the_engines():
    names = [r.name for r in crisis_rules.RULES]
    assert len(names) == len(set(names))
    assert crisis.RULES is crisis_rules.RULES
