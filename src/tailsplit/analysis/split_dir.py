"""Read a split folder written by ``tailsplit run`` / ``split`` back into analysis columns.

The folder is self-describing: ``manifest.json`` names the fields and options, the part
files hold every example, ``scores.parquet`` (when present) the exact scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.analysis.split_analysis import AnalysisInputs, annotator_agreement
from tailsplit.config import DataConfig
from tailsplit.config.recorded import recorded_run
from tailsplit.config.run import CONFIG_SECTIONS, RunConfig
from tailsplit.core import SPLIT_PARTS
from tailsplit.errors import ConfigError, InputError
from tailsplit.fingerprint import sha256_file
from tailsplit.io.examples import label_to_str
from tailsplit.io.manifest import MANIFEST, Manifest, read_manifest_file
from tailsplit.io.readers import read_all
from tailsplit.io.scores import MEMBERSHIP_PREFIX, arrow_order
from tailsplit.programs.sets import extract_program_features
from tailsplit.registry import EXTRACTORS


def read_manifest(folder: Path, *, accept_modified: bool = False) -> Manifest:
    """The folder's manifest, after checking that every data file it lists (the parts and
    ``scores.parquet``) still has the hash tailsplit wrote: a split folder edited since (a row
    removed, a file emptied, a training row copied into dev) is refused, naming the file.
    ``accept_modified`` reads it anyway; the manifest returned then lists the changed files
    under ``modified_files`` (and the command's own manifest records them)."""
    path = folder / MANIFEST
    if not path.is_file():
        raise ConfigError(
            f"split_dir={str(folder)!r} has no manifest.json; give a folder written by tailsplit run or tailsplit split"
        )
    manifest = read_manifest_file(path)
    if any(section in manifest.config.values for section in CONFIG_SECTIONS):
        RunConfig.from_dict(dict(manifest.config.values), source=str(path), strict=False)  # each key's type checked
    modified = modified_files(folder, manifest)
    if modified and not accept_modified:
        name, problem = modified[0]
        raise InputError(
            f"{problem} since tailsplit wrote it (its manifest.json records another sha256)",
            path=folder / name,
            fix="rewrite the split with tailsplit split, or pass --accept-modified to use the edited folder",
        )
    return manifest.with_modified([name for name, _ in modified])


def _is_data_file(name: str) -> bool:
    return name == "scores.parquet" or name.split("/")[0].split(".")[0] in SPLIT_PARTS


def modified_files(folder: Path, manifest: Manifest) -> list[tuple[str, str]]:
    """(file, what changed) for each data file the manifest lists whose content changed."""

    changed = []
    for name, digest in manifest.outputs.items():
        if not _is_data_file(name):
            continue
        path = folder / name
        if not path.is_file():
            changed.append((name, "is missing"))
        elif sha256_file(path) != digest:
            changed.append((name, "was changed"))
    return changed


def load_split_dir(
    folder: str | Path,
    text_kind: str | None = None,
    agreement_field: str | None = None,
    *,
    accept_modified: bool = False,
) -> AnalysisInputs:
    """Columns of every example of the split in ``folder``, in train, dev, test order.

    ``text_kind`` ("query" or "pair": context + query) defaults to what the run analysed;
    ``agreement_field`` names a field holding each example's annotator labels (a list; rows
    without it, or with an empty list, are not annotated)."""
    folder = Path(folder)
    manifest = read_manifest(folder, accept_modified=accept_modified)
    recorded = recorded_run(manifest)
    data = recorded.data
    text_kind = text_kind or recorded.output.analysis_text
    fields = _fields(folder, data, text_kind, agreement_field)
    c = _read_columns(folder, manifest, fields, agreement_field)
    if agreement_field is not None and not any(np.isfinite(a[0]) for a in c["agreement"]):
        raise no_annotations(agreement_field, f"example of the split in {str(folder)!r}")
    logprob_sum, n_tokens, membership = _scores(folder, manifest, c["ids"])
    program_field, pair_field = fields["program"], fields["pair"]
    return AnalysisInputs(
        name=folder.name,
        kind=describe_split(manifest),
        ids=tuple(c["ids"]),
        texts=tuple(c["texts"]),
        parts=np.asarray(c["parts"], dtype=object),
        labels=tuple(c["labels"]) if fields["label"] is not None else None,
        logprob_sum=logprob_sum,
        n_tokens=n_tokens,
        programs=_programs(c["programs"], data.program_kind, folder, data.count) if program_field else None,
        balance_labels=recorded.split.balance_labels,
        text_kind=text_kind,
        queries=tuple(c["queries"]),
        contexts=tuple(c["contexts"]) if pair_field is not None else None,
        agreement=np.asarray(c["agreement"], dtype=np.float64).reshape(-1, 2) if agreement_field is not None else None,
        agreement_field=agreement_field,
        membership=membership,
    )


def _fields(folder: Path, data: DataConfig, text_kind: str, agreement_field: str | None) -> dict[str, Any]:
    """The record fields the analysis reads, by role, from the run's ``[data]`` config:
    ``context`` only when the text is the pair, ``pair`` the context whenever there is one."""
    fields = {
        "text": data.text,
        "id": data.id,
        "label": data.label,
        "program": data.program,
        "context": data.context if text_kind == "pair" else None,
        "pair": data.context,
    }
    if agreement_field is not None and fields["label"] is None:
        raise ConfigError(
            f"--agreement-field={agreement_field!r} compares annotators with the gold label, and the split "
            f"in {str(folder)!r} has no label field"
        )
    if text_kind == "pair" and fields["context"] is None:
        raise ConfigError(
            f"--analysis-text='pair' needs a context field, and the split in {str(folder)!r} has none; "
            "use --analysis-text='query'"
        )
    return fields


def _read_columns(
    folder: Path, manifest: Manifest, fields: dict[str, Any], agreement_field: str | None
) -> dict[str, list[Any]]:
    """Each column the analysis reads, over train, dev and test in order."""
    out: dict[str, list[Any]] = {
        name: [] for name in ("ids", "texts", "queries", "contexts", "agreement", "labels", "programs", "parts")
    }
    text_field, context_field, pair_field = fields["text"], fields["context"], fields["pair"]
    for part in SPLIT_PARTS:
        raw = read_all(part_file(folder, manifest, part))
        columns = {
            name: [str(v) for v in _values(raw, name)]
            for name in (text_field, fields["id"], fields["program"], context_field, pair_field)
            if name is not None
        }
        labels = [label_to_str(v) for v in _values(raw, fields["label"])] if fields["label"] is not None else []
        out["ids"] += columns[fields["id"]]
        out["queries"] += columns[text_field]
        out["texts"] += (
            [pair_text(c, t) for c, t in zip(columns[context_field], columns[text_field])]
            if context_field
            else columns[text_field]
        )
        if pair_field is not None:
            out["contexts"] += columns[pair_field]
        out["parts"] += [part] * len(raw)
        out["labels"] += labels
        if agreement_field is not None:
            out["agreement"] += [record_agreement(r, agreement_field, gold) for r, gold in zip(raw, labels)]
        if fields["program"] is not None:
            out["programs"] += columns[fields["program"]]
    return out


def _values(raw: list[Any], name: str) -> list[Any]:
    """Field ``name`` of every record: by plain key when every record has it, else through
    each record's own lookup (dotted paths), a missing field a located error."""
    try:
        return [r.record[name] for r in raw]
    except (KeyError, TypeError):
        for r in raw:
            if not r.has(name):
                raise r.error("is missing", field=name, fix="analyze the folder tailsplit wrote, unchanged") from None
        return [r.value(name) for r in raw]


def no_annotations(agreement_field: str, where: str) -> ConfigError:
    """The refusal of an ``--agreement-field`` that no example (of ``where``) holds."""
    return ConfigError(
        f"--agreement-field={agreement_field!r}: no {where} has annotator labels there; name the field "
        "that holds each example's list of annotator labels"
    )


def record_agreement(raw: Any, name: str, gold: str) -> tuple[float, float]:
    """(agreement with gold, entropy) of one record's annotator labels; NaN when it has none."""

    value = raw.value(name) if raw.has(name) else None
    if value is None or value == []:
        return float("nan"), float("nan")
    if not isinstance(value, list) or not all(isinstance(v, (str, int, bool)) for v in value):
        raise raw.error(
            "is not a list of labels",
            field=name,
            fix="give each example a list of its annotators' labels, or leave the field out",
        )
    return annotator_agreement(gold, [label_to_str(v) for v in value])


def pair_text(context: str, text: str) -> str:
    """What the analysis reads of a pair: the context, then the query (two sentences or more)."""
    return f"{context.rstrip()} {text.lstrip()}"


def read_split_parts(folder: str | Path, *, accept_modified: bool = False) -> tuple[Manifest, dict[str, list[Any]]]:
    """(manifest, raw records of each part) of a split folder (verified: :func:`read_manifest`)."""
    folder = Path(folder)
    manifest = read_manifest(folder, accept_modified=accept_modified)
    return manifest, {part: read_all(part_file(folder, manifest, part)) for part in SPLIT_PARTS}


def describe_split(manifest: Manifest) -> str:
    """A short name of how the split was made, e.g. ``likelihood (prompted, length-controlled)``."""
    recorded = recorded_run(manifest)
    split = recorded.split
    splitter = manifest.splitter.name or "?"
    if splitter != "likelihood":
        return f"{splitter} (seed {split.seed})" if splitter == "random" else splitter
    notes = [manifest.method or recorded.scoring.method]  # the score file's own record first
    if split.length_buckets:
        notes.append("length-controlled")
    if split.reverse:
        notes.append("reverse")
    return f"likelihood ({', '.join(notes)})"


def part_file(folder: Path, manifest: Manifest, part: str) -> Path:
    outputs = manifest.outputs
    if any(name.startswith(f"{part}/") for name in outputs) and (folder / part).is_dir():
        return folder / part  # a save_to_disk folder (--format hf)
    names = [name for name in outputs if name.split(".")[0] == part]
    if not names or not (folder / names[0]).exists():
        raise ConfigError(
            f"split_dir={str(folder)!r} has no {part} file listed in its manifest; "
            "give a folder written by tailsplit run or tailsplit split"
        )
    return folder / names[0]


def listed_file(folder: Path, manifest: Manifest, name: str) -> Path | None:
    """``folder / name`` when the manifest lists it (its hash checked by :func:`read_manifest`
    for data files), else ``None``: a file tailsplit did not record is never read."""
    if name not in manifest.outputs:
        return None
    path = folder / name
    return path if path.is_file() else None


def listed_json(folder: Path, manifest: Manifest, name: str, *, accept_modified: bool) -> tuple[Any, Manifest]:
    """(the JSON file ``name`` of a split folder — a report such as ``analysis.json`` — or
    ``None``, the manifest): read only when the manifest lists it and its hash matches; a
    changed one is refused unless ``accept_modified``, which reads it and returns the manifest
    with it under ``modified_files``."""
    path = listed_file(folder, manifest, name)
    if path is None:
        return None, manifest
    if sha256_file(path) != manifest.outputs[name]:
        if not accept_modified:
            raise InputError(
                "was changed since tailsplit wrote it (its manifest.json records another sha256)",
                path=path,
                fix="run tailsplit analyze on the folder again, or pass --accept-modified",
            )
        manifest = manifest.with_modified([name])
    try:
        return json.loads(path.read_text(encoding="utf-8")), manifest
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot be read as JSON ({exc})", path=path, fix="run tailsplit analyze again") from None


def _scores(
    folder: Path, manifest: Manifest, ids: list[str]
) -> tuple[np.ndarray | None, np.ndarray | None, dict[str, np.ndarray] | None]:
    """The split's scores in the order of ``ids``: sums, token counts (``None``: scored
    elsewhere) and the membership scores where the score file holds them."""
    path = listed_file(folder, manifest, "scores.parquet")
    if path is None:
        return None, None, None
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        names = [n for n in pq.read_schema(path).names if n.startswith(MEMBERSHIP_PREFIX)]
        table = pq.read_table(path, columns=["id", "logprob_sum", "n_tokens", *names])
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise InputError(
            f"is not a tailsplit score file ({exc})", path=path, fix="rewrite the split with tailsplit split"
        ) from None
    matched = _matched_rows(table, ids)
    if matched is None:
        return *_scores_by_id(table.to_pydict(), ids, path), None if not names else _membership_by_id(table, ids)
    counts = matched.column("n_tokens")
    membership = {n.removeprefix(MEMBERSHIP_PREFIX): _floats(matched.column(n)) for n in names}
    return (
        matched.column("logprob_sum").to_numpy().astype(np.float64),
        None if counts.null_count else counts.to_numpy().astype(np.int64),  # None: scored elsewhere
        membership or None,
    )


def _floats(column: Any) -> np.ndarray:
    """A score column as floats, a missing value as NaN (Arrow's conversion of a null float)."""
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64)


def _membership_by_id(table: Any, ids: list[str]) -> dict[str, np.ndarray]:
    rows = {i: r for r, i in enumerate(table.column("id").to_pylist())}
    order = [rows[i] for i in ids]  # every id has a row: _scores_by_id named any missing one
    return {
        n.removeprefix(MEMBERSHIP_PREFIX): _floats(table.column(n))[order]
        for n in table.column_names
        if n.startswith(MEMBERSHIP_PREFIX)
    }


def _matched_rows(table: Any, ids: list[str]) -> Any:
    """The score file's rows in the order of ``ids``, matched by Arrow's hashing, where the file
    holds distinct text ids, numeric columns and a score for every id; else ``None`` (the
    Python path then matches them, or names the missing id)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    scores, counts = (table.column(c).type for c in ("logprob_sum", "n_tokens"))
    if not _numeric(scores) or not (_numeric(counts) or pa.types.is_null(counts)):
        return None
    column = table.column("id")
    if pc.count_distinct(column).as_py() != len(column):  # a repeated id: the Python path keeps its last
        return None
    order = arrow_order(column, ids)
    return None if order is None else table.take(order)


def _numeric(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_floating(kind) or pa.types.is_integer(kind))


def _scores_by_id(table: dict[str, list[Any]], ids: list[str], path: Path) -> tuple[np.ndarray, np.ndarray | None]:
    by_id = {i: (s, n) for i, s, n in zip(table["id"], table["logprob_sum"], table["n_tokens"])}
    missing = next((i for i in ids if i not in by_id), None)
    if missing is not None:
        raise InputError(f"has no score for id {missing!r}", path=path, fix="rewrite the split with tailsplit split")
    counts = [by_id[i][1] for i in ids]
    return (
        np.array([by_id[i][0] for i in ids], dtype=np.float64),
        None if any(c is None for c in counts) else np.array(counts, dtype=np.int64),  # None: scored elsewhere
    )


def _programs(programs: list[str], kind: str, folder: Path, count: str) -> Any:

    features, failures = extract_program_features(programs, EXTRACTORS.create(kind), count)
    if failures:
        raise InputError(
            f"program {failures[0].row + 1} of the split {failures[0].reason}",
            path=folder,
            fix="analyze the folder tailsplit wrote, unchanged",
        )
    return features
