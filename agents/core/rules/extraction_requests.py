"""Requests and tenant (business) statements, each an ordered table of engine rules.

REQUEST_RULES (read in every clause, even a question, before anything else): "call me Sam", then avoidance
("please don't bring up my ex", "can we not talk about work") and interest ("can we talk about astronomy?",
"tell me more about X"). A request rule always answers once its pattern matches: [] when the topic is no
topic ("talk about yourself"), so a later rule never reads the same clause.

BUSINESS_RULES (tenant scope): what a business says about itself ("we sell", "we deliver to", "we are
open", "we are called", "our customers are", "we are a bakery"); the relation a rule names picks the
reader of its value (BUSINESS_READERS). A negated value ("we do not ...", "we are open no ...") is []. Pure.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from agents.core.rules import engine
from agents.core.rules.extraction_lexicon import _TOPIC_REJECT
from agents.core.rules.extraction_objects import _objects, _talk
from agents.core.rules.extraction_patterns import _BIZ, _BIZ_TYPE_REJECT, _CALL_ME, _TALKV, _TRAIL_JUNK
from agents.core.rules.extraction_phrases import (
    SELF, _article, _category, _clean, _ent, _job, _norm_obj, _place, _raw, _take_name, _third, slugify,
)

Items = list[dict[str, Any]]
_LIKE_THAT = re.compile(r"\b(?:to me like that|like that)\b", re.I)
_NEGATED_VALUE = re.compile(r"^(?:not|never|no)\b", re.I)
_LOCATED_IN = re.compile(r"^(.+?)\s+(?:in|based\s+in|located\s+in|out\s+of)\s+(.+)$", re.I)


# ---------------------------------------------------------------- requests: handler(m, ctx)
def _r_call_me(m: re.Match, ctx: dict[str, Any]) -> Items | None:
    if ctx["scope"] != "contact":
        return None
    name, _ = _take_name(_clean(m.group(1) or m.group(2) or m.group(3)), allow_lower=True)
    return [_raw("preferred_name", f"Prefers to be called {name}", name, tags=("identity", "name"),
                 confidence=0.9)] if name else []


def _avoid(verb: str) -> Callable[[re.Match, dict[str, Any]], Items]:
    """An avoidance request: the topic as avoid_topic ("Doesn't want to talk about politics")."""
    def handler(m: re.Match, ctx: dict[str, Any]) -> Items:
        if _LIKE_THAT.search(m.string):
            return []
        obj = m.group(1)
        if _norm_obj(_clean(obj)) in _TOPIC_REJECT:
            return []
        return _talk(SELF, obj, "avoid_topic", verb, ctx)
    return handler


def _interest(verb: str, confidence: float) -> Callable[[re.Match, dict[str, Any]], Items]:
    """An interest request: the topic as interest ("Wants to talk about astronomy")."""
    def handler(m: re.Match, ctx: dict[str, Any]) -> Items:
        obj = _clean(m.group(1))
        if not obj or _norm_obj(obj) in _TOPIC_REJECT or obj.lower().startswith(("your ", "you ", "yourself")):
            return []
        return _talk(SELF, obj, "interest", verb, ctx, confidence)
    return handler


REQUEST_RULES = (
    engine.rule("asks_to_be_called", _CALL_ME, _r_call_me, "call me Sam"),
    engine.rule("dont_talk", rf"^(?:please\s+|kindly\s+|just\s+)?(?:do\s+not|never|stop|quit|no\s+more)\s+(?:ever\s+)?(?:again\s+)?{_TALKV}(.+)$",
                _avoid("doesn't want to talk about"), "please do not bring up my ex"),
    engine.rule("would_rather_not", rf"^(?:I|we)\s+(?:(?:really|just|honestly|seriously|actually)\s+)?(?:do\s+not|would\s+rather\s+not|would\s+prefer\s+not\s+to|"
                rf"prefer\s+not\s+to|cannot|can\s+not|am\s+not\s+going\s+to|will\s+not)\s+(?:(?:really|even|particularly)\s+)?"
                rf"(?:want\s+to\s+|feel\s+like\s+|care\s+to\s+|wish\s+to\s+)?{_TALKV}(.+)$",
                _avoid("doesn't want to talk about"), "I would rather not talk about work"),
    engine.rule("do_not_like_talking", rf"^(?:I|we)\s+(?:(?:really|just|honestly|actually)\s+)?(?:do\s+not|never)\s+(?:(?:really|particularly|even|much)\s+)?"
                rf"(?:like|enjoy|love)\s+(?:to\s+)?{_TALKV}(.+)$",
                _avoid("doesn't like talking about"), "I do not like talking about politics"),
    engine.rule("hate_talking", rf"^(?:I|we)\s+(?:(?:really|just|honestly|absolutely|totally)\s+)?(?:hate|dislike|avoid|cannot\s+stand)\s+{_TALKV}(.+)$",
                _avoid("hates talking about"), "I hate talking about money"),
    engine.rule("not_comfortable", rf"^(?:I|we)\s+am\s+(?:really\s+)?not\s+(?:comfortable|ok|okay|keen\s+on|up\s+for|in\s+the\s+mood\s+for|"
                rf"ready\s+to|interested\s+in)\s+{_TALKV}(.+)$",
                _avoid("doesn't want to talk about"), "I am not comfortable talking about my divorce"),
    engine.rule("can_we_not", rf"^(?:can|could|would|will)\s+(?:we|you)\s+(?:please\s+)?(?:not|stop|avoid)\s+(?:ever\s+)?{_TALKV}(.+)$",
                _avoid("doesn't want to talk about"), "can we not talk about politics"),
    engine.rule("let_us_not", rf"^let\s+us\s+(?:please\s+)?(?:not|stop|avoid)\s+{_TALKV}(.+)$",
                _avoid("doesn't want to talk about"), "let us not talk about work"),
    engine.rule("leave_out", r"^(?:please\s+)?(?:leave|keep)\s+(.+?)\s+out\s+of\s+(?:this|it|our\s+conversations?|our\s+chats?)$",
                _avoid("doesn't want to talk about"), "leave my ex out of this"),
    engine.rule("off_limits", r"^(.+?)\s+(?:is|are)\s+(?:totally\s+|completely\s+|strictly\s+)?(?:off[\s-]limits|a\s+sore\s+(?:topic|subject|spot)|"
                r"a\s+touchy\s+subject|not\s+something\s+I\s+(?:want\s+to|like\s+to)\s+(?:talk|discuss))(?:\s+for\s+me)?$",
                _avoid("doesn't want to talk about"), "religion is off limits"),
    engine.rule("no_more_talk", r"^no\s+(?:more\s+)?(?:talk(?:ing)?\s+about|questions\s+about|(?:politics|religion)\s+talk)\s+(.+)$",
                _avoid("doesn't want to talk about"), "no questions about my job"),
    engine.rule("can_we_talk", r"^(?:(?:can|could|shall|should)\s+we|(?:can|could)\s+you\s+and\s+I|would\s+you\s+(?:mind|like\s+to)|"
                r"do\s+you\s+want\s+to|want\s+to)\s+(?:please\s+)?(?:talk|chat|speak|have\s+a\s+chat)\s+(?:a\s+bit\s+|more\s+|"
                r"a\s+little\s+|for\s+a\s+bit\s+)?about\s+(.+)$",
                _interest("wants to talk about", 0.75), "can we talk about astronomy"),
    engine.rule("let_us_talk", r"^let\s+us\s+(?:talk|chat)\s+(?:a\s+bit\s+|more\s+|a\s+little\s+)?about\s+(.+)$",
                _interest("wants to talk about", 0.75), "let us talk about football"),
    engine.rule("tell_me_about", r"^(?:please\s+)?tell\s+me\s+(?:more\s+|a\s+bit\s+|a\s+little\s+|something\s+|everything\s+|all\s+)?about\s+(.+)$",
                _interest("wants to know more about", 0.7), "tell me more about black holes"),
    engine.rule("can_you_tell_me", r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?tell\s+me\s+(?:more\s+|a\s+bit\s+|something\s+|a\s+little\s+)?"
                r"about\s+(.+)$",
                _interest("wants to know more about", 0.65), "can you tell me about the Roman empire"),
    engine.rule("want_to_talk", r"^I\s+(?:(?:really|just|would\s+really)\s+)?(?:want\s+to|would\s+like\s+to|would\s+love\s+to|need\s+to)\s+"
                r"(?:talk|chat|speak|vent)\s+(?:more\s+|a\s+bit\s+)?about\s+(.+)$",
                _interest("wants to talk about", 0.75), "I want to talk about my garden"),
    engine.rule("love_talking", r"^I\s+(?:(?:really|also)\s+)?(?:love|like|enjoy)\s+(?:talking|chatting)\s+about\s+(.+)$",
                _interest("loves talking about", 0.8), "I love talking about movies"),
    engine.rule("been_getting_into", r"^I\s+have\s+been\s+(?:really\s+)?(?:getting\s+into|curious\s+about|interested\s+in|reading\s+(?:a\s+lot\s+)?about)"
                r"\s+(.+)$",
                _interest("is interested in", 0.7), "I have been getting into astronomy"),
)


def _requests(c: str, ctx: dict[str, Any]) -> Items | None:
    return engine.first(REQUEST_RULES, c, ctx)


# ---------------------------------------------------------------- business statements: reader(rel, value, clause)
def _offering(rel: str, val: str, clause: str) -> Items:
    return [_raw(rel, f"Offers {d}", n, key=slugify(n), category=_category(n), tags=("business", "offering"),
                 entities=[_ent("topic", d.lower())] if len(n.split()) <= 3 else [], confidence=0.8)
            for d, n in _objects(val)]


def _business_place(rel: str, val: str, clause: str) -> Items:
    p = _place(val)
    verb = "Is located in" if rel == "business_location" else "Delivers to"
    return [_raw(rel, f"{verb} {p}", p, entities=[_ent("place", p)], tags=("business", "location"),
                 confidence=0.85)] if p else []


def _hours(rel: str, val: str, clause: str) -> Items:
    v = _TRAIL_JUNK.sub("", val).strip()
    return [_raw(rel, f"Is open {v}", v, tags=("business", "hours"), confidence=0.8)] if v else []


def _business_name(rel: str, val: str, clause: str) -> Items:
    v = _clean(val)
    return [_raw(rel, f"Business is called {v}", v, entities=[_ent("org", v)], tags=("business",),
                 confidence=0.85)] if v else []


def _audience(rel: str, val: str, clause: str) -> Items:
    v = _clean(val)
    return [_raw(rel, f"Customers are mostly {_third(v)}", v, tags=("business", "audience"),
                 confidence=0.75)] if v else []


def _business_type(rel: str, val: str, clause: str) -> Items | None:
    if clause.lower().startswith(("I am a", "i am an", "i am")) and _job(val)[0]:
        return None
    v = _clean(val)
    loc = _LOCATED_IN.match(v)
    place = None
    if loc:
        v, place = loc.group(1), _place(loc.group(2))
    if not v or _BIZ_TYPE_REJECT.match(v):
        return []
    out = [_raw(rel, f"Is {_article(v)} {v}", v, tags=("business",), confidence=0.8)]
    if place:
        out.append(_raw("business_location", f"Is located in {place}", place,
                        entities=[_ent("place", place)], tags=("business", "location"), confidence=0.8))
    return out


BUSINESS_READERS: dict[str, Callable[[str, str, str], Items | None]] = {
    "business_offering": _offering, "business_delivery_area": _business_place,
    "business_location": _business_place, "business_hours": _hours, "business_name": _business_name,
    "business_audience": _audience, "business_type": _business_type,
}


def _business(rel: str) -> Callable[[re.Match, dict[str, Any]], Items | None]:
    """A business statement about `rel`: its first non-empty group is the value, read by BUSINESS_READERS."""
    read = BUSINESS_READERS[rel]

    def handler(m: re.Match, ctx: dict[str, Any]) -> Items | None:
        val = next(g for g in m.groups() if g)
        if _NEGATED_VALUE.match(val):
            return []
        return read(rel, val, m.string)
    return handler


BUSINESS_RULES = (
    engine.rule("offers", r"^(?:we|I)\s+(?:(?:also|mainly|mostly|only|just|primarily|now|currently)\s+)?(?:sell|offer|provide|make|bake|"
                r"serve|specialize\s+in|specialise\s+in|deal\s+in|cater|stock|carry|brew|roast|design|build|manufacture|"
                r"teach|organize|organise|host|rent\s+out|repair|fix|import|export|handle)\s+(.+)$",
                _business("business_offering"), "we sell handmade candles"),
    engine.rule("our_products", r"^our\s+(?:main\s+|best[\s-]?selling\s+|signature\s+|most\s+popular\s+|core\s+|top\s+)?(?:products?|services?|"
                r"offerings?|specialty|speciality|specialities|bestsellers?|menu)\s+(?:are|is|include|includes)\s+(.+)$",
                _business("business_offering"), "our main products are cakes and cookies"),
    engine.rule("delivers_to", r"^(?:we|I)\s+(?:(?:also|only)\s+)?(?:deliver|ship)\s+(?:to\s+|across\s+|all\s+over\s+|within\s+|in\s+)(.+)$",
                _business("business_delivery_area"), "we deliver across Bangalore"),
    engine.rule("located", r"^(?:we\s+are|I\s+am)\s+(?:located|based|situated)\s+(?:in|at|on|out\s+of|near)\s+(.+)$",
                _business("business_location"), "we are located in Indiranagar"),
    engine.rule("our_place_located", rf"^our\s+(?:{_BIZ})\s+is\s+(?:located\s+|based\s+|situated\s+)?(?:in|at|on|near)\s+(.+)$",
                _business("business_location"), "our bakery is in Koramangala"),
    engine.rule("business_based", r"^(?:located|based|situated)\s+(?:in|at|on)\s+(.+)$",
                _business("business_location"), "based in Austin"),
    engine.rule("hours", r"^(?:we\s+are|our\s+\w+\s+is|we\s+stay)\s+open\s+(.+)$|^our\s+(?:opening\s+|business\s+|store\s+|shop\s+|working\s+)?"
                r"(?:hours|timings|timing)\s+(?:are|is)\s+(.+)$|^we\s+open\s+(?:at\s+)?(.+)$",
                _business("business_hours"), "we are open 9 to 5"),
    engine.rule("called", rf"^(?:we\s+are\s+called|our\s+(?:{_BIZ})\s+is\s+called|our\s+(?:{_BIZ}\s+)?name\s+is|the\s+(?:{_BIZ})\s+is\s+called)\s+(.+)$",
                _business("business_name"), "we are called Sweet Crumbs"),
    engine.rule("our_customers", r"^our\s+(?:main\s+|target\s+|typical\s+|ideal\s+|core\s+)?(?:customers|clients|audience|market|buyers|users|"
                r"customer\s+base)\s+(?:are|is)\s+(?:mostly\s+|mainly\s+|usually\s+|largely\s+)?(.+)$",
                _business("business_audience"), "our customers are mostly students"),
    engine.rule("we_serve", r"^(?:we|I)\s+(?:mainly\s+|mostly\s+)?(?:cater\s+to|target|serve\s+mostly|work\s+with)\s+(.+)$",
                _business("business_audience"), "we mainly work with startups"),
    engine.rule("is_a", rf"^our\s+(?:{_BIZ})\s+is\s+(?:an?\s+)(.+)$|^(?:we\s+are|this\s+is)\s+an?\s+(.+)$",
                _business("business_type"), "we are a small bakery"),
    engine.rule("runs_a", rf"^(?:we|I)\s+(?:run|own|have|started|founded|opened|manage)\s+(?:an?|my\s+own|our\s+own|my|our|the\s+family)\s+"
                rf"((?:[\w'-]+\s+){{0,3}}(?:{_BIZ})\b.*)$",
                _business("business_type"), "we run a family bakery"),
)


def _tenant(c: str, ctx: dict[str, Any]) -> Items | None:
    return engine.first(BUSINESS_RULES, c, ctx)
