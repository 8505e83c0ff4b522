"""SQL atoms, compounds, templates and hardness; divergences; program metrics of a split."""

from __future__ import annotations

import gzip
import json
from collections import Counter

import numpy as np
import pytest
from helpers import ROOT_DIR

from tailsplit.analysis.program_metrics import novel_share, program_metrics
from tailsplit.core import SplitIndices
from tailsplit.programs import ProgramError, SparseSets, chernoff_divergence, extract_program_features
from tailsplit.programs.sql import SqlExtractor

SPIDER_DEV = ROOT_DIR / "examples" / "data" / "spider_dev.jsonl.gz"


def spider_dev_queries() -> list[str]:
    with gzip.open(SPIDER_DEV, "rt", encoding="utf-8") as f:
        return [json.loads(line)["query"] for line in f]


def test_sql_atoms_normalise_names_keywords_and_values() -> None:
    parse = SqlExtractor().parse('SELECT T1.Name FROM singer AS T1 WHERE T1.country = "France" AND age > 20')
    assert set(parse.atoms) == {
        "SELECT",
        "FROM",
        "AS",
        "WHERE",
        "AND",
        "=",
        ">",
        "t1",
        "name",
        "singer",
        "country",
        "age",
        "<value>",
    }
    assert parse.n_tokens == 16


def test_double_and_single_quoted_values_give_the_same_atoms_and_template() -> None:
    a = SqlExtractor().parse("SELECT name FROM t WHERE c = 'x'")
    b = SqlExtractor().parse('SELECT name FROM t WHERE c  =  "y"')
    assert a.atoms == b.atoms and a.compounds == b.compounds and a.template == b.template


def test_sql_compounds_are_parent_child_and_grandparent_paths_with_anonymous_structure() -> None:
    parse = SqlExtractor().parse("SELECT count(*) FROM head WHERE age > 56")
    assert {
        "SELECT > COUNT",
        "SELECT > COUNT > *",
        "WHERE > GT > <value>",
        "GT > _ > age",
        "SELECT > FROM > _",
        "_ > head",
    } <= set(parse.compounds)
    assert all(1 <= c.count(" > ") <= 2 for c in parse.compounds)


def test_template_replaces_tables_columns_and_values() -> None:
    parse = SqlExtractor().parse("SELECT name FROM head WHERE age > 56 ORDER BY age DESC LIMIT 3")
    assert parse.template == "SELECT col FROM tab WHERE col > 'value' ORDER BY col DESC LIMIT 'value'"


@pytest.mark.parametrize(
    "sql, level",
    [
        ("SELECT count(*) FROM head", "easy"),
        ("SELECT name FROM head WHERE age > 56", "easy"),
        ("SELECT name, age FROM head WHERE age > 56", "medium"),
        ("SELECT T1.a FROM x AS T1 JOIN y AS T2 ON T1.id = T2.id JOIN z AS T3 ON T2.id = T3.id WHERE T3.b = 1", "hard"),
        ("SELECT name FROM head WHERE age > (SELECT avg(age) FROM head)", "hard"),
        ("SELECT a FROM t WHERE b = 1 INTERSECT SELECT a FROM t WHERE b = 2", "hard"),
        ("SELECT a FROM t WHERE b = 1 GROUP BY a INTERSECT SELECT a FROM t WHERE b = 2", "extra"),
    ],
)
def test_spider_hardness_levels_for_hand_checked_queries(sql: str, level: str) -> None:
    assert SqlExtractor().parse(sql).hardness == level


def test_spider_hardness_reproduces_the_published_dev_mix() -> None:
    features, failures = extract_program_features(spider_dev_queries(), SqlExtractor())
    assert not failures
    assert Counter(features.hardness) == {"easy": 248, "medium": 446, "hard": 174, "extra": 166}


@pytest.mark.parametrize("bad", ["SELECT FROM WHERE", "SELECT a FROM b; SELECT c FROM d", "   "])
def test_unparsable_sql_raises_a_program_error_with_a_reason(bad: str) -> None:
    with pytest.raises(ProgramError, match="parse|statement"):
        SqlExtractor().parse(bad)


def test_feature_extraction_reports_every_failing_row() -> None:
    features, failures = extract_program_features(["SELECT a FROM b", "SELECT FROM", "SELECT FROM"], SqlExtractor())
    assert features is None and [f.row for f in failures] == [1, 2]


def test_chernoff_divergence_matches_hand_computation() -> None:
    p, q = np.array([3, 1, 0]), np.array([1, 1, 2])
    expected = 1 - (0.75**0.1 * 0.25**0.9 + 0.25**0.1 * 0.25**0.9)
    assert chernoff_divergence(p, q, 0.1) == pytest.approx(expected)
    assert chernoff_divergence(p, p * 7, 0.5) == pytest.approx(0.0, abs=1e-12)
    assert chernoff_divergence(np.array([1, 0]), np.array([0, 5]), 0.5) == 1.0
    assert np.isnan(chernoff_divergence(np.array([0, 0]), q[:2], 0.5))


def test_novel_share_counts_rows_with_an_item_unseen_in_train() -> None:
    items = SparseSets.from_rows([["a", "b"], ["a"], ["a", "c"], ["b"]])
    train = np.array([True, True, False, False])
    assert novel_share(items, train, ~train) == 0.5


def test_program_metrics_per_part() -> None:
    features, _ = extract_program_features(
        ["SELECT a FROM t", "SELECT a FROM t WHERE b = 1", "SELECT count(*) FROM u", "SELECT a FROM t"], SqlExtractor()
    )
    split = SplitIndices(train_idx=np.array([0, 1]), dev_idx=np.array([3]), test_idx=np.array([2]))
    train, dev, test = program_metrics(features, split)
    assert train.atom_divergence is None and train.hardness == {"easy": 2, "medium": 0, "hard": 0, "extra": 0}
    assert dev.atoms_missing_from_train == 0 and dev.novel_compound_share == 0.0
    assert test.atoms_missing_from_train == 3 and test.novel_compound_share == 1.0  # COUNT, *, u
    assert 0 < test.compound_divergence <= 1
