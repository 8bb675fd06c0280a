"""domain/text.py: the one tokeniser and stop-word list, with hand-written expectations."""
from __future__ import annotations

from domain.text import STOP, content_words, doc_row, words


def test_a_word_is_a_run_of_letters_and_digits_lower_cased_and_underscores_split():
    assert words("Caroline's 5K_run, in São Paulo!") == ["caroline", "s", "5k", "run", "in", "são", "paulo"]
    assert words("") == [] and words("👍 ...") == []


def test_joined_keeps_an_apostrophe_or_hyphen_inside_a_word():
    assert words("Don't stop the X-ray -- it's 'fine'", joined=True) == ["don't", "stop", "the", "x-ray", "it's", "fine"]
    assert words("Don't stop the X-ray", joined=False) == ["don", "t", "stop", "the", "x", "ray"]


def test_content_words_drop_stop_words_and_short_words():
    assert content_words("What did I say about the new pottery class in May?") == ["say", "new", "pottery", "class"]
    assert {"what", "did", "i", "about", "the", "in", "may"} <= STOP and not {"say", "new", "pottery"} & STOP


def test_what_an_index_keeps_counts_stop_words_in_the_length_only():
    # "Mel: the cat and the dog" -> 6 words; "the" x2, "and" are stop words
    assert doc_row("Mel", "the cat and the dog") == (6, ["mel", "cat", "dog"], [1, 1, 1])
