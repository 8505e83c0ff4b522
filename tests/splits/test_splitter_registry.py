"""Invariants of every splitter in the registry — a new splitter is checked by being registered."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_split, program_inputs

from tailsplit.errors import ConfigError
from tailsplit.splits import SPLITTERS, make_splitter

VARIANTS = {  # each registered splitter with its defaults, and with every boolean option it accepts on
    name: [{}]
    + [{option: True} for option in ("balance_labels", "atom_constraint", "reverse") if option in cls().get_params()]
    for name, cls in SPLITTERS.items()
}
FAST = {"aflite": {"partitions": 8}}  # fewer classifiers per round: the invariants do not depend on them
CASES = [(name, {**FAST.get(name, {}), **params}) for name in sorted(VARIANTS) for params in VARIANTS[name]]


def _ids(case: tuple[str, dict]) -> str:
    name, params = case
    return name + "".join(f"-{k}" for k in params)


def test_every_registered_splitter_is_covered() -> None:
    assert {name for name, _ in CASES} == set(SPLITTERS) and len(SPLITTERS) >= 5


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_every_registered_splitter_partitions_with_exact_sizes_deterministically(case) -> None:
    name, params = case
    splitter = make_splitter(name, **params)
    data = program_inputs(600, seed=1)
    split = splitter.split(data)
    check_split(split, 600, n_dev=60, n_test=60)
    again = make_splitter(name, **params).split(program_inputs(600, seed=1))
    assert all(np.array_equal(x, y) for x, y in zip(split.parts().values(), again.parts().values()))


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_every_registered_splitter_keeps_groups_whole_or_refuses_them(case) -> None:
    name, params = case
    data = program_inputs(600, seed=2, group_size=3)
    try:
        split = make_splitter(name, **params).split(data)
    except ConfigError as exc:  # a splitter that cannot keep groups says so
        assert "group" in str(exc)
        return
    check_split(split, 600)
    part_of = split.assignment(600)
    for group in np.unique(data.groups):
        assert len(set(part_of[data.groups == group])) == 1


def test_one_list_of_splitter_names_and_one_rule_per_parameter() -> None:
    """One registration per splitter (tailsplit.registry.SPLITTER_CLASSES): the config's
    --splitter choices and the class map both read it (every name a class of that name, each
    named in the option's help), and a splitter built in Python checks its parameters by the
    config's declarations."""
    import dataclasses

    import pytest

    from tailsplit.config import SplitConfig
    from tailsplit.config.declare import declared_option
    from tailsplit.errors import ConfigError
    from tailsplit.registry import SPLITTER_CLASSES
    from tailsplit.splits import SPLITTERS, AfliteSplitter, LikelihoodSplitter

    option = declared_option(next(f for f in dataclasses.fields(SplitConfig) if f.name == "splitter"))
    assert option is not None and option.choices == tuple(SPLITTERS) == SPLITTER_CLASSES.listed()
    assert all(cls.name == name and name in option.help for name, cls in SPLITTERS.items())
    for value in (0.0, 1.0):  # the config and the splitter refuse the same train shares
        with pytest.raises(ConfigError, match="train_share"):
            SplitConfig(train_share=value)
        with pytest.raises(ConfigError, match="train_share"):
            AfliteSplitter(train_share=value)
    for bad in ({"rounds": 0}, {"partitions": 0}, {"predictability_threshold": 1.5}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            AfliteSplitter(**bad)
    with pytest.raises(ConfigError, match="length_buckets='ten' is unknown"):
        LikelihoodSplitter(length_buckets="ten")
    assert LikelihoodSplitter(length_buckets="exact").length_buckets == "exact"
    assert LikelihoodSplitter(length_buckets=10).length_buckets == 10
