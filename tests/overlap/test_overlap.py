"""Overlap audit: corpus streaming, index, structured BM25 queries, n-grams, partition,
per-subset accuracy, and the overlap command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.errors import ConfigError, InputError
from tailsplit.overlap.audit import audit_example, bootstrap_accuracy, partition_overlap
from tailsplit.overlap.corpus import CorpusEntry, iter_corpus
from tailsplit.overlap.index import build_index
from tailsplit.overlap.ngrams import members, ngram_hashes, word_hashes
from tailsplit.overlap.query import StructuredQuery, WinogradQueryExtractor, phrases_in_order

runner = CliRunner()
CORPUS = [
    "the council refused the permit because they feared violence in the streets",
    "they feared that the council refused",  # both words, wrong order
    "the council refused it and then many long weeks and months later all of the people feared violence",  # too far
    "a trophy does not fit into the suitcase because it is too large for it",
    "nothing to see here at all",
]


def corpus_index(tmp_path: Path, orders: tuple[int, ...] = (3, 8)):  # noqa: ANN201
    return build_index((CorpusEntry(f"c:{i}", t) for i, t in enumerate(CORPUS)), tmp_path / "idx", ngram_orders=orders)


def test_ngram_hashes_match_equal_windows_only() -> None:
    a = ngram_hashes(word_hashes("a b c d".split()), 2)
    b = ngram_hashes(word_hashes("x b c y".split()), 2)
    assert members(a, np.unique(b)).tolist() == [False, True, False]  # only "b c" is shared
    assert len(ngram_hashes(word_hashes(["a", "b"]), 3)) == 0
    assert len(np.unique(ngram_hashes(word_hashes("a b b a".split()), 2))) == 3  # "a b" ≠ "b a"


def test_phrases_must_come_in_order_within_the_window() -> None:
    tokens = np.array([5, 1, 2, 7, 7, 7, 3])
    assert phrases_in_order(tokens, [np.array([1, 2]), np.array([3])], window=3)
    assert not phrases_in_order(tokens, [np.array([1, 2]), np.array([3])], window=2)
    assert not phrases_in_order(tokens, [np.array([3]), np.array([1, 2])], window=10)


def test_corpus_streams_text_jsonl_and_parquet(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n\ntwo\n")
    write_jsonl(tmp_path / "b.jsonl", [{"body": "three"}, {"body": ""}])
    pq.write_table(pa.table({"body": ["four", None]}), tmp_path / "c.parquet")
    entries = list(iter_corpus([tmp_path / "a.txt", tmp_path / "b.jsonl", tmp_path / "c.parquet"], field="body"))
    assert [(e.id, e.text) for e in entries] == [
        ("a.txt:1", "one"),
        ("a.txt:3", "two"),
        ("b.jsonl:1", "three"),
        ("c.parquet:1", "four"),
    ]
    with pytest.raises(InputError, match="b.jsonl:1: field 'text' is missing"):
        list(iter_corpus([tmp_path / "b.jsonl"]))


def test_required_phrases_filter_before_scoring(tmp_path: Path) -> None:
    index = corpus_index(tmp_path)
    query = StructuredQuery(required=(("refused",), ("feared",)), optional=("council", "violence"), window=10)
    audit = audit_example(index, "t", "The council refused; they feared violence.", query, k=5)
    assert [m["entry"] for m in audit.matches] == ["c:0"] and audit.passing_entries == 1
    unfiltered = np.asarray(index.retriever.get_scores(query.terms()))
    assert audit.best_score == pytest.approx(unfiltered[0], rel=1e-6)
    assert audit.matches[0]["snippet"].startswith("the council refused")


def test_ngram_overlap_finds_a_copied_sentence(tmp_path: Path) -> None:
    index = corpus_index(tmp_path)
    audit = audit_example(
        index,
        "t",
        "A trophy does NOT fit into the suitcase, because it is too large!",
        StructuredQuery(optional=("trophy",)),
        k=3,
    )
    assert audit.ngram_hits[8] == audit.ngram_total[8] == 6  # 13 words, all in the corpus
    clean = audit_example(index, "u", "Completely different words here today", StructuredQuery(), k=3)
    assert clean.ngram_hits == {3: 0, 8: 0} and clean.best_score == 0.0 and clean.matches == []


def test_winograd_extractor_finds_both_predicates() -> None:
    record = {
        "text": "The city councilmen refused the demonstrators a permit because they feared violence.",
        "pronoun": "they",
        "pronoun_char_offset": 63,
        "options": ["The city councilmen", "The demonstrators"],
    }
    query = WinogradQueryExtractor().query(record, record["text"])
    assert query.required == (("refused",), ("feared",)) and "violence" in query.optional


@pytest.mark.parametrize(
    ("text", "pronoun", "options", "required"),
    [
        # the second candidate is mentioned first: the old extractor skipped len("Susan") characters of "Joan made"
        (
            "Joan made sure to thank Susan for all the help she had given.",
            "she",
            ["Susan", "Joan"],
            (("made",), ("given",)),
        ),
        # no candidate literally in the text: matched by its head noun
        (
            "The city councilmen refused the demonstrators a permit because they feared violence.",
            "they",
            ["the councilmen", "the protesters"],
            (("refused",), ("feared",)),
        ),
        # the pronoun before both candidates: the context predicate follows the first candidate
        ("Patting her back, the woman smiled at the girl.", "her", ["The woman", "The girl"], (("smiled",), ("back",))),
    ],
)
def test_winograd_extractor_takes_the_word_after_the_earliest_mention(
    text: str, pronoun: str, options: list[str], required: tuple
) -> None:
    record = {
        "text": text,
        "pronoun": pronoun,
        "pronoun_char_offset": text.index(f" {pronoun} ") + 1,
        "options": options,
    }
    query = WinogradQueryExtractor().query(record, text)
    assert query.required == required and query.note is None


def test_winograd_extractor_says_when_no_candidate_is_mentioned() -> None:
    text = "Someone thanked someone else because she helped."
    record = {"text": text, "pronoun": "she", "pronoun_char_offset": text.index("she"), "options": ["Joan", "Susan"]}
    query = WinogradQueryExtractor().query(record, text)
    assert query.required == (("helped",),) and "no candidate is mentioned" in query.note


def test_partition_by_threshold_or_top_quantile() -> None:
    scores = np.array([0.0, 1.0, 5.0, 3.0, 0.0])
    assert partition_overlap(scores, threshold=3.0)[0].tolist() == [False, False, True, True, False]
    mask, cut = partition_overlap(scores, top_quantile=0.4)
    assert mask.tolist() == [False, False, True, True, False] and cut == 3.0
    assert partition_overlap(scores, top_quantile=0.9)[0].tolist() == [False, True, True, True, False]  # never a 0
    with pytest.raises(ConfigError, match="exactly one"):
        partition_overlap(scores)


def test_bootstrap_interval_brackets_the_accuracy_and_is_seeded() -> None:
    correct = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1] * 5)
    a, b = bootstrap_accuracy(correct, "all"), bootstrap_accuracy(correct, "all")
    assert a == b and a.ci_low < a.accuracy == 0.7 < a.ci_high


def test_overlap_command_partitions_every_example_once(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(CORPUS) + "\n")
    rows = [
        {"id": f"t{i}", "text": text, "label": i % 2}
        for i, text in enumerate(
            [
                "The council refused them because they feared violence.",
                "A trophy does not fit into the suitcase because it is too large for it.",
                "Birds sing in spring.",
                "Nothing here to see at all today.",
            ]
        )
    ]
    test = write_jsonl(tmp_path / "test.jsonl", rows)
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"id": f"t{i}", "prediction": 0} for i in range(4)])
    args = [
        "overlap",
        "--test",
        str(test),
        "--corpus",
        str(corpus),
        "--label",
        "label",
        "--ngram-orders",
        "3,8",
        "--top-quantile",
        "0.5",
        "--predictions",
        str(preds),
        "--index-dir",
        str(tmp_path / "idx"),
        "--out",
        str(tmp_path / "out"),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    overlap = [json.loads(x)["id"] for x in (out / "overlap.jsonl").read_text().splitlines()]
    clean = [json.loads(x)["id"] for x in (out / "clean.jsonl").read_text().splitlines()]
    assert sorted(overlap + clean) == ["t0", "t1", "t2", "t3"] and not set(overlap) & set(clean)
    manifest = json.loads((out / "manifest.json").read_text())
    assert {a["subset"] for a in manifest["accuracy"]} == {"all", "overlap", "clean"}
    assert manifest["ngram_contaminated"]["8"] == 1
    again = runner.invoke(app, args + ["--overwrite"])  # the index is reused, outputs identical
    assert again.exit_code == 0
    assert json.loads((out / "manifest.json").read_text())["index"] == manifest["index"]


def test_overlap_errors_name_file_and_fix(tmp_path: Path) -> None:
    test = write_jsonl(tmp_path / "test.jsonl", [{"id": "a", "text": "x y z", "label": 1}])
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"body": "x y z"}])
    result = runner.invoke(app, ["overlap", "--test", str(test), "--corpus", str(corpus), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "c.jsonl:1: field 'text' is missing" in result.output
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": "b", "prediction": 1}])
    result = runner.invoke(
        app,
        [
            "overlap",
            "--test",
            str(test),
            "--corpus",
            str(corpus),
            "--corpus-field",
            "body",
            "--label",
            "label",
            "--predictions",
            str(preds),
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 2 and "has no prediction for test id 'a'" in result.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("share", ["0", "1", "1.5"])
def test_a_top_quantile_outside_the_open_interval_is_refused_before_the_index_is_built(
    tmp_path: Path, share: str, caplog: pytest.LogCaptureFixture
) -> None:
    test = write_jsonl(tmp_path / "test.jsonl", [{"id": "a", "text": "x y z"}])
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"text": "x y z"}])
    args = ["overlap", "--test", str(test), "--corpus", str(corpus), "--top-quantile", share, "--index-dir"]
    result = runner.invoke(app, [*args, str(tmp_path / "index")])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: --top-quantile={float(share)!r} must be strictly between 0 and 1; give a value strictly between 0 and 1"
    ]
    assert not (tmp_path / "index").exists() and "BM25" not in caplog.text  # no index was built


def test_ngrams_never_span_two_corpus_entries(tmp_path: Path) -> None:
    index = build_index(
        iter([CorpusEntry("a", "one two three"), CorpusEntry("b", "four five six")]),
        tmp_path / "idx",
        ngram_orders=(2,),
    )
    spanning = audit_example(index, "t", "three four", StructuredQuery(), k=1)
    inside = audit_example(index, "u", "two three", StructuredQuery(), k=1)
    assert spanning.ngram_hits[2] == 0 and inside.ngram_hits[2] == 1
    assert len(index.ngrams[2]) == 4


def test_bm25_weights_are_k1_plus_1_times_bm25s_own_index(tmp_path: Path) -> None:
    import bm25s
    from bm25s.tokenization import Tokenized

    from tailsplit.overlap.tokens import overlap_tokens

    texts = CORPUS + ["the the the council", "violence violence in streets and streets"]
    index = build_index((CorpusEntry(str(i), t) for i, t in enumerate(texts)), tmp_path / "idx", k1=1.2, b=0.6)
    reference = bm25s.BM25(k1=1.2, b=0.6)
    reference.index(
        Tokenized(ids=[index.token_ids(overlap_tokens(t)).tolist() for t in texts], vocab=index.vocab),
        show_progress=False,
    )
    for query in (["council"], ["the", "violence", "streets"], ["suitcase", "it", "because"]):
        ids = [index.vocab[w] for w in query]
        ours = index.retriever.get_scores(ids)
        assert np.allclose(ours, 2.2 * reference.get_scores(ids), rtol=1e-6, atol=1e-7) and ours.max() > 0


def test_top_k_breaks_ties_by_row_even_at_the_cut() -> None:
    from tailsplit.overlap.audit import _top_k

    assert _top_k(np.array([1.0, 3.0, 3.0, 3.0, 0.0, 3.0]), 2).tolist() == [1, 2]
    assert _top_k(np.array([2.0, 5.0, 2.0, 2.0]), 3).tolist() == [1, 0, 2]
    assert _top_k(np.array([0.0, -np.inf, 4.0, 0.0]), 3).tolist() == [2]  # only positive scores compete


def test_text_blobs_are_written_streamed_and_load_as_numpy_saves_them(tmp_path: Path) -> None:
    from tailsplit.overlap.index import _BlobWriter

    texts = ["héllo", "", "world " * 2000]
    writer = _BlobWriter(tmp_path, "texts")
    writer.add(texts[:2])
    writer.add(texts[2:])
    writer.close()
    np.save(tmp_path / "reference.npy", np.frombuffer("".join(texts).encode("utf-8"), dtype=np.uint8))
    assert (tmp_path / "texts.bin").read_bytes() == (tmp_path / "reference.npy").read_bytes()
    offsets = np.load(tmp_path / "texts-offsets.npy")
    blob = np.load(tmp_path / "texts.bin", mmap_mode="r")
    assert [bytes(blob[a:b]).decode("utf-8") for a, b in zip(offsets, offsets[1:])] == texts
    assert not (tmp_path / "texts.raw").exists()
