from __future__ import annotations

import pytest

from tailsplit.errors import ConfigError
from tailsplit.prompts import BUILTIN_TEMPLATES, resolve_template


def test_paper_prompts_render_with_the_query_last() -> None:
    snli = BUILTIN_TEMPLATES["snli"]
    assert snli.render({}, text="A man sleeps.", context="A man naps.", label="contradiction") == (
        "Premise: A man naps. This hypothesis is a contradiction: ",
        "A man sleeps.",
    )
    boolq = BUILTIN_TEMPLATES["boolq"]
    assert (
        boolq.render({}, text="is it?", context="Text.", label=None)[0]
        == "Passage: Text. Ask a question about the passage: "
    )
    assert BUILTIN_TEMPLATES["plain"].render({}, text="q", context=None, label=None) == ("", "q")


def test_custom_templates_may_use_record_fields() -> None:
    template = resolve_template("Database {db_id}: {text}")
    assert template.render({"db_id": "concert"}, text="How many?", context=None, label=None)[0] == "Database concert: "


def test_label_words_can_be_overridden() -> None:
    template = resolve_template("snli", {"neutral": "possibly true"})
    assert template.render({}, text="h", context="p", label="neutral")[0].endswith("possibly true: ")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("Question: {text} please", "does not end with"),
        ("nosuch", "neither a built-in"),
        ("{text} and {text}", "twice"),
    ],
)
def test_bad_templates_are_refused(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_template(spec)


def test_unknown_label_and_missing_field_are_explained() -> None:
    with pytest.raises(ConfigError, match="no word for label 'maybe'.*--label-word maybe=WORD"):
        BUILTIN_TEMPLATES["snli"].render({}, text="h", context="p", label="maybe")
    with pytest.raises(ConfigError, match=r"uses \{db_id\}"):
        resolve_template("{db_id}: {text}").render({}, text="h", context=None, label=None)
