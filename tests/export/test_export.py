"""`tailsplit export`: lm-evaluation-harness tasks (loaded by lm-eval itself) and HF dataset folders with cards."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.io.manifest import Manifest


@pytest.fixture(scope="module")
def snli_split(tmp_path_factory: pytest.TempPathFactory, snli_600: Path) -> Path:
    from helpers import FakeScorer

    from tailsplit.registry import SCORERS

    SCORERS.register("fake", FakeScorer)
    out = tmp_path_factory.mktemp("split") / "snli-ll"
    result = CliRunner().invoke(
        app,
        ["run", str(snli_600), "--text", "hypothesis", "--context", "premise", "--label", "label", "--template", "snli",
         "--backend", "fake", "--balance-labels", "--dev-size", "30", "--test-size", "30", "--null-splits", "5",
         "--no-syntax", "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.model
def test_lm_eval_task_loads_in_lm_eval_and_runs_a_dummy_model(
    snli_split: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("lm_eval")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    out = tmp_path / "task"
    result = CliRunner().invoke(app, ["export", "lm-eval", str(snli_split), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "tailsplit_snli_ll.yaml").is_file()

    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager, get_task_dict

    manager = TaskManager(include_path=str(out), include_defaults=False)
    task = get_task_dict(["tailsplit_snli_ll"], manager)["tailsplit_snli_ll"]
    docs = list(task.test_docs())
    assert len(docs) == 30
    doc = docs[0]
    contexts = task.doc_to_choice(doc)
    assert contexts[0].startswith("Premise: ") and contexts[0].endswith("This hypothesis is entailed: ")
    assert task.doc_to_text(doc) == ["entailment", "neutral", "contradiction"].index(doc["label"])
    assert task.doc_to_target(doc) == doc["hypothesis"]
    results = simple_evaluate(
        model="dummy", tasks=["tailsplit_snli_ll"], task_manager=manager, limit=8, bootstrap_iters=0, log_samples=False
    )
    assert 0.0 <= results["results"]["tailsplit_snli_ll"]["acc,none"] <= 1.0


@pytest.mark.model
def test_lm_eval_task_with_a_dataset_path_loads_its_data_from_that_repository(
    snli_split: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --dataset-path the YAML names the hub repository, not files of this machine; the
    repository's content (the uploaded *.jsonl, nothing else) gives lm-eval every split."""
    pytest.importorskip("lm_eval")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    refused = CliRunner().invoke(app, ["export", "lm-eval", str(snli_split), "--out", str(tmp_path / "bad"),
                                       "--dataset-path", "me/a/b"])  # fmt: skip
    assert refused.exit_code == 2 and "--dataset-path 'me/a/b' is not a hub repository id" in refused.output
    assert not (tmp_path / "bad").exists()
    out = tmp_path / "snli-task"
    args = ["export", "lm-eval", str(snli_split), "--out", str(out), "--task-name", "t", "--dataset-path", "me/snli-ll"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    upload = "hf upload me/snli-ll snli-task . --repo-type dataset --include '*.jsonl'"
    assert upload in result.output and "local to this machine: the data files" not in result.output
    yaml, readme = (out / "t.yaml").read_text(), (out / "README.md").read_text()
    assert 'dataset_path: "me/snli-ll"' in yaml and "data_files" not in yaml
    assert upload in readme and str(tmp_path) not in yaml + readme
    assert json.loads((out / "manifest.json").read_text())["dataset_path"] == "me/snli-ll"

    # The repository after the upload: a folder holding what --include '*.jsonl' sends; datasets
    # resolves a hub repository's splits and a folder's by the same file-name patterns.
    repo = tmp_path / "repo"
    repo.mkdir()
    for data in out.glob("*.jsonl"):
        (repo / data.name).write_bytes(data.read_bytes())
    include = tmp_path / "include"
    include.mkdir()
    (include / "t.yaml").write_text(yaml.replace('"me/snli-ll"', json.dumps(str(repo))))

    from lm_eval.tasks import TaskManager, get_task_dict

    task = get_task_dict(["t"], TaskManager(include_path=str(include), include_defaults=False))["t"]
    assert [len(list(docs)) for docs in (task.training_docs(), task.validation_docs(), task.test_docs())] == [
        540,
        30,
        30,
    ]
    test_ids = [json.loads(line)["id"] for line in (out / "test.jsonl").read_text().splitlines()]
    assert [doc["id"] for doc in task.test_docs()] == test_ids


def test_the_lm_eval_export_called_from_python_names_keywords(snli_split: Path, tmp_path: Path) -> None:
    from tailsplit.errors import ConfigError
    from tailsplit.pipeline.export_lm_eval import export_lm_eval_task as export_lm_eval

    with pytest.raises(ConfigError, match=r"^dataset_path='me/a/b' is not a hub repository id"):
        export_lm_eval(snli_split, tmp_path / "task", dataset_path="me/a/b")
    assert not (tmp_path / "task").exists()


def test_lm_eval_task_without_labels_is_a_likelihood_task(tmp_path: Path, snli_600: Path) -> None:
    split = tmp_path / "rand"
    args = ["split", str(snli_600), "--text", "hypothesis", "--splitter", "random", "--dev-size", "20",
            "--test-size", "20", "--no-analyze", "--out", str(split)]  # fmt: skip
    assert CliRunner().invoke(app, args).exit_code == 0
    out = tmp_path / "task"
    result = CliRunner().invoke(app, ["export", "lm-eval", str(split), "--out", str(out), "--task-name", "My Task"])
    assert result.exit_code == 0, result.output
    yaml = (out / "my_task.yaml").read_text()
    assert "output_type: loglikelihood" in yaml and "perplexity" in yaml
    row = json.loads((out / "test.jsonl").read_text().splitlines()[0])
    assert row["tailsplit_prompt"] == "" and row["tailsplit_query"] == row["hypothesis"]


def test_a_tasks_data_files_read_back_as_data(snli_split: Path, tmp_path: Path) -> None:
    """The split's scores travel in the task's files as tailsplit_logprob_sum …, so a file of the
    task is data tailsplit can split (or score) again: no field clashes with the columns it adds."""
    out = tmp_path / "task"
    assert CliRunner().invoke(app, ["export", "lm-eval", str(snli_split), "--out", str(out)]).exit_code == 0
    row = json.loads((out / "test.jsonl").read_text().splitlines()[0])
    assert "logprob_sum" not in row and isinstance(row["tailsplit_logprob_sum"], float)
    again = CliRunner().invoke(app, ["split", str(out / "test.jsonl"), "--text", "hypothesis", "--splitter", "random",
                                     "--no-analyze", "--out", str(tmp_path / "again")])  # fmt: skip
    assert again.exit_code == 0, again.output


def test_an_unlabelled_task_reports_perplexities_only(tmp_path: Path, snli_600: Path) -> None:
    from tailsplit.export.lm_eval import METRICS_SOURCE, task_yaml

    yaml = task_yaml("t", {"test": "t.jsonl"}, False, {})
    assert "metric: acc" not in yaml and "word_perplexity" in yaml and '"acc"' not in METRICS_SOURCE


def test_export_refuses_writing_into_the_split(snli_split: Path) -> None:
    result = CliRunner().invoke(app, ["export", "lm-eval", str(snli_split), "--out", str(snli_split / "task")])
    assert result.exit_code == 2 and "input" in result.output


def test_hf_export_is_a_dataset_dict_with_a_card(snli_split: Path, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "hf"
    result = CliRunner().invoke(app, ["export", "hf", str(snli_split), "--out", str(out)])
    assert result.exit_code == 0, result.output
    loaded = datasets.load_from_disk(str(out))
    assert {k: len(v) for k, v in loaded.items()} == {"train": 540, "validation": 30, "test": 30}
    card = (out / "README.md").read_text()
    front = card.split("---")[1]
    assert 'split_method: "likelihood (prompted)"' in front
    assert '"validation": 30' in front and "fake:" in front and "snli" in front
    assert "random splits (percentile" in card
    assert "Benchmarking Long-tail Generalization with Likelihood Splits" in card  # the method's paper
    from huggingface_hub import DatasetCard

    parsed = DatasetCard.load(out / "README.md")
    assert parsed.data.split_method == "likelihood (prompted)" and parsed.data.license is None
    # what the snli template implies, as the hub's metadata names it
    assert parsed.data.task_categories == ["text-classification"] and parsed.data.language == ["en"]
    assert "Godbole" in loaded["test"].info.citation
    about = loaded["test"].info.description  # which split, model, sizes and first findings, not a generic line
    assert "likelihood (prompted)" in about and "Model: fake" in about, about
    assert "Sizes: train 540, validation 30, test 30." in about and "over 5 random splits" in about, about
    manifest = json.loads((out / "manifest.json").read_text())
    assert "README.md" in manifest["outputs"] and manifest["export"] == "hf"


def test_hf_export_releases_the_columns_asked_for(snli_split: Path, tmp_path: Path) -> None:
    """A release without the scores: --column chooses the columns and their order; a name the
    split does not hold is refused, listing those it does, before anything is written."""
    datasets = pytest.importorskip("datasets")
    columns = ["id", "premise", "hypothesis", "label"]
    out = tmp_path / "hf"
    flags = [a for c in columns for a in ("--column", c)]
    result = CliRunner().invoke(app, ["export", "hf", str(snli_split), *flags, "--out", str(out)])
    assert result.exit_code == 0, result.output
    loaded = datasets.load_from_disk(str(out))
    assert all(part.column_names == columns for part in loaded.values())  # no logprob_sum, n_tokens, ...
    assert json.loads((out / "manifest.json").read_text())["columns"] == columns
    refused = CliRunner().invoke(
        app, ["export", "hf", str(snli_split), "--column", "logprob", "--out", str(tmp_path / "x")]
    )
    assert refused.exit_code == 2 and "--column='logprob' is not a column of the split" in refused.output
    assert "logprob_sum" in refused.output and not (tmp_path / "x").exists()


def test_hf_card_names_the_source_dataset_given(snli_split: Path, tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    out = tmp_path / "hf"
    args = ["export", "hf", str(snli_split), "--source-dataset", "stanfordnlp/snli", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert DatasetCard.load(out / "README.md").data.source_datasets == ["stanfordnlp/snli"]
    bad = CliRunner().invoke(app, [*args[:4], "snli data", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "is not a hub dataset id" in bad.output and not (tmp_path / "x").exists()


def test_hf_export_makes_the_label_a_class_label_when_told_its_names(snli_split: Path, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    plain = CliRunner().invoke(app, ["export", "hf", str(snli_split), "--out", str(tmp_path / "plain")])
    assert plain.exit_code == 0 and "note: label field 'label' is exported as its values are" in plain.output
    assert datasets.load_from_disk(str(tmp_path / "plain"))["test"].features["label"].dtype == "string"

    names = "entailment,neutral,contradiction"
    out = tmp_path / "hf"
    result = CliRunner().invoke(app, ["export", "hf", str(snli_split), "--out", str(out), "--class-labels", names])
    assert result.exit_code == 0 and "note: label field" not in result.output, result.output
    loaded = datasets.load_from_disk(str(out))
    for part, file in [("train", "train.jsonl"), ("validation", "dev.jsonl"), ("test", "test.jsonl")]:
        feature = loaded[part].features["label"]
        assert isinstance(feature, datasets.ClassLabel) and feature.names == names.split(",")
        expected = [json.loads(line)["label"] for line in (snli_split / file).read_text().splitlines()]
        assert feature.int2str(loaded[part]["label"]) == expected, part  # every row, in order
    assert json.loads((out / "manifest.json").read_text())["class_labels"] == {"label": names.split(",")}

    for bad, said in [("entailment,neutral", "has label 'contradiction', which --class-labels does not name"),
                      ("a,a", "names 'a' twice"), ("a", "two or more classes")]:  # fmt: skip
        refused = CliRunner().invoke(app, ["export", "hf", str(snli_split), "--out", str(tmp_path / "bad"),
                                           "--class-labels", bad])  # fmt: skip
        assert refused.exit_code == 2 and said in refused.output and not (tmp_path / "bad").exists(), refused.output
        assert len(refused.output.strip().splitlines()) == 1
    first = CliRunner().invoke(app, ["export", "hf", str(snli_split), "--out", str(tmp_path / "bad"),
                                     "--class-labels", "entailment,neutral"]).output  # fmt: skip
    assert re.search(r"snli-ll/train\.jsonl:\d+: field 'label' has label 'contradiction'", first), first


def test_hf_card_takes_task_category_and_languages_and_refuses_malformed_ones(snli_split: Path, tmp_path: Path) -> None:
    from huggingface_hub import DatasetCard

    args = ["export", "hf", str(snli_split), "--out", str(tmp_path / "hf"), "--task-category", "zero-shot-classification",
            "--language", "en,de"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    card = DatasetCard.load(tmp_path / "hf" / "README.md")
    assert card.data.task_categories == ["zero-shot-classification"] and card.data.language == ["en", "de"]
    for flag, value, said in [("--language", "English", "--language='English' is not a language code"),
                              ("--task-category", "Text Classification", "is not a hub task category id")]:  # fmt: skip
        refused = CliRunner().invoke(
            app, ["export", "hf", str(snli_split), "--out", str(tmp_path / "bad"), flag, value]
        )
        assert refused.exit_code == 2 and said in refused.output and not (tmp_path / "bad").exists(), refused.output


def _manifest(method: str = "prompted", hub: str | None = None, **model: object) -> Manifest:
    identity = {"name": "m", "weights_sha256": "ab" * 32, "scorer": "hf-causal-lm/2", "dtype": "float32",
                "start_token": "bos"} | model  # fmt: skip
    scoring = {"backend": "hf", "model": hub or "smollm2"}
    return Manifest({"method": method, "model": identity, "config": {"scoring": scoring}})


def test_lm_eval_model_arguments_say_what_reproduces_the_scores_and_what_cannot(tmp_path: Path) -> None:
    from tailsplit.export.lm_eval_model import lm_eval_model

    exact = lm_eval_model(_manifest(), tmp_path)
    converted = tmp_path.resolve() / "models" / ("ab" * 12)
    assert exact.exact and exact.model_args == f"pretrained={converted},dtype=float32,add_bos_token=True"
    assert exact.local_weights == str(converted)  # a folder of this machine, said wherever the command is shown
    assert lm_eval_model(_manifest(dtype="bfloat16"), tmp_path).model_args.endswith("dtype=bfloat16,add_bos_token=True")
    none = lm_eval_model(_manifest(start_token="none"), tmp_path)
    assert none.exact and none.model_args.endswith("add_bos_token=False") and "non-empty prompt" in none.note
    for model, why in [({"start_token": "eos"}, "start token 'eos'"), ({"dtype": "mixed-bfloat16"}, "0.05 nats"),
                       ({"score_eos": True}, "end token"), ({"scorer": "hf-causal-lm/1"}, "rescore")]:  # fmt: skip
        found = lm_eval_model(_manifest(**model), tmp_path)
        assert not found.exact and found.model_args and why in found.note, (model, found)
    assert lm_eval_model(_manifest("kfold"), tmp_path).model_args is None
    from_hub = lm_eval_model(_manifest(hub="HuggingFaceTB/SmolLM2-360M"), tmp_path)
    assert from_hub.model_args.startswith("pretrained=HuggingFaceTB/SmolLM2-360M,") and from_hub.local_weights is None


def test_commands_are_recorded_as_typed_and_exports_carry_no_local_folder(tmp_path: Path) -> None:
    """A manifest, report and card record ``tailsplit split …`` as the user typed it — not the
    executable's path (a folder of this machine) — and a Python call records no command; the
    lm-eval task's README names its folder, not where it lies."""
    import subprocess
    import sys

    from helpers import SAMPLE

    import tailsplit

    typed = ["split", str(SAMPLE), "--text", "hypothesis", "--label", "label", "--splitter", "random",
             "--null-splits", "5", "--no-syntax", "--out", "by-cli"]  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "tailsplit.cli", *typed], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "by-cli" / "manifest.json").read_text())
    assert manifest["command"] == ["tailsplit", *typed]
    assert "- command: `tailsplit split " in (tmp_path / "by-cli" / "report.md").read_text()
    executable_folder = str(Path(sys.executable).parent)
    for name in ("manifest.json", "report.md", "report.html", "summary.md"):
        assert executable_folder not in (tmp_path / "by-cli" / name).read_text(), name

    by_python = tailsplit.split(SAMPLE, "random", text="hypothesis", label="label", analyze=False)
    by_python.write(tmp_path / "by-python")
    assert json.loads((tmp_path / "by-python" / "manifest.json").read_text())["command"] == []
    result = CliRunner().invoke(app, ["export", "hf", str(tmp_path / "by-python"), "--out", str(tmp_path / "hf")])
    assert result.exit_code == 0, result.output
    assert "Made with tailsplit 0.1.0, called from Python" in (tmp_path / "hf" / "README.md").read_text()
    result = CliRunner().invoke(app, ["export", "hf", str(tmp_path / "by-cli"), "--out", str(tmp_path / "hf-cli")])
    assert result.exit_code == 0, result.output
    card = (tmp_path / "hf-cli" / "README.md").read_text()
    assert "Made with tailsplit 0.1.0: `tailsplit split " in card and executable_folder not in card

    task = tmp_path / "exports" / "snli-task"
    result = CliRunner().invoke(app, ["export", "lm-eval", str(tmp_path / "by-cli"), "--out", str(task)])
    assert result.exit_code == 0, result.output
    readme = (task / "README.md").read_text()
    assert "--include_path snli-task " in readme and str(tmp_path) not in readme
