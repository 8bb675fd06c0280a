"""POST /payload's assembly (seed 002 §6): section budgets and the three overflow rules."""
from projections.payload import LIMITS, TOTAL, VERBATIM_TURNS, build_payload


def count(text: str) -> int:  # the service's rule without a tokenizer: ceil(chars / 4)
    return -(-len(text) // 4)


def mem(i: int, score: float, words: int = 10) -> dict:
    return {"id": f"m{i}", "memoryType": "fact", "content": f"fact {i} " + "word " * words, "score": score}


def build(**kw):
    args = dict(message="How did my blog do this week?", system_prompt="You are a helpful copilot.",
                tenant_profile=None, context_text="CONTACT CONTEXT:\n- Building relationship", memories=[],
                service_data=None, history=[], tools=None, count=None)
    args.update(kw)
    return build_payload(**args)


def test_small_payload_keeps_everything_in_order():
    p = build(memories=[mem(1, 0.9), mem(2, 0.5)], history=[{"role": "user", "content": "hi"},
                                                           {"role": "assistant", "content": "hello!"}])
    msgs = p["messages"]
    assert msgs[0]["role"] == "system" and msgs[0]["content"].startswith("You are a helpful copilot.")
    assert "- [fact] fact 1" in msgs[0]["content"] and "CONTACT CONTEXT" in msgs[0]["content"]
    assert [m["content"] for m in msgs[1:]] == ["hi", "hello!", "How did my blog do this week?"]
    assert p["budget"]["memories"]["dropped"] == 0 and p["budget"]["total"]["limit"] == TOTAL


def test_memories_overflow_drops_lowest_scored():
    mems = [mem(i, score=i / 100, words=40) for i in range(60)]  # ~50 tokens each, ~3000 in all
    p = build(memories=mems)
    b = p["budget"]["memories"]
    assert b["used"] <= LIMITS["memories"] and b["dropped"] > 0
    kept = [line for line in p["messages"][0]["content"].splitlines() if line.startswith("- [fact]")]
    kept_ids = {int(line.split()[3]) for line in kept}
    assert kept_ids == set(range(60 - len(kept_ids), 60))  # the best-scored survive


def test_service_data_overflow_keeps_relevant_fields():
    data = {"blog": {"views": {"this_week": 315, "last_week": 840}, "posts": 18},
            "billing": {"invoices": [{"id": i, "amount": i * 10, "memo": "x" * 200} for i in range(60)]}}
    p = build(service_data=data, message="Why did my blog views drop?")
    b = p["budget"]["service_data"]
    assert b["filtered"] and b["used"] <= LIMITS["service_data"]
    assert '"this_week": 315' in p["messages"][0]["content"] and "invoices" not in p["messages"][0]["content"]


def test_conversation_overflow_summarises_older_turns_and_keeps_last_four_verbatim():
    history = [{"role": "user" if i % 2 == 0 else "assistant",
                "content": f"Turn {i} says something. " + "More detail here. " * 40} for i in range(30)]
    p = build(history=history)
    turns = p["messages"][1:]
    assert len(turns) == VERBATIM_TURNS + 1 and turns[-1]["content"] == "How did my blog do this week?"
    assert [t["content"] for t in turns[:-1]] == [h["content"] for h in history[-VERBATIM_TURNS:]]
    system = p["messages"][0]["content"]
    assert "Earlier in this conversation (quoted" in system and "\n> user: Turn 24 says something." in system
    assert p["budget"]["conversation"]["summarized"] and p["budget"]["conversation"]["used"] <= LIMITS["conversation"]


def test_oversized_system_prompt_and_tools_are_bounded():
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": "d " * 300}} for i in range(10)]
    p = build(system_prompt="Rule one is important. " * 400, tools=tools)
    assert p["budget"]["system_prompt"]["used"] <= LIMITS["system_prompt"]
    assert p["budget"]["tools"]["used"] <= LIMITS["tools"] and p["budget"]["tools"]["dropped"] > 0
    assert [t["function"]["name"] for t in p["tools"]] == [f"tool_{i}" for i in range(len(p["tools"]))]
