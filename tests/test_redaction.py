"""Secrets are redacted before the fold sees a message (agents/core/redaction.py), rule by rule, with
the ordinary text that must pass untouched; and through the fold: memories, episodes, the window."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from agents.core.redaction import RULES, iban_ok, redact

R = {r.name: r for r in RULES}


@pytest.mark.parametrize("rule, text, expected", [
    ("card number", "my card is 4111 1111 1111 1111 thanks", "my card is [redacted card number] thanks"),
    ("card number", "amex 3782-822463-10005.", "amex [redacted card number]."),
    ("card number", "6011111111111117", "[redacted card number]"),
    ("PIN", "my card PIN is 4711", "my card PIN is [redacted PIN]"),
    ("PIN", "pin: 1234 ok", "pin: [redacted PIN] ok"),
    ("password", "my password is hunter2.", "my password is [redacted password]."),
    ("password", "wifi password: Tr0ub4dor&3 ok", "wifi password: [redacted password] ok"),
    ("one-time code", "the code is 482913", "the code is [redacted one-time code]"),
    ("one-time code", "OTP 482913 expires soon", "OTP [redacted one-time code] expires soon"),
    ("one-time code", "verification code: 5521", "verification code: [redacted one-time code]"),
    ("IBAN", "send it to DE89 3704 0044 0532 0130 00 please", "send it to [redacted IBAN] please"),
    ("IBAN", "GB82WEST12345698765432", "[redacted IBAN]"),
    ("api key", "use sk-proj-abcdEFGH1234ijklMNOP5678 now", "use [redacted API key] now"),
    ("api key", "ghp_" + "a1B2" * 9, "[redacted API key]"),
    ("api key", "AKIAIOSFODNN7EXAMPLE", "[redacted API key]"),
    ("token after a keyword", "my token is 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "my token is [redacted API key]"),
    ("card security code", "cvv 123", "cvv [redacted card security code]"),
])
def test_each_rule_on_its_own(rule, text, expected):
    assert redact(text, (R[rule],)) == expected
    assert redact(text) == expected  # and the whole table agrees


@pytest.mark.parametrize("text", [
    "call me at +91 98450 12345 tomorrow",        # a phone number: 12 digits
    "+1 (415) 555-2671 is my office",
    "I was born in 1987 and moved in 2019",
    "I have 4711 steps today",
    "order 4111 1111 1111 1112 was late",         # 16 digits, Luhn fails
    "my zip code is 560001",
    "the key is supercalifragilisticexpialidocious",  # a long word, not a token
    "I forgot my password yesterday",
    "we met on 2026-04-03T21:10:00+05:30",
    "DE89 is my favourite autobahn exit",
    "Pinterest has 1234 pins of cats",
])
def test_ordinary_text_passes_untouched(text):
    assert redact(text) == text


def test_iban_checksum():
    assert iban_ok("DE89370400440532013000") and iban_ok("gb82west12345698765432")
    assert not iban_ok("DE89370400440532013001")


def luhn_complete(body: str) -> str:
    """The body with its Luhn check digit appended (computed here, by the textbook rule)."""
    total = 0
    for i, ch in enumerate(reversed(body)):
        d = int(ch)
        if i % 2 == 0:  # from the right, the body's last digit is doubled once the check digit follows
            d *= 2
            d = d - 9 if d > 9 else d
        total += d
    return body + str((10 - total % 10) % 10)


def test_check_digit_helper_by_hand():
    assert luhn_complete("411111111111111") == "4111111111111111"
    assert luhn_complete("37828224631000") == "378282246310005"


@settings(max_examples=300, deadline=None)
@given(body=st.text(alphabet="0123456789", min_size=12, max_size=18), sep=st.sampled_from(["", " ", "-"]),
       prefix=st.text(max_size=30), suffix=st.text(max_size=30), group=st.sampled_from([4, 5, 6]))
def test_a_luhn_valid_number_embedded_anywhere_never_survives(body, sep, prefix, suffix, group):
    # anywhere in text: glued to further digits it would be another, longer number
    prefix, suffix = prefix.rstrip("0123456789"), suffix.lstrip("0123456789")
    card = luhn_complete(body)
    shown = sep.join(card[i:i + group] for i in range(0, len(card), group))
    out = redact(prefix + shown + suffix)
    assert card not in re.sub(r"[ -]", "", out)


def test_the_fold_sees_only_redacted_text():
    from agents.core import contact as core
    from tests.helpers import interaction

    env = interaction("e1", "My card PIN is 4711 and my password is hunter2, my card is 4111 1111 1111 1111",
                      contact="c", minutes=0)
    state = core.new_state(env.tenant_id, env.contact_id)
    plans = core.plan_memories(env)
    new, derived = core.apply_interaction(state, env, plans)
    text = repr(plans) + repr(new) + repr([e.to_dict() for e in derived])
    for secret in ("4711", "hunter2", "4111 1111"):
        assert secret not in text
    assert "[redacted PIN]" in repr(new["window"])


@pytest.mark.asyncio
async def test_a_configured_model_gets_the_redacted_message():
    """The mood model and the deferred extraction see what the fold sees, not the card or the PIN."""
    from agents.llm import LLMExtractor, LLMMoods
    from tests.helpers import interaction
    from tests.llm_stub import Stub

    stub = Stub()
    try:
        env = interaction("s1", "my card PIN is 4711 and the card is 4111 1111 1111 1111", contact="c")
        await LLMMoods(stub.url, "k", "m", timeout_s=5).moods([env])
        await LLMExtractor(stub.url, "k", "m", timeout_s=5).propose(env, None)
        sent = [body["messages"][-1]["content"] for path, body in stub.calls if path.endswith("/chat/completions")]
        assert len(sent) == 2
        for text in sent:
            assert "[redacted PIN]" in text and "[redacted card number]" in text
            assert "4711" not in text and "4111 1111" not in text
    finally:
        stub.close()
