"""Sharded overlap index: corpus parts, map-reduce equal to one index (on Ray: test_ray.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from helpers import write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.config import OverlapConfig
from tailsplit.overlap.audit import audit_all
from tailsplit.overlap.corpus import iter_corpus, iter_part, split_into_parts
from tailsplit.overlap.index import open_or_build_index
from tailsplit.overlap.query import StructuredQuery
from tailsplit.overlap.sharded import LocalExecutor, audit_sharded, open_or_build_sharded, plan_shards

runner = CliRunner()
WORDS = "council refused permit feared violence trophy suitcase large small the a because they it".split()

lines_strategy = st.lists(
    st.one_of(st.just(""), st.just("  "), st.text(alphabet="abcé ✓\t", min_size=1, max_size=12)),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(lines=lines_strategy, trailing_newline=st.booleans(), target=st.integers(1, 80))
def test_parts_read_exactly_the_entries_of_the_whole_file(tmp_path_factory, lines, trailing_newline, target) -> None:  # noqa: ANN001
    folder = tmp_path_factory.mktemp("parts")
    text_file, jsonl_file = folder / "c.txt", folder / "c.jsonl"
    text_file.write_text("\n".join(lines) + ("\n" if trailing_newline else ""), encoding="utf-8")
    jsonl_file.write_text("".join(json.dumps({"text": x}) + "\n" for x in lines), encoding="utf-8")
    for path in (text_file, jsonl_file):
        parts = split_into_parts([path], target)
        assert [e for part in parts for e in iter_part(part)] == list(iter_corpus([path]))


def corpus_files(tmp_path: Path) -> list[Path]:
    import random

    rng = random.Random(3)
    sentences = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 14))) for _ in range(400)]
    sentences += ["the council refused the permit because they feared violence"] * 3  # ties across shards
    rng.shuffle(sentences)
    (tmp_path / "a.txt").write_text("\n".join(sentences[:200]) + "\n")
    with gzip.open(tmp_path / "b.txt.gz", "wt") as f:
        f.write("\n".join(sentences[200:260]) + "\n")
    write_jsonl(tmp_path / "c.jsonl", [{"text": s} for s in sentences[260:380]])
    pq.write_table(pa.table({"text": sentences[380:]}), tmp_path / "d.parquet")
    return [tmp_path / "a.txt", tmp_path / "b.txt.gz", tmp_path / "c.jsonl", tmp_path / "d.parquet"]


def test_plan_covers_the_corpus_in_order(tmp_path: Path) -> None:
    files = corpus_files(tmp_path)
    plan = plan_shards(files, 5)
    assert 1 < len(plan) <= 5
    assert [e for shard in plan for part in shard for e in iter_part(part)] == list(iter_corpus(files))


def test_sharded_audit_equals_one_index(tmp_path: Path) -> None:
    files = corpus_files(tmp_path)
    base = dict(corpus=[str(f) for f in files], ngram_orders=(3, 8), k1=1.3, b=0.7)
    single = open_or_build_index(OverlapConfig(**base, index_dir=str(tmp_path / "one")))
    sharded = open_or_build_sharded(OverlapConfig(**base, index_dir=str(tmp_path / "many"), shards=4), LocalExecutor())
    assert len(sharded.shards) == 4 and sharded.info["entries"] == len(single)
    texts = [
        "The council refused the permit because they feared violence.",
        "a large trophy",
        "nothing matches",
        "it is too small because the suitcase is large",
    ]
    queries = [
        StructuredQuery(optional=("council", "permit", "violence")),
        StructuredQuery(required=(("trophy",),), optional=("large",)),
        StructuredQuery(optional=("zebra",)),
        StructuredQuery(required=(("small",), ("suitcase",)), optional=("large", "because"), window=4),
    ]
    ids = [f"t{i}" for i in range(len(texts))]
    one = [a.as_dict() for a in audit_all(single, ids, texts, queries, k=4)]
    many = [a.as_dict() for a in audit_sharded(sharded, LocalExecutor(), ids, texts, queries, k=4)]
    assert many == one
    assert one[0]["ngram_hits"]["8"] > 0 and len(one[0]["matches"]) == 4 and one[2]["matches"] == []


def test_bad_engine_or_shard_count_is_a_clear_error(tmp_path: Path) -> None:
    files = corpus_files(tmp_path)
    write_jsonl(tmp_path / "test.jsonl", [{"text": "a large trophy"}])
    common = ["overlap", "--test", str(tmp_path / "test.jsonl")] + [a for f in files for a in ("--corpus", str(f))]
    result = runner.invoke(app, common + ["--engine", "spark", "--shards", "2"])
    assert result.exit_code != 0 and "--engine='spark' is unknown; use one of ['local', 'ray']" in result.output
    result = runner.invoke(app, common + ["--shards", "0", "--engine", "local"])
    assert result.exit_code != 0 and "shards=0 must be between 1 and 1024" in result.output
