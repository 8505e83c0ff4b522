"""BOSS's NER and extractive-QA tasks: the readers (NER column files, SQuAD's nested JSON), the
checks on tags and answers, the label map of entity types, the metrics against their reference
implementations (seqeval; torchmetrics' SQuAD v1.1 metric), both task-model heads on a tiny
encoder, and ``ood-rank`` / ``curve`` end to end with the metric named."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from helpers import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.errors import ConfigError, InputError
from tailsplit.io.readers import read_all
from tailsplit.shift.datasets import DatasetSpec
from tailsplit.shift.drops import metric_and_drops
from tailsplit.shift.task_kinds import metric_value, read_examples, task_kind
from tailsplit.shift.task_metrics import UNSCORED, answer_scores, entity_counts, entity_f1, entity_spans
from tailsplit.shift.tasks import map_tags, unscored_effect

NER = task_kind("ner")

runner = CliRunner()
TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-creative-work", "I-creative-work"]


def _random_tags(rng: np.random.Generator, n: int) -> list[list[str]]:
    """Sentences of any tags — invalid transitions (I- after O, I- of another type) included."""
    return [[TAGS[i] for i in rng.integers(0, len(TAGS), rng.integers(1, 12))] for _ in range(n)]


@pytest.mark.parametrize("seed", range(5))
def test_entity_f1_equals_seqeval_on_any_tags(seed: int) -> None:
    from seqeval.metrics import f1_score
    from seqeval.metrics.sequence_labeling import get_entities

    rng = np.random.default_rng(seed)
    gold = _random_tags(rng, 60)
    predicted = [list(g) if rng.random() < 0.4 else [TAGS[i] for i in rng.integers(0, len(TAGS), len(g))] for g in gold]
    for tags in gold + predicted:
        assert entity_spans(tags) == [(t, s, e) for t, s, e in get_entities(tags)]
    counts = np.array([entity_counts(p, g) for p, g in zip(predicted, gold)], dtype=np.float64)
    assert abs(float(entity_f1(counts.sum(axis=0))) - f1_score(gold, predicted)) < 1e-9


@pytest.mark.model  # the reference (torchmetrics) imports torch
def test_squad_scores_equal_the_reference_metric() -> None:
    import torch
    from torchmetrics.functional.text import squad

    cases = [
        ("the Eiffel Tower", ["Eiffel Tower", "tower"]),
        ("in 1889, in Paris!", ["1889"]),
        ("An apple a day", ["apple", "an apple a day keeps"]),
        ("Denver Broncos", ["Denver Broncos", "The Denver Broncos", "Broncos"]),
        ("nothing alike", ["Carolina Panthers"]),
        ("Über-größe café", ["über größe", "café"]),
    ]
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # the reference computes in the default type: exact to 1e-9
    try:
        for i, (prediction, golds) in enumerate(cases):
            ref = squad([{"prediction_text": prediction, "id": str(i)}],
                        [{"answers": {"text": golds, "answer_start": [0] * len(golds)}, "id": str(i)}])  # fmt: skip
            exact, f1 = answer_scores(prediction, golds)
            assert abs(exact - float(ref["exact_match"]) / 100) < 1e-9 and abs(f1 - float(ref["f1"]) / 100) < 1e-9
        whole = squad([{"prediction_text": p, "id": str(i)} for i, (p, _) in enumerate(cases)],
                      [{"answers": {"text": g, "answer_start": [0] * len(g)}, "id": str(i)} for i, (_, g) in enumerate(cases)])  # fmt: skip
    finally:
        torch.set_default_dtype(previous)
    mean_f1 = float(np.mean([answer_scores(p, g)[1] for p, g in cases]))
    assert abs(mean_f1 - float(whole["f1"]) / 100) < 1e-9


def test_ner_drops_bootstrap_the_micro_f1_of_resampled_sentences() -> None:
    gold = [("B-PER", "I-PER", "O"), ("B-LOC", "O")] * 40
    id_stats = NER.example_stats(gold, gold, {})
    half = NER.example_stats([g if i % 2 else ("O",) * len(g) for i, g in enumerate(gold)], gold, {})
    id_f1, [(ood_f1, drop)] = metric_and_drops(id_stats, [half], metric=NER.metric, seed=0)
    assert (
        id_f1.value == 1.0 and ood_f1.value == pytest.approx(2 * 40 / (40 + 80)) and drop.low < drop.value < drop.high
    )


def test_column_files_are_read_as_published(tmp_path: Path) -> None:
    conll = tmp_path / "eng.conll"
    conll.write_text(
        "-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n\nPeter NNP B-NP B-PER\nBlackburn NNP I-NP I-PER\n"
    )
    assert [(r.line, r.record) for r in read_all(conll)] == [
        (3, {"tokens": ["EU", "rejects"], "ner_tags": ["B-ORG", "O"]}),
        (6, {"tokens": ["Peter", "Blackburn"], "ner_tags": ["B-PER", "I-PER"]}),
    ]
    fewnerd = tmp_path / "train.txt"  # Few-NERD: bare types (IO), read into IOB2
    fewnerd.write_text("Paul\tperson-actor\nNewman\tperson-actor\nin\tO\nParis\tlocation-GPE\n")
    read = read_examples("ner", DatasetSpec("fewnerd", str(fewnerd), ("tokens",)), "ner_tags")  # .txt: read as columns
    assert read.labels == (("B-person-actor", "I-person-actor", "O", "B-location-GPE"),)
    with pytest.raises(InputError, match="unknown format"):  # elsewhere a .txt file is no data file
        read_all(fewnerd)
    mixed = tmp_path / "mixed.conll"
    mixed.write_text("a B-PER\nb person\n")
    with pytest.raises(InputError, match=r"mixed\.conll:2: mixes prefixed tags"):
        read_all(mixed)
    single = tmp_path / "single.conll"
    single.write_text("a B-PER\nb\n")
    with pytest.raises(InputError, match=r"single\.conll:2: has one column"):
        read_all(single)


def test_squad_json_is_read_and_every_answer_checked_at_its_offset(tmp_path: Path) -> None:
    document = {"version": "1.1", "data": [{"title": "Paris", "paragraphs": [{"context": "Paris is in France.", "qas": [
        {"id": "q1", "question": "Where is Paris?", "answers": [{"text": "France", "answer_start": 12}]},
        {"id": "q2", "question": "What is in France?", "answers": [{"text": "Paris", "answer_start": 3}]}]}]}]}  # fmt: skip
    path = tmp_path / "dev-v1.1.json"
    path.write_text(json.dumps(document))
    spec = DatasetSpec("squad", str(path), ("question", "context"))
    with pytest.raises(
        InputError,
        match=r"qas\[1\].*field 'answers' answer 'Paris' is not at offset 3 of the context \(it reads 'is is'\)",
    ):
        read_examples("qa", spec, "answers")
    document["data"][0]["paragraphs"][0]["qas"][1]["answers"][0]["answer_start"] = 0
    path.write_text(json.dumps(document))
    read = read_examples("qa", spec, "answers")
    assert read.columns == (("Where is Paris?", "What is in France?"), ("Paris is in France.",) * 2)
    assert read.labels == ((("France", 12),), (("Paris", 0),))


def test_column_files_split_columns_only_on_tabs_and_spaces(tmp_path: Path) -> None:
    path = tmp_path / "spaces.conll"  # other Unicode spaces belong to the token, as written
    path.write_text("New\u00a0York\tB-ORG\n東京\u3000タワー B-LOC\nis O\n", encoding="utf-8")
    assert [r.record for r in read_all(path)] == [
        {"tokens": ["New\u00a0York", "東京\u3000タワー", "is"], "ner_tags": ["B-ORG", "B-LOC", "O"]}
    ]


SQUAD = {"version": "1.1", "data": [{"title": "P", "paragraphs": [{"context": "Paris is in France.", "qas": [
    {"id": "q1", "question": "Where is Paris?", "answers": [{"text": "France", "answer_start": 12}]}]}]}]}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "data", "problem"),
    [
        ("latin1.json", json.dumps(SQUAD).replace("Paris is", "Par\xe9s is").encode("latin-1"),
         r"latin1\.json:1: is not valid UTF-8 \(byte 74 of the line\)"),
        ("junk.json", (json.dumps(SQUAD, indent=1) + "\njunk\n").encode(), r"junk\.json:26: holds more after SQuAD's document"),
        ("junk1.json", (json.dumps(SQUAD) + "\njunk\n").encode(), r"junk1\.json:2: holds more after SQuAD's one-line"),
        ("empty.json", b'{"data": []}', r"empty\.json: holds no records"),
        ("squad.jsonl", json.dumps(SQUAD).encode() + b"\n", r"squad\.jsonl:1: holds SQuAD's nested document"),
    ],
)  # fmt: skip
def test_squad_files_are_read_exactly_or_refused_for_what_they_are(
    tmp_path: Path, name: str, data: bytes, problem: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError, match=problem):
        read_examples("qa", DatasetSpec("s", str(path), ("question", "context")), "answers")


def test_a_squad_document_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(SQUAD).encode())
    assert read_examples("qa", DatasetSpec("s", str(path), ("question", "context")), "answers").labels == (
        (("France", 12),),
    )


def test_an_id_folder_without_its_test_file_names_the_layout(tmp_path: Path) -> None:
    from tailsplit.shift_models.task_data import published_parts

    write_jsonl(tmp_path / "train.jsonl", [{"tokens": ["a"], "ner_tags": ["O"]}])
    with pytest.raises(ConfigError, match=r"holds train\.jsonl but no test file; a folder of the dataset's own parts"):
        published_parts(tmp_path)


@pytest.mark.parametrize("start", [-13, 13, 99])
def test_an_answer_offset_outside_the_context_is_refused(tmp_path: Path, start: int) -> None:
    # -13 == -len(context): Python's slicing would find "Paris" there
    path = write_jsonl(tmp_path / "qa.jsonl", [{"question": "Which city?", "context": "Paris, France",
                                                "answers": {"text": ["Paris"], "answer_start": [start]}}])  # fmt: skip
    with pytest.raises(
        InputError, match=rf"qa\.jsonl:1: field 'answers' holds answer 'Paris' at offset {start}, outside"
    ):
        read_examples("qa", DatasetSpec("qa", str(path), ("question", "context")), "answers")


def test_an_empty_token_and_a_set_without_gold_entities_are_refused(tmp_path: Path) -> None:
    empty = write_jsonl(tmp_path / "e.jsonl", [{"tokens": ["Acme", ""], "ner_tags": ["O", "B-ORG"]}])
    with pytest.raises(InputError, match=r"e\.jsonl:1: field 'tokens' holds token 2 as '', which is no word"):
        read_examples("ner", DatasetSpec("e", str(empty), ("tokens",)), "ner_tags")
    wnut = write_jsonl(tmp_path / "wnut.jsonl", [{"tokens": ["Ann"], "ner_tags": ["B-person"]}])
    ood = write_jsonl(tmp_path / "ood.jsonl", [{"tokens": ["Bob", "Co"], "ner_tags": ["B-PER", "B-ORG"]}])
    id_set = read_examples("ner", DatasetSpec("wnut", str(wnut), ("tokens",)), "ner_tags")
    candidate = read_examples("ner", DatasetSpec("ood", str(ood), ("tokens",)), "ner_tags")
    with pytest.raises(ConfigError, match="no gold entity left after the label map, so its entity F1 is undefined"):
        NER.mapped_candidate(candidate, id_set, {"*": ""})


@pytest.mark.parametrize(
    ("tags", "problem"),
    [
        (["O", "I-PER"], "'I-PER' \\(token 2\\) follows 'O'"),
        (["B-PER", "I-LOC"], "'I-LOC' \\(token 2\\) follows 'B-PER'"),
        (["O"], "has 1 tags for 2 tokens"),
        (["PER", "O"], "'PER' \\(token 1\\) is not O, B-TYPE or I-TYPE"),
    ],
)
def test_bad_tags_are_refused_naming_file_line_and_field(tmp_path: Path, tags: list[str], problem: str) -> None:
    path = write_jsonl(
        tmp_path / "ner.jsonl",
        [{"tokens": ["a", "b"], "ner_tags": ["O", "O"]}, {"tokens": ["Ann", "Lee"], "ner_tags": tags}],
    )
    with pytest.raises(InputError, match=rf"ner\.jsonl:2: field 'ner_tags' (tag )?{problem}"):
        read_examples("ner", DatasetSpec("n", str(path), ("tokens",)), "ner_tags")


def test_entity_types_are_mapped_named_when_unmapped_and_removed_when_mapped_to_nothing(tmp_path: Path) -> None:
    wnut = write_jsonl(
        tmp_path / "wnut.jsonl", [{"tokens": ["Ann", "at", "Acme"], "ner_tags": ["B-person", "O", "B-corporation"]}]
    )
    ener = write_jsonl(
        tmp_path / "ener.jsonl",
        [{"tokens": ["Bob", "of", "IBM", "Act"], "ner_tags": ["B-PER", "O", "B-ORG", "B-MISC"]}],
    )
    id_set = read_examples("ner", DatasetSpec("wnut", str(wnut), ("tokens",)), "ner_tags")
    candidate = read_examples("ner", DatasetSpec("ener", str(ener), ("tokens",)), "ner_tags")
    mapping = {"PER": "person", "ORG": "organization", "corporation": "organization"}
    with pytest.raises(ConfigError, match=r"entity types the ID data does not: 'MISC'"):
        NER.mapped_candidate(candidate, id_set, mapping)
    mapped = NER.mapped_candidate(candidate, id_set, {**mapping, "MISC": ""})
    assert mapped.labels == (("B-person", "O", "B-organization", f"B-{UNSCORED}"),)
    assert map_tags(["B-location-GPE", "I-location-GPE"], {"location-*": "location"}) == ("B-location", "I-location")


def test_predictions_on_a_removed_gold_type_are_neither_right_nor_wrong(tmp_path: Path) -> None:
    # gold B-MISC I-MISC O B-PER with MISC removed; the ID model tags the MISC span as a product
    ener = write_jsonl(
        tmp_path / "ener.jsonl",
        [{"tokens": ["Data", "Act", "by", "Bob"], "ner_tags": ["B-MISC", "I-MISC", "O", "B-PER"]}],
    )
    wnut = write_jsonl(tmp_path / "wnut.jsonl", [{"tokens": ["Bob", "X"], "ner_tags": ["B-person", "B-product"]}])
    id_set = read_examples("ner", DatasetSpec("wnut", str(wnut), ("tokens",)), "ner_tags")
    candidate = read_examples("ner", DatasetSpec("ener", str(ener), ("tokens",)), "ner_tags")
    gold = NER.mapped_candidate(candidate, id_set, {"PER": "person", "MISC": ""}).labels
    predicted = [("B-product", "I-product", "O", "B-person")]
    assert metric_value("ner", NER.example_stats(predicted, gold, {})) == 1.0  # was 0.667: a false positive
    partly = [("O", "B-product", "O", "B-person")]  # touching the removed span is enough to leave it out
    assert metric_value("ner", NER.example_stats(partly, gold, {})) == 1.0
    # predictions are mapped as the metric maps them: the same F1 as example_stats gives
    renamed = [("B-product", "I-product", "O", "B-human")]
    effect = unscored_effect(renamed, gold, {"human": "person"})
    assert effect is not None and effect["entity_f1"] == metric_value(
        "ner", NER.example_stats(renamed, gold, {"human": "person"})
    )
    beside = [("O", "O", "B-product", "B-person")]  # a prediction elsewhere still counts as wrong
    assert NER.example_stats(beside, gold, {}).tolist() == [[1.0, 2.0, 1.0]]
    assert unscored_effect(predicted, gold, {}) == {
        "gold_entities_unscored": 1, "predictions_unscored": 1, "entity_f1": 1.0, "entity_f1_counting_them_wrong": 0.6667
    }  # fmt: skip


@pytest.mark.model
def test_both_heads_train_and_predict_on_a_tiny_encoder(tiny_encoder: Path) -> None:
    from tailsplit.evaluation.encoder import EncoderRecipe
    from tailsplit.evaluation.span_head import SpanReader, prepared_reader
    from tailsplit.evaluation.token_head import prepared_tagger

    recipe = EncoderRecipe(max_steps=3, batch_size=4, eval_every=3, max_length=24)
    words = [("Ann", "met", "Bob", "in", "Paris")] * 6 + [("a",) * 40]  # the last longer than the model
    tags = [("B-PER", "O", "B-PER", "O", "B-LOC")] * 6 + [("O",) * 40]
    tagger, rows, placeholder = prepared_tagger(words, tags, location=str(tiny_encoder), recipe=recipe)
    dev = tagger.encode_words(words[:2], None, 24)
    tagger.fit(rows, placeholder, dev, tags[:2])
    predicted = tagger.predict_tags(tagger.encode_words(words, None, 24), [len(w) for w in words])
    assert [len(p) for p in predicted] == [len(w) for w in words] and set(predicted[-1][22:]) == {
        "O"
    }  # words past the cut
    context = " ".join(f"word{i}" for i in range(60)) + " Paris is the answer."
    answers = [(("Paris", context.index("Paris")),)] * 4
    reader, features, labels = prepared_reader(
        ["Where?"] * 4, [context] * 4, answers, location=str(tiny_encoder), recipe=recipe
    )
    assert len(features.rows) > 4 and max(features.example) == 3  # overlapping windows of a long context
    for (start, end), offsets in zip(labels, features.offsets):
        if start:  # a window holding the answer points at its tokens
            assert context[offsets[start][0] : offsets[end][1]] == "Paris"
    reader.fit(features.rows, labels, features.rows, (features, [context] * 4, [["Paris"]] * 4))
    assert all(a in context for a in SpanReader.predict_answers(reader, features, [context] * 4))


@pytest.fixture
def ner_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "cache"))
    names, places = ["Ann", "Bob", "Cleo", "Dan"], ["Paris", "Rome", "Oslo"]
    rows = [
        {"tokens": [names[i % 4], "visited", places[i % 3]], "ner_tags": ["B-person", "O", "B-location"]}
        for i in range(40)
    ]
    folder = tmp_path / "wnut"
    folder.mkdir()
    for part, chunk in (("train", rows[:24]), ("dev", rows[24:30]), ("test", rows[30:])):
        write_jsonl(folder / f"{part}.jsonl", chunk)
    ener = write_jsonl(
        tmp_path / "ener.jsonl",
        [{"tokens": ["Ms", names[i % 4], "of", "Acme"], "ner_tags": ["O", "B-PER", "O", "B-MISC"]} for i in range(12)],
    )
    (tmp_path / "candidates.csv").write_text(f"name,path,fields,source\nener,{ener},tokens,legal\n")
    return {"id": folder, "ener": ener, "candidates": tmp_path / "candidates.csv"}


@pytest.fixture
def ner_files(ner_data: dict[str, Path], tiny_encoder: Path) -> dict[str, Path]:
    return {**ner_data, "encoder": tiny_encoder}


@pytest.mark.model
def test_ood_rank_and_curve_measure_entity_f1_with_the_published_parts(
    ner_files: dict[str, Path], tmp_path: Path
) -> None:
    common = ["--task", "ner", "--id", f"wnut={ner_files['id']}", "--label-map", "PER=person", "--label-map", "MISC=",
              "--max-steps", "4", "--encoder", str(ner_files["encoder"])]  # fmt: skip
    result = runner.invoke(app, ["ood-rank", *common, "--candidates", str(ner_files["candidates"]), "--task-encoder",
                                 str(ner_files["encoder"]), "--out", str(tmp_path / "ood")])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "ID test entity F1" in result.output
    ood = json.loads((tmp_path / "ood" / "ood.json").read_text())
    assert ood["metric"] == "entity F1" and ood["task_model"]["id_parts"] == {
        "origin": "the dataset's own train, dev and test files",
        "train": 24,
        "dev": 6,
        "test": 10,
    }
    assert "entity F1 (95% CI)" in (tmp_path / "ood" / "report.md").read_text()
    curve = runner.invoke(app, ["curve", *common, "--ood", f"ener={ner_files['ener']}", "--checkpoint-every", "1",
                                "--out", str(tmp_path / "curve")])  # fmt: skip
    assert curve.exit_code == 0, curve.output
    with (tmp_path / "curve" / "points.csv").open() as f:
        last = [p for p in csv.DictReader(f) if p["step"] == "4"]
    decision = ood["decisions"][0]
    assert float(last[0]["id_acc"]) == pytest.approx(ood["id"]["accuracy"], abs=5e-5)
    assert float(last[0]["ood_acc"]) == pytest.approx(decision["accuracy"], abs=5e-5)
    assert "entity F1" in (tmp_path / "curve" / "report.md").read_text()


def test_a_qa_label_map_and_a_ner_dataset_without_entities_are_refused_before_a_model_loads(
    ner_data: dict[str, Path], tmp_path: Path
) -> None:
    ner_files = ner_data
    qa = runner.invoke(app, ["ood-rank", "--task", "qa", "--id", f"s={ner_files['ener']}", "--candidates",
                             str(ner_files["candidates"]), "--label-map", "a=b", "--out", str(tmp_path / "o")])  # fmt: skip
    assert qa.exit_code == 2 and "a QA task has neither" in qa.output
    empty = write_jsonl(tmp_path / "empty.jsonl", [{"tokens": ["a"], "ner_tags": ["O"]}] * 20)
    none = runner.invoke(app, ["ood-rank", "--task", "ner", "--id", f"e={empty}", "--candidates", str(ner_files["candidates"]),
                               "--out", str(tmp_path / "p")])  # fmt: skip
    assert none.exit_code == 2 and "holds no entity" in none.output and not (tmp_path / "p").exists()


@pytest.mark.model
def test_ood_rank_and_curve_measure_squad_f1_on_a_tiny_encoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_encoder: Path
) -> None:
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "cache"))
    cities = ["Paris", "Rome", "Oslo", "Lima", "Kyiv", "Doha"]

    def question(i: int, subject: str) -> dict[str, object]:
        context = f"The {subject} of report {i} was written in {cities[i % 6]} by a committee of many people."
        return {"id": f"{subject}-{i}", "question": f"Where was report {i} written?", "context": context,
                "answers": {"text": [cities[i % 6]], "answer_start": [context.index(cities[i % 6])]}}  # fmt: skip

    squad = write_jsonl(tmp_path / "squad.jsonl", [question(i, "history") for i in range(30)])
    shifted = write_jsonl(tmp_path / "science.jsonl", [question(i, "chemistry") for i in range(10)])
    (tmp_path / "c.csv").write_text(f"name,path,fields,source\nscience,{shifted},question+context,wiki\n")
    common = ["--task", "qa", "--id", f"squad={squad}", "--max-steps", "4"]
    result = runner.invoke(app, ["ood-rank", *common, "--candidates", str(tmp_path / "c.csv"), "--encoder",
                                 str(tiny_encoder), "--task-encoder", str(tiny_encoder), "--out", str(tmp_path / "ood")])  # fmt: skip
    assert result.exit_code == 0, result.output
    ood = json.loads((tmp_path / "ood" / "ood.json").read_text())
    assert ood["metric"] == "F1" and ood["id"]["fields"] == ["question", "context"] and "ID test F1" in result.output
    assert set(ood["task_model"]["exact_match"]) == {"id", "ood"} and set(ood["task_model"]["exact_match"]["ood"]) == {
        "science"
    }
    curve = runner.invoke(app, ["curve", *common, "--ood", f"science={shifted}", "--encoder", str(tiny_encoder),
                                "--checkpoint-every", "1", "--out", str(tmp_path / "curve")])  # fmt: skip
    assert curve.exit_code == 0, curve.output
    with (tmp_path / "curve" / "points.csv").open() as f:
        last = [p for p in csv.DictReader(f) if p["step"] == "4"]
    assert float(last[0]["ood_acc"]) == pytest.approx(ood["decisions"][0]["accuracy"], abs=5e-5)
