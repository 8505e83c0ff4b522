"""Commands as one Python call: keyword arguments are the run's config fields, by name.

``tailsplit.likelihood_split(df, text="hypothesis", context="premise", label="label",
template="snli", balance_labels=True)`` is ``tailsplit run`` with those options: every keyword
is a field of :class:`~tailsplit.DataConfig`, :class:`~tailsplit.ScoringConfig`,
:class:`~tailsplit.SplitConfig` or :class:`~tailsplit.OutputConfig` (their names are unique
across the four, so each keyword has one place), checked as the command line's options are.
``data`` is a path, a list of paths, or a table in memory (a pandas DataFrame, a pyarrow
Table, a ``datasets`` Dataset or DatasetDict, or a list of dicts).

Nothing is written unless ``out`` is given; the analysis against random splits is computed
in memory when ``analyze=True`` is passed (with ``out`` it is on by default, as on the
command line). The progress bar shows when a person is watching (a terminal, or a notebook);
``progress=False`` turns it off.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

from tailsplit.config import CONFIG_SECTIONS, RunConfig, field_types, keyword_values, refuse_unknown
from tailsplit.config.arguments import path_argument, switch_argument
from tailsplit.errors import ConfigError, keyword_spelling
from tailsplit.pipeline.result import RunResult
from tailsplit.pipeline.runs import run
from tailsplit.progress import watched
from tailsplit.splits import Splitter

SECTION_OF: dict[str, str] = {
    f.name: section for section, cls in CONFIG_SECTIONS.items() for f in dataclasses.fields(cls) if f.name != "table"
}
TYPE_OF: dict[str, Any] = {name: field_types(CONFIG_SECTIONS[section])[name] for name, section in SECTION_OF.items()}


@keyword_spelling
def likelihood_split(data: Any, *, progress: bool | None = None, **options: Any) -> RunResult:
    """Score every example with a causal LM (the bundled SmolLM2 unless ``model=``), then put
    the least likely into dev and test: ``tailsplit run``. ``options`` are the run's config
    fields (``text``, ``context``, ``label``, ``template``, ``dev_size``, ``test_size``,
    ``balance_labels``, ``length_buckets``, ``group``, ``model``, ``reverse``, ``out``, ...).

    >>> result = likelihood_split("snli.jsonl", text="hypothesis", context="premise",
    ...                           label="label", template="snli")  # doctest: +SKIP
    >>> result.to_pandas().part.value_counts()  # doctest: +SKIP
    """
    switch_argument("progress", progress)
    config, analyze = run_config(data, {"splitter": "likelihood", **options})
    return run(config, progress=watched() if progress is None else progress, analyze_in_memory=analyze)


@keyword_spelling
def split(
    data: Any,
    splitter: str | Splitter = "random",
    *,
    scores: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    **options: Any,
) -> RunResult:
    """Split without scoring: ``tailsplit split``. ``splitter`` is a splitter object — the
    typed path, its parameters on it, as scikit-learn's splitters carry theirs — or the name of
    one (``random``, ``length``, ``template``, ``tmcd``, ``aflite`` or ``likelihood``) with its
    parameters as keywords. A likelihood split reads its scores from ``scores`` (a file of
    ``tailsplit score``) or ``score_column=``; ``options`` are the run's config fields, as for
    :func:`likelihood_split` (a splitter object's parameters are not given again as keywords).

    >>> result = split("snli.jsonl", RandomSplitter(seed=3), text="hypothesis", label="label")  # doctest: +SKIP
    >>> result = split("snli.jsonl", "random", text="hypothesis", label="label", seed=3)  # doctest: +SKIP
    """
    switch_argument("progress", progress)
    config, analyze = run_config(data, {**splitter_options(splitter, options), **options})
    return run(
        config,
        scores_path=None if scores is None else path_argument("scores", scores, "a score file"),
        progress=watched() if progress is None else progress,
        score_missing=False,
        analyze_in_memory=analyze,
    )


def splitter_options(splitter: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The config fields a splitter argument sets: its name, and for a splitter object its
    parameters (one also given as a keyword is refused: it would be said twice)."""
    if not isinstance(splitter, Splitter):
        return {"splitter": splitter}
    params = splitter.get_params()
    twice = sorted(set(params) & set(options))
    if twice:
        raise ConfigError(
            f"{twice[0]}={options[twice[0]]!r} is given as a keyword and by {type(splitter).__name__}; set it on "
            f"the splitter, e.g. {type(splitter).__name__}({twice[0]}={options[twice[0]]!r})"
        )
    return {"splitter": splitter.name, **params}


def run_config(data: Any, options: dict[str, Any]) -> tuple[RunConfig, bool]:
    """The run's config from ``data`` and keyword ``options`` (each set on the section that
    declares it, then every section checked), and whether the analysis is asked for in
    memory (``analyze=True`` without ``out``)."""
    refuse_unknown(options, SECTION_OF)
    for name in ("paths", "dataset"):
        if name in options:
            raise ConfigError(f"{name}= is given as data (the first argument); pass data={options[name]!r}")
    sections: dict[str, dict[str, Any]] = {section: {} for section in CONFIG_SECTIONS}
    for name, value in keyword_values(options, TYPE_OF).items():
        sections[SECTION_OF[name]][name] = value
    sections["data"].update(_data_fields(data))
    config = RunConfig(**{section: CONFIG_SECTIONS[section](**values) for section, values in sections.items()})
    return config, bool(options.get("analyze")) and config.output.out is None


def _data_fields(data: Any) -> dict[str, Any]:
    """``paths`` for a path or a list of paths; ``table`` for anything else."""
    if isinstance(data, (str, os.PathLike)):
        return {"paths": [os.fspath(data)]}
    if isinstance(data, Sequence) and data and all(isinstance(item, (str, os.PathLike)) for item in data):
        return {"paths": [os.fspath(item) for item in data]}
    if data is None:
        raise ConfigError("data=None; pass a path, a list of paths, or a table (DataFrame, list of dicts, ...)")
    return {"table": data}
