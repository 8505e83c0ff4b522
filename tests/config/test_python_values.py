"""Strict values in Python: every keyword is checked by its declared type (a switch is a bool,
a number a number, a list option a list — or one item as itself, never a string read by
character), every positional path is a path (a DataFrame is not), and a wrong value is one
line naming the keyword, with nothing written. Hypothesis draws the wrong values."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import nli_pairs, write_jsonl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tailsplit
from tailsplit.config import SplitConfig
from tailsplit.config.declare import as_declared
from tailsplit.errors import ConfigError, TailsplitError


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if ".tailsplit-lock" not in p.name)


def test_overwrite_no_is_not_yes(data: Path, tmp_path: Path) -> None:
    first = tailsplit.split(data, "random", text="hypothesis", out=tmp_path / "o", seed=2)
    before = (tmp_path / "o" / "test.jsonl").read_bytes()
    with pytest.raises(ConfigError, match=r"^overwrite='no' is not True or False"):
        tailsplit.split(data, "random", text="hypothesis", out=tmp_path / "o", seed=3, overwrite="no")
    with pytest.raises(ConfigError, match=r"^overwrite=1 is not True or False"):
        first.write(tmp_path / "o", overwrite=1)
    assert (tmp_path / "o" / "test.jsonl").read_bytes() == before


def test_a_string_is_one_item_of_a_list_never_its_characters(data: Path, tmp_path: Path) -> None:
    tailsplit.split(data, "random", text="hypothesis", label="label", out=tmp_path / "split-folder")
    one = tailsplit.evaluate(str(tmp_path / "split-folder"), baselines="tfidf")
    many = tailsplit.evaluate([tmp_path / "split-folder"], baselines=["tfidf"])
    assert one.to_pandas().equals(many.to_pandas())
    with pytest.raises(ConfigError, match="no manifest.json"):
        tailsplit.evaluate(str(tmp_path / "no-such-split"))  # the folder named whole, not 'n', 'o', ...
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(f"a person number {i} walks\n" for i in range(20)), encoding="utf-8")
    audit = tailsplit.audit_overlap(data, corpus=str(corpus), text="premise")
    assert int(audit.to_pandas()["examples"].iloc[0]) == 30


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: tailsplit.split(d, "random", text="hypothesis", seed=True), r"^seed=True is not a whole number"),
        (
            lambda d: tailsplit.split(d, "random", text="hypothesis", dev_size="0.1"),
            r"^dev_size='0\.1' is not a number",
        ),
        (lambda d: tailsplit.split(d, "random", text=["hypothesis"]), r"^text=\['hypothesis'\] is not text"),
        (
            lambda d: tailsplit.split(d, "random", text="hypothesis", reverse="yes"),
            r"^reverse='yes' is not True or False",
        ),
        (
            lambda d: tailsplit.split(d, "random", text="hypothesis", progress="no"),
            r"^progress='no' is not True or False",
        ),
        (lambda d: tailsplit.split(d, "random", text="hypothesis", scores=3), r"^scores=3 is not a path"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_the_keyword(data: Path, call: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        call(data)


def test_a_dataframe_is_not_a_path(tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame({"id_acc": [0.1, 0.2], "ood_acc": [0.2, 0.3]})
    with pytest.raises(ConfigError) as caught:
        tailsplit.correlate(frame)
    text = str(caught.value)
    assert text.startswith("points=<pandas.DataFrame> is not a path") and "\n" not in text
    with pytest.raises(ConfigError, match="^test=<pandas.DataFrame> is not a path"):
        tailsplit.audit_overlap(frame, corpus=["c.txt"])


def test_numpy_numbers_are_numbers(data: Path) -> None:
    result = tailsplit.split(data, "random", text="hypothesis", seed=np.int64(3), dev_size=np.float64(0.2))
    assert result.manifest["config"]["split"]["seed"] == 3 and type(result.manifest["config"]["split"]["seed"]) is int


def test_a_misspelt_attribute_is_refused() -> None:
    config = SplitConfig()
    with pytest.raises(ConfigError, match="SplitConfig has no option 'balance_label'; did you mean balance_labels"):
        config.balance_label = True  # type: ignore[attr-defined]
    config.balance_labels = True
    assert config.balance_labels is True


def run_hints() -> dict[str, Any]:
    """The type of every field of a run, by name (the names are unique across its sections)."""
    from tailsplit.config import CONFIG_SECTIONS, field_types

    return {name: hint for cls in CONFIG_SECTIONS.values() for name, hint in field_types(cls).items()}


WRONG_VALUES = st.sampled_from(
    ["no", "", "abc", 1, 0, 2.5, math.nan, math.inf, -1, 10**30, True, None, [], ["x"], {"a": 1}, object()]
)
KEYWORDS = ["seed", "dev_size", "test_size", "reverse", "balance_labels", "overwrite", "null_splits", "label",
            "group", "length_buckets", "format", "analysis_text"]  # fmt: skip


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(KEYWORDS), value=WRONG_VALUES)
def test_any_wrong_keyword_value_is_one_line_naming_it_with_nothing_written(
    tmp_path: Path, name: str, value: Any
) -> None:
    """A value of the wrong type is refused first, naming the keyword in Python's spelling; a
    value of the right type either works or is refused in one line; nothing is written either way."""
    from tailsplit.config.values import value_has_type

    hint = run_hints()[name]
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    out = Path(tempfile.mkdtemp(dir=tmp_path)) / "out"  # a new folder for each drawn case
    try:
        tailsplit.split(data, "random", text="hypothesis", analyze=False, out=out, **{name: value})
    except TailsplitError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) < 400, message
        assert "--" not in message, message  # keywords, never flags, in Python
        if not value_has_type(value, hint):
            assert message.startswith(f"{name}="), message
        assert not out.exists()
    else:
        assert value_has_type(value, hint), (name, value)


PATH_VALUES = st.sampled_from([3, 2.5, None, True, {"a": 1}, object(), b"bytes"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    call=st.sampled_from(["correlate", "audit_overlap", "evaluate", "similarity", "ood_rank", "analyze", "export_hf"]),
    value=PATH_VALUES,
)
def test_any_wrong_positional_path_is_one_line_naming_it(tmp_path: Path, call: str, value: Any) -> None:
    calls = {
        "correlate": lambda: tailsplit.correlate(value),
        "audit_overlap": lambda: tailsplit.audit_overlap(value, corpus=["c.txt"]),
        "evaluate": lambda: tailsplit.evaluate(value),
        "similarity": lambda: tailsplit.similarity(value),
        "ood_rank": lambda: tailsplit.ood_rank(value, "c.csv"),
        "analyze": lambda: tailsplit.analyze(value),
        "export_hf": lambda: tailsplit.export_hf(value, tmp_path / "hf"),
    }
    with pytest.raises(ConfigError) as caught:
        calls[call]()
    message = str(caught.value)
    assert "is not a path" in message and "\n" not in message, message
    assert not (tmp_path / "hf").exists()


def _public_calls() -> dict[str, tuple[Any, type | None, tuple[str, ...]]]:
    """Each public command function: (a call with placeholder inputs, its config class —
    ``None`` for the run's four sections — and the fields its positional arguments set)."""
    from tailsplit import config as c

    return {
        "likelihood_split": (lambda **kw: tailsplit.likelihood_split("d.jsonl", **kw), None, ()),
        "split": (lambda **kw: tailsplit.split("d.jsonl", "random", **kw), None, ("splitter",)),
        "score": (lambda **kw: tailsplit.score("d.jsonl", **kw), c.ScoringConfig, ()),
        "analyze": (lambda **kw: tailsplit.analyze("s", **kw), c.AnalyzeConfig, ("split_dir", "compare")),
        "evaluate": (lambda **kw: tailsplit.evaluate("s", **kw), c.EvaluateConfig, ("split_dirs",)),
        "audit_overlap": (lambda **kw: tailsplit.audit_overlap("t.jsonl", **kw), c.OverlapConfig, ("test",)),
        "similarity": (lambda **kw: tailsplit.similarity("a.jsonl", **kw), c.SimilarityConfig, ("datasets",)),
        "ood_rank": (lambda **kw: tailsplit.ood_rank("i.jsonl", "c.csv", **kw), c.OodRankConfig, ("id", "candidates")),
        "correlate": (lambda **kw: tailsplit.correlate("p.csv", **kw), c.CorrelateConfig, ("points",)),
        "curve": (lambda **kw: tailsplit.curve("i.jsonl", "o.jsonl", **kw), c.CurveConfig, ("id", "ood")),
        "export_hf": (lambda **kw: tailsplit.export_hf("s", "hf", **kw), c.HfExportConfig, ("split_dir", "out")),
        "export_lm_eval": (
            lambda **kw: tailsplit.export_lm_eval("s", "lm", **kw),
            c.LmEvalExportConfig,
            ("split_dir", "out"),
        ),
    }


CALLS = _public_calls()
HOSTILE = st.sampled_from(
    ["no", "abc", 1, 2.5, math.nan, -(10**40), 10**40, True, ["x", 1], {"a": 1}, object(), b"x", ("a", "b")]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(call=st.sampled_from(sorted(CALLS)), data=st.data())
def test_every_public_call_refuses_a_keyword_of_the_wrong_type_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str, data: Any
) -> None:
    """For every public function, a keyword given a value its declared type does not take
    (a string for a list, a truthy non-bool, a number for text, a huge or NaN number where text
    goes, an object) is refused in one line that starts with the keyword — before any input
    is read, so placeholder paths suffice — and nothing is written."""
    import dataclasses

    from tailsplit.config.declare import field_types
    from tailsplit.config.values import value_has_type

    monkeypatch.chdir(tmp_path)
    function, cls, given_fields = CALLS[call]
    hints = run_hints() if cls is None else field_types(cls)
    names = sorted(n for n in hints if n not in given_fields and n not in ("paths", "dataset"))
    if cls is not None:
        names = [n for n in names if n in {f.name for f in dataclasses.fields(cls)}]
    name = data.draw(st.sampled_from(names), label="keyword")
    value = data.draw(HOSTILE, label="value")
    hint = hints[name]
    if value_has_type(as_declared(value, hint), hint):
        return  # a value of the right type (or one item of a list option): the inputs decide
    with pytest.raises(ConfigError) as caught:
        function(**{name: value})
    message = str(caught.value)
    assert message.startswith(f"{name}=") and "\n" not in message and len(message) < 300, message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("call", sorted(CALLS))
def test_every_keyword_of_every_public_call_refuses_every_wrong_type(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    """The draws above, made exhaustively: every keyword of the call against every hostile value
    its type does not take."""
    import dataclasses

    from tailsplit.config.declare import field_types
    from tailsplit.config.values import value_has_type

    monkeypatch.chdir(tmp_path)
    function, cls, given_fields = CALLS[call]
    hints = run_hints() if cls is None else field_types(cls)
    fields = set(hints) if cls is None else {f.name for f in dataclasses.fields(cls)}
    values = ["no", "abc", 1, 2.5, math.nan, 10**40, True, ["x", 1], {"a": 1}, object(), b"x", ("a", "b")]
    checked = 0
    for name in sorted(fields - set(given_fields) - {"paths", "dataset", "table"}):
        for value in values:
            if value_has_type(as_declared(value, hints[name]), hints[name]):
                continue  # a value of the right type (or one item of a list option)
            with pytest.raises(ConfigError) as caught:
                function(**{name: value})
            assert str(caught.value).startswith(f"{name}="), (name, value, str(caught.value))
            checked += 1
    assert checked >= 10 and list(tmp_path.iterdir()) == []


def _every_declared_field() -> list[tuple[type, str]]:
    import dataclasses

    from tailsplit.config import COMMAND_CONFIGS, DataConfig, OutputConfig, ScoringConfig, declared_option

    classes = [DataConfig, ScoringConfig, SplitConfig, OutputConfig, *COMMAND_CONFIGS]
    return [
        (cls, f.name)
        for cls in dict.fromkeys(classes)
        for f in dataclasses.fields(cls)
        if (declared := declared_option(f)) is not None and declared.metavar != "FIELD"
    ]


@pytest.mark.parametrize(("cls", "name"), _every_declared_field(), ids=lambda v: getattr(v, "__name__", v))
def test_a_value_of_the_wrong_type_gets_one_message_with_a_real_example(cls: type, name: str) -> None:
    import re

    from tailsplit.errors import keyword_text

    with pytest.raises(ConfigError) as raised:
        cls(**{name: object()})
    said = keyword_text(str(raised.value))
    match = re.fullmatch(rf"{name}=<builtins\.object> is not (.+); give \1, e.g. {name}=(.+)", said)
    assert match, said
    assert "'...'" not in said and not match.group(2).startswith("<")


def test_numpy_switches_are_switches_as_numpy_numbers_are_numbers() -> None:
    assert SplitConfig(balance_labels=np.bool_(True)).balance_labels is True
