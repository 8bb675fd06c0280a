"""A question's words in their other forms (projections/lexical.py: forms, other_forms, with_forms)."""
from projections.lexical import BM25Index, forms, other_forms, query_terms, with_forms


def test_a_past_tense_finds_the_ing_form_and_the_plural_the_singular():
    assert {"camp", "camping", "camps"} <= set(forms("camped"))
    assert {"hike", "hiked", "hiking"} <= set(forms("hikes"))
    assert {"paint", "painting", "paintings", "paints"} <= set(forms("painted"))
    assert {"run", "runs"} <= set(forms("running"))
    assert {"study", "studying", "studied"} <= set(forms("studies"))
    assert forms("camped")[0] == "camped"


def test_short_words_and_numbers_are_only_themselves_and_no_form_changes_meaning():
    assert forms("art") == ("art",) and forms("5k") == ("5k",) and forms("2023") == ("2023",)
    assert "camper" not in forms("camped")  # another stem: a person, not the act
    assert "cap" not in forms("camped") and "paste" not in forms("painted")
    # "Would Caroline likely ...?" asks for an inference, not for what she likes
    assert forms("likely") == ("likely",) and forms("recently") == ("recently",)


def test_other_forms_leave_out_the_question_s_own_words():
    terms = query_terms("Where has Melanie camped and camping?")
    got = other_forms(terms)
    assert "camp" in got and "camping" not in got and "camped" not in got and "melanie" not in got


def test_a_message_saying_another_form_is_found_at_a_share_of_the_own_word():
    idx = BM25Index([("beach", "Here's a pic of my family camping at the beach"),
                     ("camped", "We camped by the lake"), ("pizza", "We had pizza tonight"),
                     ("work", "Work was busy")])
    terms = query_terms("Where has Melanie camped?")
    own, other = idx.scores(terms), idx.scores(other_forms(terms))
    assert set(own) == {"camped"} and set(other) == {"beach"}
    got = with_forms(own, other, share=0.5)
    assert got["camped"] == own["camped"] and got["beach"] == 0.5 * other["beach"]
    assert with_forms(own, other, share=0.0) == own
