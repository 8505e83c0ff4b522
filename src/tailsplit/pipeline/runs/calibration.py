"""``--members`` and ``--non-members``: texts whose membership in the model's training data is
known, read with the data's fields and checked before any model loads, then scored by the
same scorer as the data (its cache too) for the membership scores' calibration table
(:mod:`tailsplit.scoring.membership_calibration`)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, NamedTuple

import numpy as np

from tailsplit.config import ScoringConfig
from tailsplit.core import Dataset
from tailsplit.errors import ConfigError, InputError
from tailsplit.io.examples import load_examples
from tailsplit.pipeline.runs.checks import check_template_fields
from tailsplit.progress import announce
from tailsplit.prompts import PromptTemplate
from tailsplit.scoring.driver import score_examples
from tailsplit.scoring.membership_calibration import calibration_table

MIN_KNOWN = 10  # texts on each side: fewer give an interval that says nothing


class KnownTexts(NamedTuple):
    """The texts known to be members and those known not to be, loaded."""

    members: Dataset
    non_members: Dataset


def plan_calibration(dataset: Dataset, config: ScoringConfig, template: PromptTemplate) -> KnownTexts | None:
    """The known texts loaded and checked — both sides given, each with at least ``MIN_KNOWN``
    texts and the fields the template reads, no text on both sides — or ``None`` without them."""
    if not config.members and not config.non_members:
        return None
    if not config.members or not config.non_members:
        given, missing = ("--members", "--non-members") if config.members else ("--non-members", "--members")
        raise ConfigError(f"{given} needs {missing} too: a calibration compares the two; give both files")
    fields = dataclasses.replace(dataset.fields, group=None, program=None)
    if not template.needs("label"):
        fields = dataclasses.replace(fields, label=None)
    sides = KnownTexts(load_examples(config.members, fields), load_examples(config.non_members, fields))
    for option, side in zip(("--members", "--non-members"), sides):
        if len(side) < MIN_KNOWN:
            raise ConfigError(
                f"{option} holds {len(side)} texts; a calibration needs at least {MIN_KNOWN} on each side"
            )
        check_template_fields(side, template)
    _refuse_shared(sides)
    return sides


def _refuse_shared(sides: KnownTexts) -> None:
    """A text both known to be and known not to be a member is a mistake in the files."""
    members = {(c, t): i for i, (c, t) in enumerate(zip(_contexts(sides.members), sides.members.texts))}
    rows = Counter[str]()
    for i, key in enumerate(zip(_contexts(sides.non_members), sides.non_members.texts)):
        source = sides.non_members.sources[i]
        rows[source] += 1
        if key in members:
            raise InputError(
                f"holds a text that --members holds too ({sides.members.sources[members[key]]}, id "
                f"{sides.members.ids[members[key]]!r})",
                path=source,
                row=rows[source],
                field=sides.non_members.fields.text,
                fix="a text is a member or not: drop it from one side",
            )


def _contexts(dataset: Dataset) -> tuple[str, ...] | list[None]:
    return dataset.contexts if dataset.contexts is not None else [None] * len(dataset)


def calibrate(
    known: KnownTexts, template: PromptTemplate, scorer: Any, cache: Any, config: ScoringConfig, *,
    reference: Any = None, progress: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """The known texts scored as the data was, and the calibration table of their scores."""
    announce(progress, f"scoring {len(known.members):,} known members and {len(known.non_members):,} non-members")
    columns: dict[str, list[np.ndarray]] = {}
    for side in known:
        scored, _ = score_examples(
            side, template, scorer, cache, progress=progress, membership_k=config.membership_k, reference=reference
        )
        for name, values in (scored.membership or {}).items():
            columns.setdefault(name, []).append(np.asarray(values, dtype=np.float64))
    is_member = np.array([True] * len(known.members) + [False] * len(known.non_members))
    table = calibration_table({name: np.concatenate(parts) for name, parts in columns.items()}, is_member)
    return {"members": list(config.members), "non_members": list(config.non_members), **table}
