"""What ``tailsplit evaluate`` checks of its split folders before anything trains (comparable
splits, trainable labels, annotator agreement) and what it reads of them besides (test
leakage, whether AFLite filtered with the evaluated encoder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from tailsplit.analysis.leakage import DuplicateKeys
from tailsplit.analysis.split_dir import describe_split, no_annotations, record_agreement
from tailsplit.config import DataConfig, EvaluateConfig
from tailsplit.config.recorded import recorded_run
from tailsplit.core import SPLIT_PARTS
from tailsplit.errors import ConfigError
from tailsplit.evaluation.baselines import baselines_for
from tailsplit.evaluation.fairness import SplitAgreement
from tailsplit.evaluation.table import SplitScore
from tailsplit.fields import field_value
from tailsplit.io.examples import label_to_str
from tailsplit.io.manifest import Manifest


def check_trainable(config: EvaluateConfig, folders: list[tuple[Manifest, dict[str, list[Any]]]]) -> None:
    """Refuse, before any training, a classifier baseline on a split whose train part has no
    labels or a single label (a classifier needs two classes to learn anything)."""
    for folder, (manifest, parts) in zip(config.split_dirs, folders):
        data = recorded_run(manifest).data
        classifiers = [b for b in baselines_for(data, config.baselines, config.input_fields) if b != "nn-sql"]
        if not classifiers:
            continue
        if not data.label:
            raise ConfigError(
                f"--baseline={classifiers[0]!r} and the other baselines that classify labels need a label field, "
                f"but {folder!r} was split without --label; split with --label, or use --predictions"
            )
        labels = {label_to_str(raw.value(data.label)) for raw in parts["train"] if raw.has(data.label)}
        if len(labels) < 2:
            raise ConfigError(
                f"the train part of {folder!r} holds {len(labels)} label(s) ({sorted(labels)!r}); "
                f"--baseline={classifiers[0]!r} needs at least two classes to learn; split more data"
            )


def same_encoder(config: EvaluateConfig, identity: str, manifests: list[Manifest]) -> bool:
    """Whether every AFLite split among ``manifests`` filtered with the encoder the embed and
    encoder baselines use (its recorded weights hash; the option's value for older folders)."""
    for manifest in manifests:
        splitter = manifest.splitter
        if splitter.name != "aflite":
            continue
        recorded = splitter.details.get("encoder_sha256")
        if recorded is not None and recorded != identity:
            return False
        if recorded is None and recorded_run(manifest).split.encoder != config.encoder:
            return False
    return True


def split_agreements(
    config: EvaluateConfig, folders: list[tuple[Manifest, dict[str, list[Any]]]]
) -> list[SplitAgreement]:
    """Annotator agreement with gold of every test example (``--agreement-field``), read and
    checked before anything trains; a field no test example of any split holds is refused."""

    if config.agreement_field is None:
        return []
    out = []
    for folder, (manifest, parts) in zip(config.split_dirs, folders):
        data = recorded_run(manifest).data
        if not data.label:
            raise ConfigError(
                f"--agreement-field={config.agreement_field!r} compares annotators with the gold label, but "
                f"{folder!r} was split without --label; split with --label"
            )
        test = parts["test"]
        out.append(
            SplitAgreement(
                Path(folder).name,
                describe_split(manifest),
                tuple(label_to_str(field_value(r.record, data.id, r.row)) for r in test),
                tuple(record_agreement(r, config.agreement_field, label_to_str(r.value(data.label)))[0] for r in test),
            )
        )
    if not any(a.annotated for a in out):
        raise no_annotations(config.agreement_field, "test example of any split")
    return out


def check_comparable(split_dirs: list[str], manifests: list[Manifest]) -> None:
    """Refuse a table that would compare what cannot be compared: one folder named twice (or
    two copies of one split), or splits of different data (their inputs' hashes differ)."""
    import os

    seen: dict[str, str] = {}
    for folder, manifest in zip(split_dirs, manifests):
        parts = {k: v for k, v in manifest.outputs.items() if k.split(".")[0] in SPLIT_PARTS}
        for key in (os.path.realpath(folder), json.dumps(parts, sort_keys=True)):
            if key in seen:
                raise ConfigError(
                    f"the split folders name the same split twice ({seen[key]!r} and {folder!r}); "
                    "give each split once (random baselines need different seeds)"
                )
            seen[key] = folder
    inputs = [data_identity(m) for m in manifests]
    for folder, identity in zip(split_dirs[1:], inputs[1:]):
        if identity != inputs[0]:
            raise ConfigError(
                f"{folder!r} splits other data than {split_dirs[0]!r} (the inputs' hashes differ); "
                "evaluate compares splits of one dataset, so give splits made from the same data"
            )


def data_identity(manifest: Manifest) -> list[str]:
    """The sorted content hashes of a split's inputs (files or an in-memory table)."""
    return sorted(i.identity for i in manifest.inputs)


def leakage_of_test(parts: dict[str, list[Any]], data: DataConfig) -> dict[str, float]:
    """Share of the test part whose query occurs in train, exactly and normalised."""

    text = data.text
    if not text:
        return {}
    records = [r for p in ("train", "test") for r in parts[p]]
    keys = DuplicateKeys.build([str(field_value(r.record, text, "")) for r in records], near=False)
    train = np.arange(len(records)) < len(parts["train"])
    return {match: round(keys.share(match, train, ~train), 6) for match in ("exact", "normalized")}


def text_field_of(folders: list[tuple[Manifest, Any]]) -> str:
    return next((recorded_run(m).data.text for m, _ in folders), None) or "TEXT"


def leakage_warnings(
    scores: list[SplitScore], leakage: dict[str, dict[str, float]], threshold: float, *, data_text: str
) -> list[str]:
    """One line per random split whose test queries occur in train (normalised) beyond ``threshold``."""
    out = []
    for folder in dict.fromkeys(s.folder for s in scores if s.is_random):
        share = leakage.get(folder, {}).get("normalized")
        if share is not None and share > threshold:
            out.append(
                f"warning: random split {folder}: {100 * share:.1f}% of its test queries also occur in train "
                f"(normalised; threshold {100 * threshold:.1f}%), which inflates its baselines and every "
                f"increase measured against it; split with --group {data_text}"
            )
    return out
