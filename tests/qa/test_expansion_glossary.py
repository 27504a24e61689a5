"""The demo glossary's English entries let an English question search in the demo documents' own words."""

from __future__ import annotations

from qa.expansion import dictionary_rules, expand


def test_english_workplace_terms_expand_to_the_japanese_words_the_documents_use(demo_glossary):
    expansion = expand("How many days of paid leave do I get?", rules=dictionary_rules())
    assert "有給休暇" in expansion.added_keywords
    hotel = expand("What is the hotel limit on a business trip?", rules=dictionary_rules())
    assert {"宿泊費", "出張"} <= set(hotel.added_keywords)
    # A Japanese question expands exactly as it does without the English entries.
    rules = dictionary_rules()
    japanese_only = [(term, words) for term, words in rules if not term.isascii()]
    for question in ("有給休暇は何日？", "パスワードを忘れたらどうすればいい？", "出張のホテル代の上限は？"):
        assert expand(question, rules=rules).added_keywords == expand(question, rules=japanese_only).added_keywords


def test_the_dictionary_is_read_again_only_when_an_entry_was_added_edited_or_removed(db, django_assert_num_queries):
    from qa.models import SynonymEntry

    bonus = SynonymEntry.objects.create(term="ボーナス", expansions="賞与")
    assert dictionary_rules() == [("ボーナス", ["賞与"])]
    with django_assert_num_queries(1):  # unchanged: only its fingerprint is read
        assert dictionary_rules() == [("ボーナス", ["賞与"])]

    bonus.expansions = "賞与,期末手当"
    bonus.save()
    assert dictionary_rules() == [("ボーナス", ["賞与", "期末手当"])]
    SynonymEntry.objects.create(term="有休", expansions="年次有給休暇")
    assert dict(dictionary_rules()) == {"ボーナス": ["賞与", "期末手当"], "有休": ["年次有給休暇"]}
    bonus.delete()
    assert dictionary_rules() == [("有休", ["年次有給休暇"])]
