"""The real lm-evaluation-harness, on the real bundled model, reproduces a split's scores.

`tailsplit export lm-eval` states the `--model_args` that reproduce the split's
`logprob_sum`; lm-eval run with exactly those gives every test example the same
log-likelihood within 1e-3 nats — SNLI pairs whose hypothesis starts with a digit (the
space before it is a token of its own) included — for a labelled (multiple-choice) task and
an unlabelled likelihood task with an empty prompt.

Slow: loads the bundled model in tailsplit and in lm-eval (about a minute on 2 CPU cores).
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest
from helpers import SAMPLE, write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app

pytestmark = pytest.mark.slow
pytest.importorskip("torch")
pytest.importorskip("lm_eval")


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """16 SNLI dev pairs, the sample's 7 whose hypothesis starts with a digit, and 3 that start
    with punctuation (merged with the space before it by the tokenizer)."""
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    digits = [r for r in records if r["hypothesis"][:1].isdigit()]
    quoted = [
        {**records[i], "hypothesis": f'"{records[i]["hypothesis"]}"'} for i in range(100, 103)
    ]  # fmt: skip
    rows = [{"id": f"r{i}", **r} for i, r in enumerate(records[:16] + digits + quoted)]
    return write_jsonl(tmp_path_factory.mktemp("pairs") / "pairs.jsonl", rows)


@pytest.fixture()
def cache(bundled_model_cache: Path) -> Path:
    return bundled_model_cache


def split_and_export(pairs: Path, tmp_path: Path, cache: Path, *options: str) -> tuple[Path, dict, dict]:
    split = tmp_path / "split"
    args = ["run", str(pairs), "--text", "hypothesis", "--dev-size", "4", "--test-size", "6", "--no-analyze",
            "--quiet", *options, "--out", str(split)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    task = tmp_path / "task"
    result = CliRunner().invoke(app, ["export", "lm-eval", str(split), "--out", str(task), "--task-name", "t"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((task / "manifest.json").read_text())
    assert manifest["lm_eval_model"]["exact"] is True
    model_args = manifest["lm_eval_model"]["model_args"]
    assert model_args in result.output.replace("\n", "")  # the command for this machine, its local parts said
    assert "local to this machine: the weights: `pretrained=` names tailsplit's float32 copy" in result.output
    # and how another machine rebuilds the same bytes, with their digest (the test of test_weights checks it)
    rebuild = manifest["lm_eval_model"]["rebuild_weights"]
    assert rebuild == "tailsplit export weights --out WEIGHTS" and rebuild in (task / "README.md").read_text()
    assert manifest["lm_eval_model"]["weights_safetensors_sha256"] in (task / "README.md").read_text()
    assert f"pretrained={cache.resolve() / 'models'}" in model_args and "add_bos_token=True" in model_args
    # What travels names no folder of this machine: the README's and the YAML's arguments say WEIGHTS.
    elsewhere = model_args.replace(manifest["lm_eval_model"]["local_weights"], "WEIGHTS")
    assert elsewhere.startswith("pretrained=WEIGHTS,") and elsewhere in (task / "README.md").read_text()
    assert f"tailsplit_model_args: {json.dumps(elsewhere)}" in (task / "t.yaml").read_text()
    assert str(cache.resolve()) not in (task / "README.md").read_text() + (task / "t.yaml").read_text()
    scores = {json.loads(line)["id"]: json.loads(line) for line in (split / "test.jsonl").read_text().splitlines()}
    return task, manifest, scores


def run_lm_eval(task: Path, model_args: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict:
    """lm-eval's run of the task, its samples also written as ``lm_eval --log_samples`` writes
    them (into tmp_path/lm-eval-log)."""
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-cache"))
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(task), include_defaults=False)
    tracker = EvaluationTracker(output_path=str(tmp_path / "lm-eval-log"))
    results = simple_evaluate(
        model="hf", model_args=model_args, tasks=["t"], task_manager=manager, device="cpu", batch_size=8,
        log_samples=True, bootstrap_iters=0, evaluation_tracker=tracker,
    )  # fmt: skip
    # As lm_eval's command line saves a run (lm_eval/_cli/run.py): the aggregate, then each task's samples.
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name="t", samples=samples["t"])
    return {**results, "samples": samples}


def split_by_lm_eval_samples(tmp_path: Path, scores: dict, *fields: str) -> dict[str, float]:
    """The test part split again with lm-eval's samples file as --scores: the scores it reads."""
    (samples_file,) = (tmp_path / "lm-eval-log").rglob("samples_t_*.jsonl")
    data = tmp_path / "test-examples.jsonl"  # the test part's examples as they were before tailsplit scored them
    added = {"logprob_sum", "n_tokens", "logprob_mean", "truncated"}
    rows = [json.loads(line) for line in (tmp_path / "split" / "test.jsonl").read_text().splitlines()]
    data.write_text("".join(json.dumps({k: v for k, v in row.items() if k not in added}) + "\n" for row in rows))
    args = ["split", str(data), "--text", "hypothesis", *fields, "--scores",
            str(samples_file), "--model-name", "SmolLM2 in lm-eval", "--dev-size", "2", "--test-size", "2",
            "--no-analyze", "--out", str(tmp_path / "by-lm-eval")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    import pyarrow.parquet as pq

    read = pq.read_table(tmp_path / "by-lm-eval" / "scores.parquet").to_pydict()
    assert sorted(read["id"]) == sorted(scores)
    return dict(zip(read["id"], read["logprob_sum"]))


def test_lm_eval_reproduces_every_logprob_sum_of_a_labelled_split(
    pairs: Path, tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task, manifest, scores = split_and_export(
        pairs, tmp_path, cache, "--context", "premise", "--label", "label", "--template", "snli"
    )
    results = run_lm_eval(task, manifest["lm_eval_model"]["model_args"], monkeypatch, tmp_path)
    samples = results["samples"]["t"]
    assert len(samples) == len(scores) == 6
    assert any(s["doc"]["hypothesis"][:1].isdigit() for s in samples)  # the space kept apart is in the test set
    for sample in samples:
        doc = sample["doc"]
        loglikelihood = float(sample["resps"][doc["tailsplit_gold"]][0][0])
        assert abs(loglikelihood - scores[doc["id"]]["logprob_sum"]) < 1e-3, doc["hypothesis"]
    # The samples file lm-eval wrote is a score file: the gold choice's log-likelihood per id.
    read = split_by_lm_eval_samples(tmp_path, scores, "--context", "premise", "--label", "label")
    assert read == {s["doc"]["id"]: float(s["resps"][s["doc"]["tailsplit_gold"]][0][0]) for s in samples}


def test_lm_eval_reproduces_an_unprompted_split_and_reports_per_byte_units(
    pairs: Path, tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task, manifest, scores = split_and_export(pairs, tmp_path, cache)
    results = run_lm_eval(task, manifest["lm_eval_model"]["model_args"], monkeypatch, tmp_path)
    samples = results["samples"]["t"]
    total = n_bytes = n_words = 0.0
    for sample in samples:
        doc = sample["doc"]
        assert doc["tailsplit_prompt"] == ""
        loglikelihood = float(sample["resps"][0][0][0])
        assert abs(loglikelihood - scores[doc["id"]]["logprob_sum"]) < 1e-3, doc["hypothesis"]
        total += scores[doc["id"]]["logprob_sum"]
        n_bytes += len(doc["hypothesis"].encode("utf-8"))
        n_words += len(doc["hypothesis"].split())
    read = split_by_lm_eval_samples(tmp_path, scores)
    assert read == {s["doc"]["id"]: float(s["resps"][0][0][0]) for s in samples}
    metrics = results["results"]["t"]
    assert metrics["bits_per_byte,none"] == pytest.approx(-total / n_bytes / math.log(2), rel=1e-4)
    assert metrics["word_perplexity,none"] == pytest.approx(math.exp(-total / n_words), rel=1e-4)
    assert 1 < metrics["byte_perplexity,none"] < 10  # per byte, not the exp of a sum per document
    assert not any(name.startswith("acc") for name in metrics)  # no accuracy: it would read 0.0 ± 0 and mean nothing
