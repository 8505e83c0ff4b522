"""Prompt templates: the text that conditions the scored query.

A template is a string that ends with ``{text}``: everything before it is the prompt, and
only the query's tokens are scored. Placeholders name roles (``{text}``, ``{context}``,
``{label}``) or any field of the record. ``{label}`` is written through ``label_words``
when the template has them (SNLI: ``contradiction`` → ``a contradiction``).
"""

from __future__ import annotations

import difflib
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.fields import field_value, is_field_path


class _FieldFormatter(string.Formatter):
    """``str.format`` whose placeholders are field names or dotted paths into nested records."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, str]:
        return field_value(kwargs, field_name), field_name


_FIELDS = _FieldFormatter()

QUERY = "{text}"


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt with placeholders, ending in the scored ``{text}``.

    >>> t = BUILTIN_TEMPLATES["spider"]
    >>> t.render({}, text="How many heads?", context=None, label=None)
    ('write a database question: ', 'How many heads?')
    """

    name: str
    template: str
    label_words: Mapping[str, str] = field(default_factory=dict)

    @keyword_spelling  # a template built in Python is refused in Python's words
    def __post_init__(self) -> None:
        try:
            list(string.Formatter().parse(self.template))
        except ValueError as exc:
            raise ConfigError(
                f"--template={self.template!r} is not a valid template ({exc}); write a literal brace as {{{{ or }}}}"
            ) from None
        if not self.template.endswith(QUERY):
            raise ConfigError(
                f"--template={self.template!r} does not end with {QUERY}; the scored "
                "query must come last, e.g. 'Question: {text}'"
            )
        for name in self.placeholders:
            if name == "text":
                continue
            if not is_field_path(name):
                raise ConfigError(
                    f"--template={self.template!r} has placeholder {{{name}}}; "
                    "use role names {context}/{label}, field names or dotted paths ({example.premise})"
                )
        if self.prefix_template.count(QUERY):
            raise ConfigError(f"--template={self.template!r} uses {QUERY} twice; use it once, at the end")

    @property
    def prefix_template(self) -> str:
        return self.template[: -len(QUERY)]

    @property
    def placeholders(self) -> list[str]:
        return [name for _, name, _, _ in string.Formatter().parse(self.template) if name is not None]

    def needs(self, role: str) -> bool:
        return role in self.placeholders

    def render(
        self, record: Mapping[str, Any], *, text: str, context: str | None, label: str | None
    ) -> tuple[str, str]:
        """(prompt, query) for one example; the prompt may be empty."""
        values: dict[str, Any] = dict(record)
        values["text"] = text
        if context is not None:
            values["context"] = context
        if label is not None and self.needs("label"):
            values["label"] = self._label_word(label)
        try:
            prompt = _FIELDS.vformat(self.prefix_template, (), values)
        except KeyError as exc:
            raise ConfigError(self._missing_message(str(exc.args[0]))) from None
        return prompt, text

    def _label_word(self, label: str) -> str:
        if not self.label_words:
            return label
        if label not in self.label_words:
            raise ConfigError(
                f"--template={self.name!r} has no word for label {label!r} (it knows "
                f"{sorted(self.label_words)}); pass --label-word {label}=WORD"
            )
        return self.label_words[label]

    def check_labels(self, labels: set[str] | None, given_words: Mapping[str, str]) -> None:
        """Refuse label words that cannot take effect: for a label the data does not have, for a
        template without ``{label}``, or missing for a label the data has."""
        if given_words and not self.needs("label"):
            raise ConfigError(
                f"--label-word is given but --template={self.name!r} has no {{label}}; drop "
                "--label-word or use a template with {label}"
            )
        empty = sorted(label for label, word in given_words.items() if not str(word).strip())
        if empty:
            raise ConfigError(
                f"--label-word gives label {empty[0]!r} an empty word; the prompt would not name the label, "
                "so give a word, e.g. --label-word contradiction='a contradiction'"
            )
        if not self.needs("label") or labels is None:
            return
        unknown = sorted(set(given_words) - labels)
        if unknown:
            raise ConfigError(
                f"--label-word names label {unknown[0]!r}, which no example has (labels: "
                f"{sorted(labels)}); check its spelling"
            )
        if self.label_words:
            missing = sorted(labels - set(self.label_words))
            if missing:
                self._label_word(missing[0])

    def _missing_message(self, name: str) -> str:
        option = {"context": "--context", "label": "--label"}.get(name)
        fix = f"name the field with {option}" if option else "use a template whose fields the data has"
        return f"--template={self.name!r} uses {{{name}}} but the examples have no such field; {fix}"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "template": self.template, "label_words": dict(self.label_words)}


BUILTIN_TEMPLATES: dict[str, PromptTemplate] = {
    "plain": PromptTemplate("plain", "{text}"),
    "spider": PromptTemplate("spider", "write a database question: {text}"),
    "boolq": PromptTemplate("boolq", "Passage: {context} Ask a question about the passage: {text}"),
    "snli": PromptTemplate(
        "snli",
        "Premise: {context} This hypothesis is {label}: {text}",
        label_words={"entailment": "entailed", "neutral": "neutral", "contradiction": "a contradiction"},
    ),
}


@keyword_spelling
def resolve_template(spec: str, label_words: Mapping[str, str] | None = None) -> PromptTemplate:
    """A built-in name, or a literal template (anything containing ``{text}``)."""
    if QUERY in spec:
        template = PromptTemplate("custom", spec, dict(label_words or {}))
    elif spec in BUILTIN_TEMPLATES:
        template = BUILTIN_TEMPLATES[spec]
        if label_words:
            template = PromptTemplate(template.name, template.template, {**template.label_words, **label_words})
    else:
        close = difflib.get_close_matches(spec, list(BUILTIN_TEMPLATES), n=1, cutoff=0.6)
        raise ConfigError(
            f"--template={spec!r} is neither a built-in ({sorted(BUILTIN_TEMPLATES)}) "
            "nor a template string ending in {text}" + (f"; did you mean {close[0]!r}?" if close else "")
        )
    return template
