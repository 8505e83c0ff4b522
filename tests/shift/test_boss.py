"""BOSS end to end: the task model ``ood-rank`` trains to measure drops, the label map, and
``tailsplit curve`` (points, fits, the cache and resuming after an interruption)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_same_output, nli_pairs, write_jsonl
from typer.testing import CliRunner

import tailsplit
from tailsplit.cli import app
from tailsplit.errors import ConfigError, InputError
from tailsplit.shift.datasets import DatasetSpec
from tailsplit.shift.drops import accuracy_and_drops
from tailsplit.shift.labelled import (
    LabelledSet,
    correct,
    group_keys,
    id_parts,
    mapped,
    parse_label_map,
    read_labelled,
    shared_passages,
)
from tailsplit.shift.task_kinds import read_examples

runner = CliRunner()
TINY = ["--max-steps", "4"]  # a handful of steps of the tiny encoder: the plumbing, not the accuracy


def _labelled(labels: list[str], name: str = "rte") -> LabelledSet:
    texts = tuple(f"text {i}" for i in range(len(labels)))
    return LabelledSet(name, f"{name}.jsonl", (texts, texts), tuple(labels))


def test_unmapped_candidate_labels_are_refused_with_their_list() -> None:
    rte = _labelled(["entailment", "not_entailment", "not_entailment", "-"])
    with pytest.raises(ConfigError) as refused:
        mapped(rte, ["contradiction", "entailment", "neutral"], {})
    assert "'-', 'not_entailment'" in str(refused.value) and "--label-map FROM=TO" in str(refused.value)


def test_label_map_folds_predictions_and_drops_unlabelled_examples() -> None:
    label_map = parse_label_map(["neutral=not_entailment", "contradiction=not_entailment", "-="])
    rte = mapped(
        _labelled(["entailment", "not_entailment", "not_entailment", "-"]),
        ["contradiction", "entailment", "neutral"],
        label_map,
    )
    assert rte.labels == ("entailment", "not_entailment", "not_entailment") and rte.dropped == 1
    predicted = ["entailment", "neutral", "entailment"]  # a three-way model's predictions
    assert correct(predicted, rte.labels, label_map).tolist() == [True, True, False]
    numeric = mapped(_labelled(["0", "1", "2"]), ["contradiction", "entailment", "neutral"],
                     parse_label_map(["0=entailment", "1=neutral", "2=contradiction"]))  # fmt: skip
    assert numeric.labels == ("entailment", "neutral", "contradiction")
    for bad in (["entailment"], ["=x"], ["a=b", "a=c"]):
        with pytest.raises(ConfigError, match="label-map"):
            parse_label_map(bad)


def test_the_id_file_is_divided_by_a_seeded_split_into_disjoint_parts(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "id.jsonl", nli_pairs(50))
    spec = read_labelled(DatasetSpec.parse(f"id={data}@premise+hypothesis"), "label")
    parts = id_parts(spec, test_size=0.2, dev_size=5, seed=3)
    assert (len(parts.train), len(parts.dev), len(parts.test)) == (35, 5, 10)
    seen = [t for p in (parts.train, parts.dev, parts.test) for t in p.columns[0]]
    assert sorted(seen) == sorted(r["premise"] for r in nli_pairs(50))
    again = id_parts(spec, test_size=0.2, dev_size=5, seed=3)
    assert again.test == parts.test and id_parts(spec, test_size=0.2, dev_size=5, seed=4).test != parts.test
    with pytest.raises(ConfigError, match="takes all 50"):
        id_parts(spec, test_size=50, dev_size=0, seed=0)


SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


@pytest.mark.skipif(not (SHARED / "squad").is_dir(), reason="the shared data is not beside the checkout")
def test_a_qa_id_file_is_divided_by_context_paragraph_so_none_leaks(tmp_path: Path) -> None:
    spec = DatasetSpec.parse(f"squad={SHARED / 'squad' / 'dev.jsonl.gz'}@question+context")
    whole = read_examples("qa", spec, "answers")
    questions = id_parts(whole, test_size=0.2, dev_size=0.1, seed=0)  # questions drawn alone: as before
    assert shared_passages(questions) > 0.9 * len(questions.test)
    parts = id_parts(whole, test_size=0.2, dev_size=0.1, seed=0, groups=whole.columns[1])
    assert shared_passages(parts) == 0
    contexts = [set(p.columns[1]) for p in (parts.train, parts.dev, parts.test)]
    assert not (contexts[0] & contexts[1]) and not (contexts[0] & contexts[2]) and not (contexts[1] & contexts[2])
    assert sum(len(p) for p in (parts.train, parts.dev, parts.test)) == len(whole)
    assert abs(len(parts.test) - 0.2 * len(whole)) < 40  # a paragraph holds a handful of questions
    # any task, by a field: whole articles
    titles = group_keys(SHARED / "squad" / "dev.jsonl.gz", "title")
    by_title = id_parts(whole, test_size=0.2, dev_size=0.1, seed=0, groups=titles)
    test_titles = {titles[i] for i, q in enumerate(whole.columns[0]) if q in set(by_title.test.columns[0])}
    train_titles = {titles[i] for i, q in enumerate(whole.columns[0]) if q in set(by_title.train.columns[0])}
    assert not (test_titles & train_titles)
    assert by_title.origin == "random split of whole groups (seed 0)"


def test_id_group_names_a_field_every_example_has_and_only_for_an_id_file(tmp_path: Path) -> None:
    rows = nli_pairs(20)
    rows[7] = {k: v for k, v in rows[7].items() if k != "premise"}
    data = write_jsonl(tmp_path / "id.jsonl", rows)
    with pytest.raises(InputError, match=r"id.jsonl:8: field 'premise' is missing.*--id-group"):
        group_keys(data, "premise")
    folder = tmp_path / "wnut"
    folder.mkdir()
    for part in ("train", "test"):
        write_jsonl(folder / f"{part}.jsonl", [{"tokens": ["Ann", "runs"], "ner_tags": ["B-person", "O"]}] * 4)
    ood = write_jsonl(tmp_path / "ood.jsonl", [{"tokens": ["Bob"], "ner_tags": ["B-person"]}] * 4)
    result = CliRunner().invoke(
        app,
        [
            "curve",
            "--task",
            "ner",
            "--id",
            str(folder),
            "--ood",
            str(ood),
            "--id-group",
            "doc",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 2 and "--id-group='doc' groups the random split of an ID file" in result.output
    assert not (tmp_path / "o").exists()


def test_drop_intervals_resample_each_test_set_independently() -> None:
    rng = np.random.default_rng(0)
    id_correct, far, near = rng.random(400) < 0.8, rng.random(300) < 0.5, rng.random(300) < 0.79
    id_acc, [(far_acc, far_drop), (_, near_drop)] = accuracy_and_drops(id_correct, [far, near], seed=1)
    assert id_acc.low < id_acc.value < id_acc.high and far_acc.low < far_acc.value < far_acc.high
    assert far_drop.value == pytest.approx(id_correct.mean() - far.mean()) and far_drop.low > 0.15
    assert far_drop.high - far_drop.low > far_acc.high - far_acc.low  # the ID test set's error adds in
    assert near_drop.low < 0 < near_drop.high  # no drop to speak of: the interval holds zero
    assert accuracy_and_drops(id_correct, [far], seed=1)[1][0] == (far_acc, far_drop)  # seeded


@pytest.fixture
def nli_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_encoder: Path) -> dict[str, Path]:
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "cache"))
    labels = ("entailment", "neutral", "contradiction")
    mnli = [
        {"premise": f"The report number {i} was {w}.", "hypothesis": f"Report {i} {h}.", "label": labels[i % 3]}
        for i, (w, h) in enumerate(zip(["filed", "late", "short"] * 20, ["exists", "was long", "was never"] * 20))
    ]
    anli = [{"premise": f"In {1900 + i} a ship sailed.", "hypothesis": "A ship sailed.", "label": labels[i % 3]}
            for i in range(24)]  # fmt: skip
    rte = [{"sentence1": f"Dogs bark {i}.", "sentence2": "Dogs make noise.", "label": ["entailment", "not_entailment"][i % 2]}
           for i in range(20)]  # fmt: skip
    files = {
        "mnli": write_jsonl(tmp_path / "mnli.jsonl", mnli),
        "anli": write_jsonl(tmp_path / "anli.jsonl", anli),
        "rte": write_jsonl(tmp_path / "rte.jsonl", rte),
    }
    (tmp_path / "candidates.csv").write_text(
        "name,path,fields,source\nanli,anli.jsonl,premise+hypothesis,wikipedia\nrte,rte.jsonl,sentence1+sentence2,news\n"
    )
    files["candidates"] = tmp_path / "candidates.csv"
    files["encoder"] = tiny_encoder
    return files


def _ood_rank(files: dict[str, Path], out: Path, *extra: str) -> object:
    return runner.invoke(
        app,
        ["ood-rank", "--id", f"mnli={files['mnli']}@premise+hypothesis", "--candidates", str(files["candidates"]),
         *TINY, "--encoder", str(files["encoder"]), "--task-encoder", str(files["encoder"]), *extra, "--out", str(out)],
    )  # fmt: skip


@pytest.mark.model
def test_ood_rank_refuses_unmapped_labels_before_any_model_loads(
    nli_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tailsplit.evaluation.encoder as encoder_module

    def no_model(*_: object, **__: object) -> None:
        raise AssertionError("a model loaded before the inputs were checked")

    monkeypatch.setattr(encoder_module.PairClassifier, "__init__", no_model)
    refused = _ood_rank(nli_files, tmp_path / "refused")
    assert refused.exit_code == 2, refused.output
    assert "'not_entailment'" in refused.output and "--label-map" in refused.output
    assert not (tmp_path / "refused").exists()
    given = _ood_rank(nli_files, tmp_path / "given", "--id-accuracy", "0.8")
    assert given.exit_code == 2 and "--id-accuracy goes with the accuracies" in given.output


@pytest.mark.model
def test_curve_tunes_fewer_parameters_per_run_on_request(nli_files: dict[str, Path], tmp_path: Path) -> None:
    label_map = ["--label-map", "neutral=not_entailment", "--label-map", "contradiction=not_entailment"]
    curve = runner.invoke(
        app,
        ["curve", "--id", f"mnli={nli_files['mnli']}@premise+hypothesis",
         "--ood", f"rte={nli_files['rte']}@sentence1+sentence2", *label_map, "--trainable-layers", "0,2",
         *TINY, "--encoder", str(nli_files["encoder"]), "--checkpoint-every", "2", "--out", str(tmp_path / "curve")],
    )  # fmt: skip
    assert curve.exit_code == 0, curve.output
    with (tmp_path / "curve" / "points.csv").open() as f:
        points = list(csv.DictReader(f))
    assert [(p["trainable_layers"], p["step"]) for p in points] == [("0", "2"), ("0", "4"), ("2", "2"), ("2", "4")]
    runs = json.loads((tmp_path / "curve" / "curve.json").read_text())["runs"]
    assert [(r["trainable_layers"], r["recipe"]["trainable_layers"]) for r in runs] == [(0, 0), (2, 2)]
    # what stays frozen: with 0 layers only the head (pooler and classifier) moves; with 1 of 2, layer 1 too
    from tailsplit.evaluation.encoder import EncoderRecipe, prepared_classifier

    columns = [[f"premise {i}" for i in range(16)], [f"hypothesis {i % 3}" for i in range(16)]]
    labels = ["a", "b"] * 8
    for tuned, moved in ((0, {"classifier", "pooler"}), (1, {"classifier", "layer.1", "pooler"})):
        recipe = EncoderRecipe(max_steps=3, batch_size=4, eval_every=3, trainable_layers=tuned)
        classifier, rows, y = prepared_classifier(
            columns, labels, location=str(nli_files["encoder"]), recipe=recipe, device="cpu"
        )
        before = {n: p.detach().clone() for n, p in classifier.model.named_parameters()}
        classifier.fit(rows, y, rows[:4], y[:4])
        changed = {n for n, p in classifier.model.named_parameters() if not bool((p == before[n]).all())}
        assert changed and all(any(m in n for m in moved) for n in changed), changed
        tuned_now = sum(p.numel() for p in classifier.model.parameters() if p.requires_grad)
        assert classifier.tuned_parameters == tuned_now
    too_many = runner.invoke(
        app,
        ["curve", "--id", f"mnli={nli_files['mnli']}@premise+hypothesis",
         "--ood", f"rte={nli_files['rte']}@sentence1+sentence2", *label_map, "--trainable-layers", "3,1",
         *TINY, "--encoder", str(nli_files["encoder"]), "--checkpoint-every", "2", "--out", str(tmp_path / "c3")],
    )  # fmt: skip
    assert too_many.exit_code == 2 and "--trainable-layers=3 exceeds the 2 layers of encoder" in too_many.output
    assert not (tmp_path / "c3").exists()


@pytest.mark.model
def test_max_examples_samples_the_id_test_set_too(nli_files: dict[str, Path], tmp_path: Path) -> None:
    label_map = ["--label-map", "neutral=not_entailment", "--label-map", "contradiction=not_entailment"]
    result = _ood_rank(nli_files, tmp_path / "ood", *label_map, "--max-examples", "5")
    assert result.exit_code == 0, result.output
    ood = json.loads((tmp_path / "ood" / "ood.json").read_text())
    assert ood["id"]["examples"] == 5 and all(d["examples"] == 5 for d in ood["decisions"])


@pytest.mark.model
def test_ood_rank_trains_the_task_model_and_curve_points_equal_its_accuracies(
    nli_files: dict[str, Path], tmp_path: Path
) -> None:
    label_map = ["--label-map", "neutral=not_entailment", "--label-map", "contradiction=not_entailment"]
    result = _ood_rank(nli_files, tmp_path / "ood", *label_map)
    assert result.exit_code == 0, result.output
    ood = json.loads((tmp_path / "ood" / "ood.json").read_text())
    task = ood["task_model"]
    assert task["measured"] and task["id_parts"] == {
        "origin": "random split (seed 0)",
        "train": 43,
        "dev": 5,
        "test": 12,
    }
    assert ood["id"]["examples"] == 12 and ood["id"]["accuracy_ci"][0] <= ood["id"]["accuracy"]
    for d in ood["decisions"]:
        low, high = d["drop_ci"]
        assert low <= d["drop"] <= high and d["drop"] == pytest.approx(ood["id"]["accuracy"] - d["accuracy"], abs=2e-4)
    assert "drop (95% CI)" in (tmp_path / "ood" / "report.md").read_text()
    again = _ood_rank(nli_files, tmp_path / "again", *label_map)  # from the cache, byte for byte
    assert "cached" in again.output
    assert (tmp_path / "again" / "ood.json").read_text() == (tmp_path / "ood" / "ood.json").read_text().replace(
        '"cached": false', '"cached": true'
    )
    by_python = tailsplit.ood_rank(  # the same call from Python writes the same folder
        f"mnli={nli_files['mnli']}@premise+hypothesis", nli_files["candidates"], max_steps=4,
        encoder=str(nli_files["encoder"]), task_encoder=str(nli_files["encoder"]),
        label_map=["neutral=not_entailment", "contradiction=not_entailment"], out=tmp_path / "python" / "again",
    )  # fmt: skip
    assert [d["name"] for d in by_python.content["decisions"]] == [d["name"] for d in ood["decisions"]]
    for name in ("ood.json", "report.md"):
        assert_same_output(tmp_path / "python" / "again" / name, tmp_path / "again" / name)
    # the curve's last checkpoint is the model ood-rank evaluated (same data, recipe and steps)
    curve = runner.invoke(
        app,
        ["curve", "--id", f"mnli={nli_files['mnli']}@premise+hypothesis",
         "--ood", f"anli={nli_files['anli']}@premise+hypothesis",
         "--ood", f"rte={nli_files['rte']}@sentence1+sentence2", *label_map,
         *TINY, "--encoder", str(nli_files["encoder"]), "--checkpoint-every", "1", "--out", str(tmp_path / "curve")],
    )  # fmt: skip
    assert curve.exit_code == 0, curve.output
    with (tmp_path / "curve" / "points.csv").open() as f:
        points = list(csv.DictReader(f))
    assert [(p["group"], p["step"]) for p in points] == [(g, str(s)) for s in range(1, 5) for g in ("anli", "rte")]
    last = {p["group"]: p for p in points if p["step"] == "4"}
    decisions = {d["name"]: d for d in ood["decisions"]}
    for name in ("anli", "rte"):
        assert float(last[name]["id_acc"]) == pytest.approx(ood["id"]["accuracy"], abs=5e-5)
        assert float(last[name]["ood_acc"]) == pytest.approx(decisions[name]["accuracy"], abs=5e-5)
        assert int(last[name]["ood_examples"]) == decisions[name]["examples"]
    python_curve = tailsplit.curve(
        f"mnli={nli_files['mnli']}@premise+hypothesis",
        [f"anli={nli_files['anli']}@premise+hypothesis", f"rte={nli_files['rte']}@sentence1+sentence2"],
        label_map=["neutral=not_entailment", "contradiction=not_entailment"], max_steps=4,
        encoders=[str(nli_files["encoder"])], checkpoint_every=1, out=tmp_path / "python" / "curve",
    )  # fmt: skip
    assert len(python_curve.rows()) == len(points)
    for name in ("points.csv", "curve.json"):
        assert (tmp_path / "python" / "curve" / name).read_bytes() == (tmp_path / "curve" / name).read_bytes(), name
    fitted = runner.invoke(app, ["correlate", str(tmp_path / "curve" / "points.csv")])  # read as written
    curve_groups = json.loads((tmp_path / "curve" / "curve.json").read_text())["groups"]
    for name in ("anli", "rte"):  # the same fit, or the reason it cannot be fitted (never a crash after training)
        if curve_groups[name]["type"] is None:
            assert fitted.exit_code == 2 and "cannot be fitted" in curve_groups[name]["reason"]
        else:
            assert fitted.exit_code == 0 and f"{name}: " in fitted.output


@pytest.mark.model
def test_curve_resumes_after_an_interruption_with_the_points_of_an_uninterrupted_run(
    nli_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tailsplit.evaluation.encoder as encoder_module

    args = ["curve", "--id", f"mnli={nli_files['mnli']}@premise+hypothesis",
            "--ood", f"<i>$a|n$</i>={nli_files['anli']}@premise+hypothesis", "--max-steps", "4", "--checkpoint-every", "2",
            "--train-sizes", "20,43", "--encoder", str(nli_files["encoder"])]  # fmt: skip
    whole = runner.invoke(app, [*args, "--out", str(tmp_path / "whole")])
    assert whole.exit_code == 0, whole.output
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "other-cache"))
    original, calls = encoder_module.PairClassifier.predict, []

    def interrupted(self: object, rows: object, *a: object) -> object:
        calls.append(1)
        if len(calls) == 3:  # ID test at the first run's second checkpoint
            raise KeyboardInterrupt
        return original(self, rows, *a)

    monkeypatch.setattr(encoder_module.PairClassifier, "predict", interrupted)
    stopped = runner.invoke(app, [*args, "--out", str(tmp_path / "resumed")])
    assert stopped.exit_code != 0 and not (tmp_path / "resumed").exists()
    states = list((tmp_path / "other-cache" / "curves").glob("*/state.pt"))
    assert len(states) == 1 and sorted(p.name for p in states[0].parent.iterdir()) == ["state.pt", "step-2.json"]
    monkeypatch.setattr(encoder_module.PairClassifier, "predict", original)
    resumed = runner.invoke(app, [*args, "--out", str(tmp_path / "resumed")])
    assert resumed.exit_code == 0, resumed.output
    assert (tmp_path / "resumed" / "points.csv").read_bytes() == (tmp_path / "whole" / "points.csv").read_bytes()
    assert not list((tmp_path / "other-cache" / "curves").glob("*/state.pt"))  # finished runs keep no state
    curve = json.loads((tmp_path / "resumed" / "curve.json").read_text())
    fit = curve["groups"]["<i>$a|n$</i>"]  # fitted on its 4 points, or the reason it cannot be
    assert (fit["n"] == 4 if fit["type"] else "cannot be fitted" in fit["reason"]) and [
        r["train_size"] for r in curve["runs"]
    ] == [20, 43]
    assert any(verdict in whole.output for verdict in ("Type", "none of the types", "cannot be fitted"))
    page = (tmp_path / "resumed" / "report.html").read_text()
    assert page.count("<svg") == 1 and "Provenance" in page
    assert "<i>$a|n$</i>" not in page and "&lt;i&gt;$a" in page  # a data name stays inert text


@pytest.mark.model
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--train-sizes", "500"], "ID train holds 43"),
        (["--max-steps", "2", "--checkpoint-every", "2"], "fewer than the 3 points"),
        (["--ood", "x=rte.jsonl@sentence1"], "gives 1 text field(s)"),
        (["--ood", "mnli=anli.jsonl@premise+hypothesis"], "repeat"),
        (["--encoder", "no/such/place"], "not an existing folder"),
        (["--label-field", "gold"], "field 'gold' is missing"),
    ],
)
def test_curve_refuses_bad_settings_before_training(
    nli_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(
        app,
        ["curve", "--id", "mnli=mnli.jsonl@premise+hypothesis", "--ood", "anli=anli.jsonl@premise+hypothesis",
         *extra, "--out", "curve"],
    )  # fmt: skip
    assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "curve").exists() and not (tmp_path / "cache" / "curves").exists()


@pytest.mark.model
def test_ood_rank_takes_a_split_folder_as_the_id_data(nli_files: dict[str, Path], tmp_path: Path) -> None:
    split = runner.invoke(
        app,
        ["split", str(nli_files["mnli"]), "--splitter", "random", "--text", "hypothesis", "--context", "premise",
         "--label", "label", "--dev-size", "6", "--test-size", "12", "--no-analyze", "--out", str(tmp_path / "s")],
    )  # fmt: skip
    assert split.exit_code == 0, split.output
    (tmp_path / "anli-only.csv").write_text("name,path,fields,source\nanli,anli.jsonl,premise+hypothesis,wikipedia\n")
    result = runner.invoke(
        app,
        ["ood-rank", "--id", f"mnli={tmp_path / 's'}@premise+hypothesis", "--candidates",
         str(tmp_path / "anli-only.csv"), *TINY, "--encoder", str(nli_files["encoder"]), "--task-encoder", str(nli_files["encoder"]),
         "--out", str(tmp_path / "ood")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    task = json.loads((tmp_path / "ood" / "ood.json").read_text())["task_model"]
    assert task["id_parts"] == {"origin": "split folder", "train": 42, "dev": 6, "test": 12}


@pytest.mark.model
def test_ood_rank_and_curve_say_what_they_do_while_they_train(
    nli_files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never silent for long: each step said as it starts, training steps and checkpoints as
    status lines in a log (every 10 s; every step here); ``-q`` keeps them quiet."""
    import tailsplit.progress as progress

    monkeypatch.setattr(progress, "STATUS_EVERY_S", 0.0)
    label_map = ["--label-map", "neutral=not_entailment", "--label-map", "contradiction=not_entailment"]
    ranked = _ood_rank(nli_files, tmp_path / "ood", *label_map)
    assert ranked.exit_code == 0, ranked.output
    said = ranked.output
    assert "embedding " in said and "training the classification task model on" in said, said
    assert "training (dev checked every 200 steps): 1/4 steps" in said and "predicting " in said, said
    # each evaluated example's prediction beside its gold label, in the folder (not only the cache)
    rows = [json.loads(line) for line in (tmp_path / "ood" / "predictions.jsonl").read_text().splitlines()]
    assert [r["set"] for r in rows][0] == "mnli:test" and {"anli", "rte"} <= {r["set"] for r in rows}
    assert all(set(r) == {"set", "row", "text", "gold", "prediction"} for r in rows)
    assert "predictions.jsonl" in json.loads((tmp_path / "ood" / "manifest.json").read_text())["outputs"]
    again = _ood_rank(nli_files, tmp_path / "ood2", *label_map)
    assert "predictions are cached: no training" in again.output and "training (dev" not in again.output
    curve = ["curve", "--id", f"mnli={nli_files['mnli']}@premise+hypothesis",
             "--ood", f"rte={nli_files['rte']}@sentence1+sentence2", *label_map,
             "--trainable-layers", "0,2", *TINY, "--encoder", str(nli_files["encoder"]), "--checkpoint-every", "2"]  # fmt: skip
    loud = runner.invoke(app, [*curve, "--out", str(tmp_path / "curve")])
    assert loud.exit_code == 0, loud.output
    assert "training to each checkpoint: 1/4 steps" in loud.output and "checkpoint 2: predicted" in loud.output
    quiet = runner.invoke(app, [*curve, "-q", "--out", str(tmp_path / "curve-q")])
    assert quiet.exit_code == 0 and "checkpoint" not in quiet.output and "training" not in quiet.output
