"""The options of the commands that read split folders or datasets rather than run a split:
``analyze``, ``evaluate``, ``similarity``, ``ood-rank``, ``correlate`` and
``export``, each field declared once as an option (:mod:`tailsplit.config.declare`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from tailsplit.choices import ANALYSIS_TEXTS, SHIFT_TASKS
from tailsplit.config.declare import (
    Applies,
    Checked,
    accept_modified_option,
    agreement_field_option,
    option,
    out_option,
    overwrite_option,
    seed_option,
)
from tailsplit.config.overlap import index_tokenizer_option, infini_gram_option
from tailsplit.config.run import MAX_NULL_SPLITS
from tailsplit.config.values import parse_orders

BUNDLED_ENCODER = "bundled all-MiniLM-L6-v2"
MAX_PERMUTATIONS = 100_000  # similarity --permutations: a p-value's resolution of 1e-5, as the null splits'


@dataclass
class AnalyzeConfig(Checked):
    """``tailsplit analyze``: a split folder analysed against random splits."""

    PANEL: ClassVar[str | None] = None

    split_dir: str = option("", "A folder written by tailsplit run or split.", argument=True, metavar="DIR")
    compare: list[str] = option([], "Another split of the same examples (repeatable).", metavar="DIR")
    null_splits: int | None = option(
        None, "Random splits in each null distribution.", low=1, high=MAX_NULL_SPLITS, shown_default="500"
    )
    seed: int = seed_option()
    analysis_text: str | None = option(
        None, "What text statistics read: query, or pair (context + query).", choices=ANALYSIS_TEXTS,
        shown_default="what the run used",
    )  # fmt: skip
    syntax: bool | None = option(
        None, "Dependency-tree depth (the syntax extra).", flag="--syntax/--no-syntax",
        shown_default="what the run used",
    )  # fmt: skip
    agreement_field: str | None = agreement_field_option()
    infini_gram: str | None = infini_gram_option(
        "An infini-gram index (see overlap): the evaluation set's coverage by its corpus against random splits."
    )
    index_tokenizer: str | None = index_tokenizer_option()
    accept_modified: bool = accept_modified_option()


def _encoder_option() -> Any:
    return option(None, "Sentence-transformers folder or hub id.", shown_default=BUNDLED_ENCODER)


@dataclass
class SimilarityConfig(Checked):
    """``tailsplit similarity``: how far apart datasets (or a split's parts) are."""

    PANEL: ClassVar[str | None] = None

    datasets: list[str] = option(
        [], "Datasets as [NAME=]PATH[@FIELD[+FIELD...]] (field default: text).", argument=True,
        metavar="DATASET",
    )  # fmt: skip
    splits: list[str] = option(
        [], "A split folder; its train/dev/test become datasets (repeatable).", flag="--split", metavar="DIR"
    )
    encoder: str | None = _encoder_option()
    batch_size: int = option(64, "Texts per encoder batch.", low=1)
    max_examples: int | None = option(None, "Seeded sample of at most this many examples per dataset.", low=2)
    mmd_sample: int = option(1000, "Examples per dataset in the MMD test.", low=2)
    permutations: int = option(200, "Permutations for MMD p-values.", low=1, high=MAX_PERMUTATIONS)
    seed: int = seed_option()
    out: str | None = out_option()
    overwrite: bool = overwrite_option()


def _task_encoder_option(
    help: str = "Task model: the encoder fine-tuned on ID train (a local folder or hub id).",
) -> Any:
    return option(None, help, shown_default=BUNDLED_ENCODER)


def _max_steps_option(help: str) -> Any:
    return option(800, help, low=1)


def _max_train_option(help: str) -> Any:
    return option(None, help, low=2)


def _device_option(help: str) -> Any:
    return option("auto", help)


def _id_dataset_option() -> Any:
    return option(
        "", "The ID dataset: [NAME=]PATH[@FIELD[+FIELD...]]; PATH a file or a split folder (required).",
        metavar="DATASET",
    )  # fmt: skip


def _label_field_option() -> Any:
    return option(
        "label", "Gold label field of the ID data and of every OOD set (--task ner: the IOB2 tags, read from "
        "ner_tags unless named; --task qa: the answers, read from answers unless named).", metavar="FIELD",
    )  # fmt: skip


def _task_option() -> Any:
    return option(
        "classification", "BOSS's task: classification (accuracy), ner (a tokens field and IOB2 tags; entity F1) or "
        "qa (question + context fields and answers; SQuAD F1).", choices=SHIFT_TASKS,
    )  # fmt: skip


def _label_map_option(**declared: Any) -> Any:
    return option(
        [], "An OOD label (or NER entity type; FROM may end in *) in ID's terms, FROM=TO (repeatable; predictions "
        "are renamed too; TO empty drops).",
        metavar="FROM=TO", **declared,
    )  # fmt: skip


def _id_test_size_option() -> Any:
    return option(0.2, "ID file: share (or count, if ≥ 1) held out as the task model's ID test set.", low=0, size=True)


def _id_group_option() -> Any:
    return option(
        None, "ID file: examples sharing this field's value stay in one part of its random split (a passage, an "
        "article, a hypothesis); for --task qa the context paragraph unless named.", metavar="FIELD",
        shown_default="qa: the context; else none",
    )  # fmt: skip


def _id_dev_size_option() -> Any:
    return option(
        0.1,
        "ID file: share (or count) of the rest kept out of training (ood-rank selects its checkpoint on it).",
        low=0,
        size=True,
    )


MEASURES_DROP = Applies(lambda c: not c.skip_training, "when the accuracy drop is measured (not with --skip-training)")


@dataclass
class OodRankConfig(Checked):
    """``tailsplit ood-rank``: OOD candidates for an ID dataset, by BOSS's criteria."""

    PANEL: ClassVar[str | None] = None

    id: str = _id_dataset_option()
    task: str = _task_option()
    candidates: str = option("", "CSV of candidates: name,path,fields,source[,accuracy] (required).", metavar="FILE")
    id_accuracy: float | None = option(
        None, "The model's accuracy on the ID test set (with accuracies in the CSV; else it is measured).",
        low=0, high=1, applies=MEASURES_DROP,
    )  # fmt: skip
    max_similarity: float | None = option(
        None, "Reject candidates at least this similar (cosine × 100, from -100 to 100).", low=-100, high=100
    )
    min_drop: float = option(
        0.0, "Reject candidates whose accuracy drop is below this.", bounded=True, applies=MEASURES_DROP
    )
    min_id_metric: float = option(
        0.1, "Decide nothing unless the trained task model's ID metric reaches this and its 95% interval clears "
        "a predictor that learnt nothing (the majority label; for NER and QA 0).",
        low=0, high=1, applies=MEASURES_DROP,
    )  # fmt: skip
    encoder: str | None = _encoder_option()
    batch_size: int = option(64, "Texts per encoder batch.", low=1)
    max_examples: int | None = option(
        None, "Seeded sample of at most this many examples per dataset (ID test and each candidate).", low=2
    )
    skip_training: bool = option(False, "Rank by similarity alone: train no task model, measure no drop.")
    label_field: str = _label_field_option()
    label_map: list[str] = _label_map_option(applies=MEASURES_DROP)
    id_test_size: float = _id_test_size_option()
    id_dev_size: float = _id_dev_size_option()
    id_group: str | None = _id_group_option()
    task_encoder: str | None = _task_encoder_option()
    max_steps: int = _max_steps_option(
        "Task model: training steps of 32 pairs (dev accuracy every 200; early stop after 3 checks without gain)."
    )
    max_train: int | None = _max_train_option("Task model: train on this many ID examples (seeded sample).")
    device: str = _device_option("Task model: auto, cpu, cuda or cuda:N.")
    seed: int = seed_option()
    out: str | None = out_option()
    overwrite: bool = overwrite_option()


@dataclass
class CurveConfig(Checked):
    """``tailsplit curve``: ID and OOD accuracy through training, and the shape of their relation."""

    PANEL: ClassVar[str | None] = None

    id: str = _id_dataset_option()
    task: str = _task_option()
    ood: list[str] = option([], "An OOD dataset, [NAME=]PATH[@FIELDS] (repeatable; required).", metavar="DATASET")
    label_field: str = _label_field_option()
    label_map: list[str] = _label_map_option()
    id_test_size: float = _id_test_size_option()
    id_dev_size: float = _id_dev_size_option()
    id_group: str | None = _id_group_option()
    encoders: list[str] = option(
        [], "Encoder fine-tuned on ID train: a local folder or hub id (repeatable: one run each).",
        flag="--encoder", shown_default=BUNDLED_ENCODER,
    )  # fmt: skip
    train_sizes: tuple[int, ...] = option(
        (), "ID training examples per run, comma-separated (a seeded sample each; one run per size).",
        low=2, parse=parse_orders, metavar="N,N", shown_default="all of ID train",
    )  # fmt: skip
    trainable_layers: tuple[int, ...] = option(
        (), "Tune only the top N transformer layers and the head, comma-separated (one run each: BOSS's axis of "
        "tunable parameters); 0 tunes the head alone.",
        low=0, parse=parse_orders, metavar="N,N", shown_default="every weight",
    )  # fmt: skip
    max_steps: int = _max_steps_option("Training steps of 32 pairs per run.")
    checkpoint_every: int = option(100, "Evaluate ID test and every OOD set every this many steps.", low=1)
    max_examples: int | None = option(None, "Seeded sample of at most this many examples per OOD set.", low=2)
    device: str = _device_option("auto, cpu, cuda or cuda:N.")
    seed: int = seed_option()
    out: str | None = out_option("Output folder (written atomically; required).")
    overwrite: bool = overwrite_option()


@dataclass
class CorrelateConfig(Checked):
    """``tailsplit correlate``: Type I / II / III fits of (ID, OOD) accuracy points."""

    PANEL: ClassVar[str | None] = None

    points: str = option("", "CSV with id_acc, ood_acc and optionally group columns.", argument=True, metavar="FILE")
    group: str | None = option(None, "Column that groups points.", shown_default="group, if present")
    out: str | None = out_option()
    overwrite: bool = overwrite_option()


@dataclass
class EvaluateConfig(Checked):
    """``tailsplit evaluate``: baselines trained on each split's train part, scored on test."""

    PANEL: ClassVar[str | None] = None

    split_dirs: list[str] = option([], "Split folders written by tailsplit run or split.", argument=True, metavar="DIR")
    baselines: list[str] = option(
        [],
        "tfidf, tfidf-text, nn-sql, embed, encoder or lm (the scoring LM fine-tuned as a classifier; repeatable).",
        flag="--baseline",
        shown_default="by task: tfidf and tfidf-text, or nn-sql",
    )
    input_fields: list[str] = option(
        [],
        "Record field the baselines read (repeatable, in order; the last is the text of tfidf-text).",
        flag="--input-field",
        metavar="FIELD",
        shown_default="the split's context and text",
    )
    predictions: list[str] = option(
        [], "Score these predictions instead (id, prediction): one file per split folder, same order.",
        metavar="FILE",
    )  # fmt: skip
    bucket: str | None = option(
        None, "With --predictions: break down by 'hardness' or a record field.", shown_default="hardness, else label",
        applies=Applies(lambda c: bool(c.predictions), "with --predictions"),
    )  # fmt: skip
    zero_shot: bool = option(
        False, "Also classify with the split's own LM: each label's verbalisation scored through the template."
    )
    zero_shot_template: str | None = option(
        None, "Template for --zero-shot (needs {label}).", shown_default="the split's",
        applies=Applies(lambda c: c.zero_shot, "with --zero-shot"),
    )  # fmt: skip
    encoder: str | None = _task_encoder_option("Encoder of the embed and encoder baselines: a local folder or hub id.")
    max_steps: int = _max_steps_option(
        "Encoder baseline: training steps of 32 pairs (dev accuracy every 200; early stop after 3 checks without gain)."
    )
    max_train: int | None = _max_train_option(
        "Encoder baseline: train on this many examples of each train part (seeded sample)."
    )
    device: str = _device_option("Encoder baseline: auto, cpu, cuda or cuda:N.")
    leakage_threshold: float = option(
        0.05,
        "Mark random baselines whose test queries occur in train (exactly, after normalisation) more often "
        "than this share.",
        low=0,
        high=1,
    )
    agreement_field: str | None = agreement_field_option()
    fairness_margin: float = option(
        0.02,
        "Fairness table: the largest extra accuracy loss of a split's in-the-loop model (against another "
        "model, relative to random splits) that does not count as adversarial.",
        low=0,
        high=1,
        applies=Applies(
            lambda c: c.zero_shot or bool({"lm", "embed"} & set(c.baselines)),
            "with an in-the-loop model to judge (--zero-shot, --baseline lm, or --baseline embed for AFLite)",
        ),
    )
    accept_modified: bool = accept_modified_option()
    seed: int = seed_option()
    out: str | None = out_option()
    overwrite: bool = overwrite_option()


@dataclass
class LmEvalExportConfig(Checked):
    """``tailsplit export lm-eval``: a split as an lm-evaluation-harness task."""

    PANEL: ClassVar[str | None] = None

    split_dir: str = option("", "Split folder written by tailsplit run or split.", argument=True, metavar="DIR")
    out: str | None = out_option("Folder to write (atomically; never the split folder; required).")
    task_name: str | None = option(None, "Task name.", shown_default="tailsplit_ and the folder's name")
    template: str | None = option(None, "Prompt template.", shown_default="the one the split was scored with")
    dataset_path: str | None = option(
        None,
        "Hub dataset repository the task's data files are uploaded to: the YAML loads them from there, so the task "
        "runs on any machine (the README gives the upload command).",
        metavar="OWNER/NAME",
        shown_default="the data files by their paths on this machine",
    )
    overwrite: bool = overwrite_option()


@dataclass
class HfExportConfig(Checked):
    """``tailsplit export hf``: a split as a Hugging Face DatasetDict folder with a card."""

    PANEL: ClassVar[str | None] = None

    split_dir: str = option("", "Split folder written by tailsplit run or split.", argument=True, metavar="DIR")
    out: str | None = out_option("Folder to write (atomically; never the split folder; required).")
    license: str | None = option(
        None, "Licence id for the card and DatasetInfo (e.g. cc-by-sa-4.0).", shown_default="the input's own, if any"
    )
    citation_file: str | None = option(
        None, "BibTeX of the source dataset for the card and DatasetInfo.", metavar="FILE",
        shown_default="the input's own, if any",
    )  # fmt: skip
    push_to_hub: str | None = option(
        None,
        "Also upload the dataset and its card to this hub dataset repository (needs network and a login).",
        metavar="OWNER/NAME",
    )
    class_labels: str | None = option(
        None,
        "The label field's class names in id order, comma-separated (entailment,neutral,contradiction): the field "
        "becomes a ClassLabel, as datasets ships NLI data; an integer label is read as a class id.",
        metavar="NAMES",
        shown_default="the input's own ClassLabel, else the labels as they are",
    )
    task_category: str | None = option(
        None, "The card's task category on the hub (e.g. text-classification).", metavar="ID",
        shown_default="the one the split's built-in template implies (snli, boolq: text-classification)",
    )  # fmt: skip
    language: str | None = option(
        None, "The card's languages, ISO 639-1 codes, comma-separated (en or en,de).", metavar="CODES",
        shown_default="en for a built-in template's data, else none",
    )  # fmt: skip
    source_dataset: str | None = option(
        None, "The dataset the split re-splits, as the hub names it (e.g. stanfordnlp/snli): the card's source_datasets.",
        metavar="ID", shown_default="the input's own dataset name, if any",
    )  # fmt: skip
    columns: list[str] = option(
        [], "A column of the release, in order (repeatable): e.g. leave out the score columns.", flag="--column",
        metavar="NAME", shown_default="every field of the split, its scores included",
    )  # fmt: skip
    overwrite: bool = overwrite_option()
    accept_modified: bool = accept_modified_option()


@dataclass
class WeightsExportConfig(Checked):
    """``tailsplit export weights``: the weights a split was scored with, rebuilt into a folder."""

    PANEL: ClassVar[str | None] = None

    model: str = option(
        "smollm2", "The model scored with: smollm2 (the bundled GGUF, dequantised to float32), a .gguf file, or a "
        "model folder.", metavar="MODEL",
    )  # fmt: skip
    out: str | None = out_option("Folder to write the weights into (atomically; required).")
    overwrite: bool = overwrite_option()
