"""The overlap audit against an infini-gram index: match profiles against brute force, an index
built in the test with the engine's own indexer, its counts against the text audit's on the
same corpus, and every refusal (a truncated copy, another tokenizer, options of the BM25 index)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.overlap.audit import audit_all
from tailsplit.overlap.corpus import CorpusEntry
from tailsplit.overlap.index import build_index
from tailsplit.overlap.index_tokens import ModelTokens, WordTokens
from tailsplit.overlap.infinigram import (
    InfiniGramIndex,
    _indexer_cpus,
    build,
    layout_problem,
    missing_windows,
    round_trip_share,
)
from tailsplit.overlap.matches import longest_matches, match_profile
from tailsplit.overlap.query import GenericQueryExtractor

pytest.importorskip("infini_gram", reason="the index extra (Linux x86-64 only)")
runner = CliRunner()
WORDS = "the a man woman dog cat runs sits on in park street red blue big small near old young sleeps".split()


def brute_count(corpus: list[list[int]]):  # noqa: ANN201
    def count(query: list[int]) -> int:
        n = len(query)
        return sum(doc[i : i + n] == query for doc in corpus for i in range(len(doc) - n + 1))

    return count


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 4), max_size=12), min_size=1, max_size=6),
    st.lists(st.integers(0, 5), max_size=14),
)
def test_match_profile_equals_brute_force(corpus: list[list[int]], ids: list[int]) -> None:
    count = brute_count(corpus)
    expected = [
        max((n for n in range(len(ids) - i + 1) if count(ids[i : i + n]) > 0), default=0) for i in range(len(ids))
    ]
    assert longest_matches(ids, count).tolist() == expected
    profile = match_profile(ids, count, (1, 2, 3))
    for n in (1, 2, 3):
        windows = [ids[i : i + n] for i in range(len(ids) - n + 1)]
        assert profile.hits[n] == sum(count(w) > 0 for w in windows) and profile.windows[n] == len(windows)
        covered = {p for i, w in enumerate(windows) if count(w) > 0 for p in range(i, i + n)}
        assert profile.coverage[n] == (len(covered) / len(ids) if ids else 0.0)
    assert profile.verbatim == (bool(ids) and count(ids) > 0)
    assert profile.longest == max(expected, default=0)


def sentences(rng: np.random.Generator, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(3, 16)))) for _ in range(n)]


def corpus_and_tests(rng: np.random.Generator) -> tuple[list[str], list[str]]:
    corpus = sentences(rng, 300)
    copied = [corpus[i].upper() + "." for i in range(0, 40, 4)]  # case and punctuation: the same words
    inside = [" ".join(corpus[i].split()[1:-1]) for i in range(1, 40, 4)]
    return corpus, copied + inside + sentences(rng, 30)


def words_index(tmp_path: Path, corpus: list[str]) -> InfiniGramIndex:
    entries = [CorpusEntry(f"c:{i}", t) for i, t in enumerate(corpus)]
    folder = tmp_path / "ig"
    folder.mkdir()
    tokens = WordTokens()
    build(lambda: iter(entries), folder, tokens, record={}, progress=False)
    return InfiniGramIndex.open(folder, tokens, {})


def test_a_words_index_counts_what_the_text_audit_counts(tmp_path: Path) -> None:
    corpus, tests = corpus_and_tests(np.random.default_rng(1))
    index = words_index(tmp_path, corpus)
    docs = [index.tokens.encode(t) for t in corpus]
    count = brute_count(docs)
    for text in tests[:20]:  # the engine's counts are exact
        ids = index.tokens.encode(text)
        for n in (1, 2, 5):
            for i in range(0, max(0, len(ids) - n + 1), 3):
                assert index.count(ids[i : i + n]) == count(ids[i : i + n])
    text_index = build_index(
        (CorpusEntry(f"c:{i}", t) for i, t in enumerate(corpus)), tmp_path / "bm", ngram_orders=(3, 8)
    )
    queries = [GenericQueryExtractor().query({}, t) for t in tests]
    text_audits = audit_all(text_index, [str(i) for i in range(len(tests))], tests, queries)
    for text, audit in zip(tests, text_audits):
        profile = match_profile(index.tokens.encode(text), index.count, (3, 8))
        assert (profile.verbatim, profile.hits, profile.windows) == (
            audit.verbatim,
            audit.ngram_hits,
            audit.ngram_total,
        )
    assert sum(a.verbatim for a in text_audits) >= 20  # the copies, in other case, are held whole


def test_a_sound_index_finds_its_own_ngrams_and_a_damaged_one_does_not(tmp_path: Path) -> None:
    corpus, _ = corpus_and_tests(np.random.default_rng(2))
    index = words_index(tmp_path, corpus)
    assert missing_windows(index) == 0 and layout_problem(index.folder, "u16") is None
    table = index.folder / "table.0"
    data = bytearray(table.read_bytes())
    data[: len(data) // 2] = bytes(reversed(data[: len(data) // 2]))  # a scrambled suffix array
    table.write_bytes(bytes(data))
    damaged = InfiniGramIndex.open(index.folder, index.tokens, {})
    assert missing_windows(damaged) > 0
    table.write_bytes(bytes(data[:-3]))
    assert "truncated" in str(layout_problem(index.folder, "u16"))


def test_the_indexer_gets_one_core_where_its_jobs_would_overlap() -> None:
    """Its jobs overlap by 100,000 bytes: below that each, its suffix array came out wrong
    without an error (measured), so small corpora get one job."""
    assert _indexer_cpus(150_000) == 1 and _indexer_cpus(0) == 1
    assert _indexer_cpus(10**9) >= 1


def bpe_folder(path: Path, texts: list[str], vocab_size: int) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=alphabet, show_progress=False)
    tokenizer.train_from_iterator(texts, trainer)
    path.mkdir()
    tokenizer.save(str(path / "tokenizer.json"))
    (path / "tokenizer_config.json").write_text("{}")
    return path


def test_a_foreign_index_is_read_with_its_own_tokenizer_and_refused_with_another(tmp_path: Path) -> None:
    from tailsplit.scoring.models import fast_tokenizer

    corpus, tests = corpus_and_tests(np.random.default_rng(3))
    own = bpe_folder(tmp_path / "own", corpus, 400)
    other = bpe_folder(tmp_path / "other", [t[::-1] for t in corpus], 300)
    tokens = ModelTokens(str(own), fast_tokenizer(own).backend_tokenizer)
    built = tmp_path / "built"
    built.mkdir()
    build(lambda: (CorpusEntry(str(i), t) for i, t in enumerate(corpus)), built, tokens, record={}, progress=False)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    for name in ("tokenized.0", "table.0", "offset.0"):
        shutil.copy(built / name, foreign / name)
    same, read = round_trip_share(foreign, tokens, "u16")
    assert read == 16 and same == 16
    wrong = ModelTokens(str(other), fast_tokenizer(other).backend_tokenizer)
    same, read = round_trip_share(foreign, wrong, "u16")
    assert same * 2 < read
    test = write_jsonl(tmp_path / "test.jsonl", [{"id": str(i), "text": t} for i, t in enumerate(tests)])
    base = ["overlap", "--test", str(test), "--infini-gram", str(foreign)]
    result = runner.invoke(app, [*base, "--index-tokenizer", str(other)])
    assert result.exit_code == 2 and "was not tokenised with it" in result.output
    for extra, said in (([], "name the tokenizer it was built with"), (["--corpus", str(test)], "drop --corpus")):
        result = runner.invoke(app, [*base, *extra])
        assert result.exit_code == 2 and said in result.output and "Traceback" not in result.output
    result = runner.invoke(app, [*base, "--index-tokenizer", str(own), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["index"]["built_by"] == "other" and manifest["index"]["documents"] == len(corpus)
    assert sorted(p.name for p in foreign.iterdir()) == ["offset.0", "table.0", "tokenized.0"]  # read-only


def test_the_command_builds_reuses_and_guards_its_index(tmp_path: Path) -> None:
    corpus, tests = corpus_and_tests(np.random.default_rng(4))
    corpus_file = write_jsonl(tmp_path / "corpus.jsonl", [{"text": t} for t in corpus])
    test = write_jsonl(tmp_path / "test.jsonl", [{"id": str(i), "text": t} for i, t in enumerate(tests)])
    folder = tmp_path / "ig"
    args = ["overlap", "--test", str(test), "--corpus", str(corpus_file), "--infini-gram", str(folder)]
    result = runner.invoke(app, [*args, "--ngram-orders", "3,8", "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    marker = (folder / "tailsplit-index.json").read_text()
    rows = [json.loads(line) for line in (tmp_path / "a" / "overlap.jsonl").read_text().splitlines()]
    assert rows and {"longest_match", "longest_match_count", "coverage3", "ngram8_hits"} <= set(rows[0])
    again = runner.invoke(
        app, [*args[:3], "--infini-gram", str(folder), "--ngram-orders", "3,8", "--out", str(tmp_path / "b")]
    )
    assert again.exit_code == 0 and (folder / "tailsplit-index.json").read_text() == marker  # reused, not rebuilt
    for name in ("overlap.jsonl", "clean.jsonl", "audit.jsonl"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    other = write_jsonl(tmp_path / "other.jsonl", [{"text": "something else entirely"}])
    refusals = [
        (["--corpus", str(other)], "holds an index of another corpus"),
        (["--index-tokenizer", "smollm2"], "was built with the tokenizer 'words'"),
        (["--k1", "2"], "only with the BM25 index"),
        (["--top-quantile", "0.3"], "only with the BM25 index"),
    ]
    for extra, said in refusals:
        result = runner.invoke(app, [*args[:3], "--infini-gram", str(folder), *extra, "--out", str(tmp_path / "c")])
        assert result.exit_code == 2 and said in result.output, result.output
        assert not (tmp_path / "c").exists()
    marker_path = folder / "tailsplit-index.json"
    marker_path.write_text(marker.replace('"u16"', '"u64"'))
    result = runner.invoke(app, [*args[:3], "--infini-gram", str(folder)])
    assert result.exit_code == 2 and "names no token width" in result.output
    marker_path.write_text(marker)
    (folder / "table.0").write_bytes((folder / "table.0").read_bytes()[:-2])
    result = runner.invoke(app, [*args[:3], "--infini-gram", str(folder)])
    assert result.exit_code == 2 and "table.0" in result.output and "build it again" in result.output


def test_a_new_index_needs_a_corpus_and_a_folder_of_its_own(tmp_path: Path) -> None:
    test = write_jsonl(tmp_path / "test.jsonl", [{"id": "a", "text": "a man runs"}])
    result = runner.invoke(app, ["overlap", "--test", str(test), "--infini-gram", str(tmp_path / "new")])
    assert result.exit_code == 2 and "build one there with tailsplit overlap --corpus FILE" in result.output
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["overlap", "--test", str(test), "--corpus", str(test), "--infini-gram", str(busy)])
    assert result.exit_code == 2 and "did not write" in result.output
    assert [p.name for p in busy.iterdir()] == ["notes.txt"]


def test_without_the_engine_the_option_is_refused_naming_the_extra(tmp_path: Path, monkeypatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "infini_gram", None)  # as where the wheel does not install
    test = write_jsonl(tmp_path / "test.jsonl", [{"id": "a", "text": "a man runs"}])
    result = runner.invoke(
        app, ["overlap", "--test", str(test), "--corpus", str(test), "--infini-gram", str(tmp_path / "i")]
    )
    assert (
        result.exit_code == 2 and "tailsplit[index]" in result.output and len(result.output.strip().splitlines()) == 1
    )
    assert not (tmp_path / "i").exists()


def test_profiles_on_threads_are_the_profiles_one_by_one(tmp_path: Path) -> None:
    from tailsplit.overlap.index_audit import profiles

    corpus, tests = corpus_and_tests(np.random.default_rng(5))
    index = words_index(tmp_path, corpus)
    texts = tests * 40  # more than one chunk of work
    one_by_one = [match_profile(index.tokens.encode(t), index.count, (3, 8)) for t in texts]
    assert profiles(index, texts, (3, 8), workers=4) == one_by_one == profiles(index, texts, (3, 8), workers=1)


def test_accuracy_by_subset_reads_the_index_partition(tmp_path: Path) -> None:
    corpus, tests = corpus_and_tests(np.random.default_rng(6))
    corpus_file = write_jsonl(tmp_path / "corpus.jsonl", [{"text": t} for t in corpus])
    rows = [{"id": str(i), "text": t, "label": i % 2} for i, t in enumerate(tests)]
    test = write_jsonl(tmp_path / "test.jsonl", rows)
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": str(i), "prediction": 0} for i in range(len(tests))])
    args = ["overlap", "--test", str(test), "--corpus", str(corpus_file), "--infini-gram", str(tmp_path / "ig")]
    result = runner.invoke(app, [*args, "--label", "label", "--predictions", str(preds), "--out", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    overlap = [json.loads(line)["id"] for line in (tmp_path / "o" / "overlap.jsonl").read_text().splitlines()]
    by_subset = {a["subset"]: a for a in manifest["accuracy"]}
    assert by_subset["overlap"]["n"] == len(overlap) == manifest["overlap"] and manifest["cut"] == {"by": "copies"}
    correct = [int(r["label"] == 0) for r in rows if r["id"] in set(overlap)]
    assert by_subset["overlap"]["accuracy"] == pytest.approx(sum(correct) / len(correct), abs=1e-4)
