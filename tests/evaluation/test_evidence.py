"""Evidence that a split is hard: transformer baselines, bootstrap intervals, leakage, annotator agreement."""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT_DIR, write_jsonl
from typer.testing import CliRunner

from tailsplit.analysis.leakage import DuplicateKeys, repeated_queries
from tailsplit.analysis.near_duplicates import bigram_sets, similar_pairs
from tailsplit.cli import app
from tailsplit.evaluation.table import SplitScore, bootstrap_intervals, table_rows

runner = CliRunner()
EXAMPLES = ROOT_DIR / "examples" / "data"


# --- leakage ---------------------------------------------------------------------------------


def test_duplicate_keys_match_exact_normalized_and_near_duplicates() -> None:
    queries = [
        "A man sleeps.",
        "a man sleeps",
        "A man sleeps on a red couch today",
        "A man sleeps on a red couch",
        "Dogs run.",
    ]
    train = np.array([True, False, False, True, False])
    keys = DuplicateKeys.build(queries)
    assert keys.leaked("exact", train).tolist() == [False, False, False, False, False]
    assert keys.leaked("normalized", train).tolist() == [False, True, False, False, False]
    # bigrams of the 8-word text vs the 7-word one: 6 shared of 7 → Jaccard 0.857 ≥ 0.7
    assert keys.leaked("near", train).tolist() == [False, True, True, False, False]
    assert keys.share("near", train, ~train) == pytest.approx(2 / 3)


def test_pairs_are_near_only_when_context_and_query_both_are() -> None:
    premise = "A group of people stand around a large table outside a cafe in the sun"
    keys = DuplicateKeys.build(
        ["People are outside.", "Nobody is at the cafe.", "people are outside"], [premise, premise, premise + " today"]
    )
    train = np.array([True, False, False])
    # same premise, different hypothesis: not a near pair; near premise and same hypothesis: near
    assert keys.leaked("near", train).tolist() == [False, False, True]
    assert keys.leaked("normalized", train).tolist() == [False, False, False]


def test_near_duplicates_need_a_jaccard_above_the_threshold() -> None:
    sets = bigram_sets(["a b c d e f", "a b c d e g", "x y z"])
    assert similar_pairs(sets, 0.7).tolist() == []  # 4 of 6 bigrams shared: 0.67
    assert similar_pairs(sets, 0.5).tolist() == [[0, 1]]
    assert repeated_queries(["a", "b", "a", "a", "c", "c"]) == (5, 2)


def _repeated_hypotheses(n_pairs: int = 600, distinct: int = 48) -> list[dict]:
    """An NLI-like set in which few hypotheses repeat under many premises (the label follows
    the hypothesis, as in the sets where hypothesis-only models shine)."""
    rng = random.Random(0)
    hypotheses = [f"statement number {i} about {rng.choice(['cats', 'dogs', 'birds'])}" for i in range(distinct)]
    rows = []
    for i in range(n_pairs):
        h = i % distinct
        rows.append(
            {
                "id": f"p{i}",
                "premise": f"premise {i} {rng.random():.6f}",
                "hypothesis": hypotheses[h],
                "label": ["entailment", "neutral", "contradiction"][h % 3],
            }
        )
    return rows


@pytest.mark.long
def test_repeated_queries_warn_before_scoring_and_leak_into_random_splits(
    tmp_path: Path, fake_backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = write_jsonl(tmp_path / "nli.jsonl", _repeated_hypotheses())
    common = ["--text", "hypothesis", "--context", "premise", "--label", "label", "--no-syntax", "--null-splits", "100"]
    warning = "600 of 600 rows (100.0%) share their query with another row (48 distinct queries repeat)"

    def fail(*_: object) -> None:
        raise RuntimeError("the model was reached")

    with monkeypatch.context() as patch:  # the warning comes before any scoring
        patch.setattr(fake_backend, "score_batch", fail)
        failed = runner.invoke(app, ["run", str(data), *common, "--backend", "fake", "--out", str(tmp_path / "x")])
    assert failed.exit_code != 0 and warning in failed.output and "--group hypothesis" in failed.output
    result = runner.invoke(app, ["run", str(data), *common, "--backend", "fake", "--out", str(tmp_path / "ll")])
    assert result.exit_code == 0 and result.output.count(warning) == 1
    random_split = runner.invoke(
        app, ["split", str(data), *common, "--splitter", "random", "--out", str(tmp_path / "random")]
    )
    assert random_split.exit_code == 0 and warning in random_split.output
    grouped = runner.invoke(
        app,
        [
            "split",
            str(data),
            *common,
            "--group",
            "hypothesis",
            "--splitter",
            "random",
            "--out",
            str(tmp_path / "grouped"),
        ],
    )
    assert grouped.exit_code == 0 and "warning:" not in grouped.output
    leaky = json.loads((tmp_path / "random" / "analysis.json").read_text())
    whole = json.loads((tmp_path / "grouped" / "analysis.json").read_text())
    assert leaky["leakage"]["test"]["query_exact"] == 1.0 and leaky["leakage"]["test"]["pair_exact"] == 0.0
    assert whole["leakage"]["test"]["query_exact"] == 0.0 and whole["leakage"]["dev"]["query_near"] == 0.0
    against = {c["name"]: c for c in leaky["against_null"]}
    assert against["query_exact_in_train"]["observed"] == 1.0 and "query_near_in_train" in against
    assert "pair_near_in_train" in against
    for name in ("report.md", "report.html", "summary.md"):
        assert "also in train" in (tmp_path / "random" / name).read_text()
    assert (
        "| test | 60 |" in (tmp_path / "random" / "summary.md").read_text()
        and "100.00% / 100.00%" in (tmp_path / "random" / "summary.md").read_text()
    )

    # evaluate marks the leaky random baseline, not the grouped one
    evaluated = runner.invoke(
        app,
        [
            "evaluate",
            str(tmp_path / "random"),
            str(tmp_path / "grouped"),
            "--baseline",
            "tfidf-text",
            "--out",
            str(tmp_path / "eval"),
        ],
    )
    assert evaluated.exit_code == 0, evaluated.output
    report = json.loads((tmp_path / "eval" / "evaluation.json").read_text())
    assert (
        len(report["leakage_warnings"]) == 1
        and "random split random: 100.0% of its test queries" in report["leakage_warnings"][0]
    )
    assert {r["folder"].split("/")[-1]: r["test_queries_in_train"]["exact"] for r in report["results"]} == {
        "random": 1.0,
        "grouped": 0.0,
    }
    assert "--group hypothesis" in (tmp_path / "eval" / "table.md").read_text()
    assert "random split random: 100.0%" in evaluated.output


# --- bootstrap intervals ---------------------------------------------------------------------


def test_bootstrap_intervals_pair_shared_examples_and_cover_the_estimate() -> None:
    rng = np.random.default_rng(0)
    ids = tuple(f"e{i}" for i in range(400))
    correct = tuple(bool(v) for v in rng.random(400) < 0.7)
    randoms = [
        SplitScore(f"r{s}", f"random (seed {s})", "tfidf", "accuracy", 0.0, float(np.mean(correct)), ids, correct)
        for s in range(3)
    ]
    same = SplitScore("same", "likelihood (prompted)", "tfidf", "accuracy", 0.0, float(np.mean(correct)), ids, correct)
    worse_correct = tuple(c and i % 4 != 0 for i, c in enumerate(correct))
    worse = SplitScore(
        "worse", "likelihood (reverse)", "tfidf", "accuracy", 0.0, float(np.mean(worse_correct)), ids, worse_correct
    )
    intervals = bootstrap_intervals([*randoms, same, worse], replicates=500)
    (low, high), difference = intervals["same"]
    assert low < np.mean(correct) < high and difference == (0.0, 0.0)  # paired draws: the very same examples
    (low, high), (d_low, d_high) = intervals["worse"]
    assert low < np.mean(worse_correct) < high and d_high < 0  # harder, beyond doubt
    rows = table_rows([*randoms, same, worse])
    assert rows[2]["difference_ci"][1] < 0 and rows[0]["test_ci"] is None
    # unpaired test parts (different ids): the difference interval is wider than paired
    other = SplitScore(
        "other",
        "likelihood (prompted)",
        "tfidf",
        "accuracy",
        0.0,
        float(np.mean(correct)),
        tuple(f"x{i}" for i in range(400)),
        correct,
    )
    (_, _), (o_low, o_high) = bootstrap_intervals([*randoms, other], replicates=500)["other"]
    assert o_low < 0 < o_high and o_high - o_low > 0.05


# --- annotator agreement ---------------------------------------------------------------------


@pytest.mark.long
def test_analyze_agreement_field_compares_annotators_with_gold(tmp_path: Path) -> None:
    rows = []
    for i in range(300):
        label = ["entailment", "neutral", "contradiction"][i % 3]
        other = "neutral" if label != "neutral" else "entailment"
        annotations = [label] * 5 if i % 2 else [label, label, label, other, other]
        rows.append(
            {
                "id": f"e{i}",
                "premise": f"p {i}",
                "hypothesis": f"h {i} " + "word " * (i % 7),
                "label": label,
                **({"annotator_labels": annotations} if i % 5 else {}),
            }
        )
    data = write_jsonl(tmp_path / "nli.jsonl", rows)
    made = runner.invoke(
        app,
        [
            "split",
            str(data),
            "--text",
            "hypothesis",
            "--context",
            "premise",
            "--label",
            "label",
            "--splitter",
            "random",
            "--no-analyze",
            "--out",
            str(tmp_path / "split"),
        ],
    )
    assert made.exit_code == 0, made.output
    result = runner.invoke(
        app,
        [
            "analyze",
            str(tmp_path / "split"),
            "--agreement-field",
            "annotator_labels",
            "--null-splits",
            "50",
            "--no-syntax",
        ],
    )
    assert result.exit_code == 0, result.output
    analysis = json.loads((tmp_path / "split" / "analysis.json").read_text())
    parts = analysis["agreement"]["parts"]
    assert sum(p["annotated"] for p in parts.values()) == 240  # rows without the field skipped

    def pooled(key: str) -> float:
        return sum(p[key] * p["annotated"] for p in parts.values()) / 240

    # half unanimous (agreement 1, entropy 0), half 3 of 5 (agreement 0.6, entropy H(0.6, 0.4) = 0.971)
    assert pooled("agreement") == pytest.approx(0.8) and pooled("entropy") == pytest.approx(0.971 / 2, abs=1e-3)
    assert pooled("unanimous") == pytest.approx(0.5)
    against = {c["name"]: c for c in analysis["against_null"]}
    assert 0.6 < against["annotator_agreement"]["observed"] < 1.0 and "label_entropy" in against
    assert "Annotator agreement (annotator\\_labels)" in (tmp_path / "split" / "report.md").read_text()

    rows[3]["annotator_labels"] = "neutral"
    bad = write_jsonl(tmp_path / "bad.jsonl", rows)
    runner.invoke(
        app,
        [
            "split",
            str(bad),
            "--text",
            "hypothesis",
            "--label",
            "label",
            "--splitter",
            "random",
            "--no-analyze",
            "--out",
            str(tmp_path / "bad-split"),
        ],
    )
    refused = runner.invoke(app, ["analyze", str(tmp_path / "bad-split"), "--agreement-field", "annotator_labels"])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "annotator_labels" in refused.output and "is not a list of labels" in refused.output


# --- transformer baselines -------------------------------------------------------------------


@pytest.fixture(scope="module")
def snli_folders(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two small label-balanced SNLI splits (random and length) of 200 demo pairs."""
    folder = tmp_path_factory.mktemp("snli-splits")
    with gzip.open(EXAMPLES / "snli_dev_3000.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for _, line in zip(range(200), handle)]
    data = write_jsonl(folder / "snli.jsonl", rows)
    out = []
    for name, extra in (("random-0", ["--splitter", "random"]), ("length", ["--splitter", "length"])):
        result = runner.invoke(
            app,
            [
                "split",
                str(data),
                "--text",
                "hypothesis",
                "--context",
                "premise",
                "--label",
                "label",
                "--balance-labels",
                "--no-analyze",
                "--out",
                str(folder / name),
                *extra,
            ],
        )
        assert result.exit_code == 0, result.output
        out.append(str(folder / name))
    return out


@pytest.mark.model
def test_the_bundled_encoder_fine_tunes_as_a_classifier(snli_folders: list[str], tmp_path: Path) -> None:
    """all-MiniLM-L6-v2 itself, with a classification head, trained two steps: the mechanics
    (caching, determinism) are tested on a tiny encoder of its layout below."""
    args = ["--baseline", "encoder", "--max-train", "64", "--max-steps", "2", "--out", str(tmp_path / "a")]
    result = runner.invoke(app, ["evaluate", snli_folders[0], *args])
    assert result.exit_code == 0, result.output
    # never silent while it trains: each baseline said as it starts, then its training steps
    name = Path(snli_folders[0]).name
    assert f"note: {name}: encoder on " in result.output and "note: training (dev checked every" in result.output
    report = json.loads((tmp_path / "a" / "evaluation.json").read_text())
    (encoder,) = [r for r in report["results"] if r["baseline"] == "encoder"]
    assert encoder["steps"] == 2 and 0.0 <= encoder["test"] <= 1.0 and encoder["max_length"] > 10
    from tailsplit.shift.encoder import EncoderSource

    identity = {"name": "all-MiniLM-L6-v2", "identity_sha256": EncoderSource.resolve(None).identity}
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["models"] == report["models"] == {"encoder": identity}  # which weights trained, recorded


@pytest.mark.model
def test_encoder_and_embed_baselines_run_deterministically_and_cache(
    snli_folders: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_encoder: Path
) -> None:
    args = ["--baseline", "encoder", "--baseline", "embed", "--max-train", "64", "--max-steps", "2"]
    args += ["--encoder", str(tiny_encoder)]
    first = runner.invoke(app, ["evaluate", *snli_folders, *args, "--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    report = json.loads((tmp_path / "a" / "evaluation.json").read_text())
    encoder = [r for r in report["results"] if r["baseline"] == "encoder"]
    assert [r["steps"] for r in encoder] == [2, 2] and all(0.0 <= r["test"] <= 1.0 for r in encoder)
    assert all(r["train_examples_per_s"] > 0 and r["max_length"] > 10 for r in encoder)
    assert {r["baseline"] for r in report["results"]} == {"encoder", "embed", "chance", "majority"}
    from tailsplit.shift.encoder import EncoderSource

    identity = {"name": tiny_encoder.name, "identity_sha256": EncoderSource.resolve(str(tiny_encoder)).identity}
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["models"] == {"encoder": identity}
    table = report["table"]
    assert (
        table[0]["split"] == "random (1 seed)" and table[1]["test_ci"][0] <= table[1]["test"] <= table[1]["test_ci"][1]
    )
    cached = sorted((Path(os.environ["TAILSPLIT_CACHE_DIR"]) / "evaluations").glob("*.json"))
    assert len(cached) == 2

    # a rerun trains nothing: every result comes from the cache
    import tailsplit.evaluation.encoder as encoder_module

    def no_training(*_: object, **__: object) -> None:
        raise AssertionError("trained again")

    with monkeypatch.context() as patch:
        patch.setattr(encoder_module, "finetune_encoder", no_training)
        again = runner.invoke(app, ["evaluate", *snli_folders, *args])
    assert again.exit_code == 0, again.output

    # training afresh with the same seed gives the same model
    for path in cached:
        path.unlink()
    fresh = runner.invoke(app, ["evaluate", snli_folders[0], *args, "--out", str(tmp_path / "b")])
    assert fresh.exit_code == 0, fresh.output
    retrained = json.loads((tmp_path / "b" / "evaluation.json").read_text())["results"]
    assert [(r["baseline"], r["dev"], r["test"]) for r in retrained] == [
        (r["baseline"], r["dev"], r["test"]) for r in report["results"] if r["folder"] == snli_folders[0]
    ]


@pytest.mark.model
@pytest.mark.parametrize(
    "extra, message",
    [
        (["--encoder", "/no/such/encoder"], "is not an existing folder"),
        (["--device", "cuda"], "device='cuda'"),
        (["--device", "tpu"], "device='tpu' is unknown"),
        (["--leakage-threshold", "2"], "--leakage-threshold"),
        (["--fairness-margin", "-0.1"], "--fairness-margin"),
        (["--agreement-field", "annotator_labels"], "no test example of any split has annotator labels"),
    ],
)
def test_encoder_options_are_refused_before_training(
    snli_folders: list[str], extra: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    result = runner.invoke(app, ["evaluate", *snli_folders, "--baseline", "encoder", *extra])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert message in result.output.replace("\n", " ")


def test_encoder_baseline_needs_labels(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "q.jsonl", [{"id": f"q{i}", "text": f"question number {i}"} for i in range(60)])
    made = runner.invoke(
        app, ["split", str(data), "--splitter", "random", "--no-analyze", "--out", str(tmp_path / "s")]
    )
    assert made.exit_code == 0, made.output
    result = runner.invoke(app, ["evaluate", str(tmp_path / "s"), "--baseline", "encoder"])
    assert result.exit_code == 2 and "classify labels" in result.output


@pytest.mark.slow
def test_lm_baseline_fine_tunes_the_scoring_lm_as_a_classifier(tmp_path: Path, tiny_llama: Path) -> None:
    """The LM that scored the likelihood split (a small Llama here), with a classification head,
    trains on the split; a random split alone has no LM to fine-tune and is refused before
    anything loads."""
    cache = tmp_path / "cache"
    with gzip.open(EXAMPLES / "snli_dev_3000.jsonl.gz", "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for _, line in zip(range(60), handle)]
    for i, row in enumerate(rows[::2]):  # every other pair annotated: 4 of 5 annotators agree, or all
        row["annotator_labels"] = [row["label"]] * 4 + [row["label"] if i % 2 else "neutral"]
    data = write_jsonl(tmp_path / "snli.jsonl", rows)
    common = ["--text", "hypothesis", "--context", "premise", "--label", "label", "--balance-labels", "--no-analyze",
              "--dev-size", "9", "--test-size", "9"]  # fmt: skip
    folders = []
    for name, command, extra in (("ll", "run", ["--template", "snli", "--model", str(tiny_llama), "--cache-dir", str(cache)]),
                                 ("random-0", "split", ["--splitter", "random"])):  # fmt: skip
        result = runner.invoke(app, [command, str(data), *common, *extra, "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
        folders.append(str(tmp_path / name))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TAILSPLIT_CACHE_DIR", str(cache))
        result = runner.invoke(app, ["evaluate", *folders, "--baseline", "lm", "--baseline", "tfidf", "--max-train",
                                     "12", "--max-steps", "1", "--agreement-field", "annotator_labels",
                                     "--out", str(tmp_path / "eval")])  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "eval" / "evaluation.json").read_text())
    lm = [r for r in report["results"] if r["baseline"] == "lm"]
    assert [r["steps"] for r in lm] == [1, 1] and all(0.0 <= r["test"] <= 1.0 for r in lm)
    samples = [json.loads(line) for line in (tmp_path / "eval" / "predictions.jsonl").read_text().splitlines()]
    assert sum(s["baseline"] == "lm" for s in samples) == 18
    # the fairness table: the scoring LM's model against tfidf on the likelihood split, annotator agreement
    fair = report["fairness"]
    assert fair["models"] == ["lm", "tfidf"] and fair["scoring_model"] == "lm"
    assert [r["folder"] for r in fair["rows"]] == ["random-0", "ll"] and fair["rows"][1]["in_the_loop"] == "lm"
    assert 0.8 <= fair["rows"][1]["agreement"] <= 1.0 and fair["rows"][1]["agreement_change_ci"] is not None
    assert [(c["baseline"], c["outcome"]) for c in fair["conclusions"]] == [("lm", "inconclusive")]  # 9 examples
    assert "## Fairness" in (tmp_path / "eval" / "fairness.md").read_text()
    assert "fairness: lm: likelihood" in result.output
    alone = runner.invoke(app, ["evaluate", folders[1], "--baseline", "lm"])
    assert alone.exit_code == 2 and "none of them was scored" in alone.output
