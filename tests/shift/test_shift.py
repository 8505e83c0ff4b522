"""Dataset shift: similarity measures, OOD ranking, ID–OOD fits, and the three commands."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.errors import ConfigError
from tailsplit.shift.correlate import TYPES, classify, synthetic_points
from tailsplit.shift.ood import Candidate, id_model_unlearnt, rank_candidates
from tailsplit.shift.similarity import centroid_similarity, mmd2_unbiased, mmd_matrix, mmd_test

runner = CliRunner()


@pytest.mark.parametrize("kind", TYPES)
def test_correlate_recovers_the_generating_type_in_95_percent_of_seeds(kind: str) -> None:
    right = sum(classify(*synthetic_points(kind, n=30, seed=seed)).type == kind for seed in range(100))
    assert right >= 95


@pytest.mark.parametrize(
    ("shape", "reason"),
    [
        ("falling line", "not increasing"),
        ("decelerating", "decelerating"),
        ("falling hinge", "decreasing on both sides"),
        ("inverted V", "Λ"),
    ],
)
def test_shapes_boss_excludes_are_none_of_the_types(shape: str, reason: str) -> None:
    """An inverted V, a decelerating or falling curve and a falling line are not Type I/II/III."""
    results = [classify(*synthetic_points(shape, n=30, seed=seed)) for seed in range(40)]
    assert sum(r.type == "none" for r in results) >= 38
    assert sum(r.type == "none" and reason in r.reason for r in results) >= 36


def test_type_ii_fit_finds_the_turning_point_and_segment_r2() -> None:
    relation = classify(*synthetic_points("II", n=40, noise=0.005, seed=1))
    assert (
        relation.type == "II" and relation.chosen.kind == "hinge" and abs(relation.chosen.turning_point - 0.75) < 0.02
    )
    assert relation.chosen.slopes[0] == pytest.approx(0.3, abs=0.1) and relation.chosen.slopes[1] == pytest.approx(
        1.5, abs=0.15
    )
    assert len(relation.chosen.r2) == 2 and relation.chosen.r2[1] > 0.9
    with pytest.raises(ConfigError, match="at least 3 points with different id_acc"):
        classify(np.array([0.5, 0.5, 0.5]), np.array([0.1, 0.2, 0.3]))


def test_a_type_is_named_only_when_the_points_establish_it() -> None:
    # four points rising loosely (r² about 0.5): a line says "increasing", the points do not
    x, y = np.array([0.40, 0.45, 0.50, 0.55]), np.array([0.20, 0.26, 0.21, 0.27])
    relation = classify(x, y)
    assert relation.chosen.boss_type()[0] == "I" and relation.type == "undecided"
    assert "4 points are too few" in relation.reason and "--checkpoint-every" in relation.reason
    # enough points, but flat with noise: the slope's interval holds 0
    flat_x, flat_y = synthetic_points("I", n=12, noise=0.2, seed=3)
    flat = classify(flat_x, 0.3 + np.random.default_rng(3).normal(0, 0.05, 12))
    assert flat.type == "undecided" and "interval" in flat.reason and "includes 0" in flat.reason
    low, high = flat.chosen.intervals["slope"]
    assert low < flat.chosen.slopes[0] < high
    # the interval is the t-interval of the OLS slope
    slope, intercept = np.polyfit(flat_x, flat.chosen.predict(flat_x), 1)
    residuals = 0.3 + np.random.default_rng(3).normal(0, 0.05, 12) - (intercept + slope * flat_x)
    se = np.sqrt(residuals @ residuals / 10 / ((flat_x - flat_x.mean()) ** 2).sum())
    assert high - flat.chosen.slopes[0] == pytest.approx(2.228 * se, rel=1e-6)


def test_two_segment_fits_carry_boss_separate_lines() -> None:
    x, y = synthetic_points("III", n=30, seed=2)
    relation = classify(x, y)
    assert relation.type == "III"
    left = x <= relation.chosen.turning_point
    for line, side in zip(relation.chosen.separate, (left, ~left)):
        slope, intercept = np.polyfit(x[side], y[side], 1)
        fitted = intercept + slope * x[side]
        r2 = 1 - ((y[side] - fitted) ** 2).sum() / ((y[side] - y[side].mean()) ** 2).sum()
        assert (line.slope, line.intercept, line.r2, line.n) == pytest.approx((slope, intercept, r2, side.sum()))
    assert relation.as_dict()["chosen"]["separate"][0]["n"] == int(left.sum())


def test_an_id_model_that_learnt_nothing_decides_nothing() -> None:
    # entity F1 0.022 after 4 steps was reported "kept: rank 1"
    why = id_model_unlearnt(0.022, 0.012, 0.0, 0.1, "entity F1")
    assert why is not None and "has not learnt its task" in why and "--max-steps" in why
    assert id_model_unlearnt(0.40, 0.36, 0.38, 0.1, "accuracy") is not None  # its interval reaches the majority label
    assert id_model_unlearnt(0.55, 0.50, 0.34, 0.1, "accuracy") is None
    decisions = rank_candidates(
        [Candidate("a", "web", 60.0, 0.01), Candidate("b", "news", 50.0, 0.02)], id_accuracy=0.022, undecided=why
    )
    assert [(d.kept, d.rank, d.as_dict()["undecided"]) for d in decisions] == [(False, None, True)] * 2
    assert decisions[0].reasons == [f"undecided: {why}"]


def test_mmd_permutations_in_chunks_give_the_unchunked_p_value() -> None:
    from tailsplit.rng import MMD_PERMUTATIONS, seeded_rng
    from tailsplit.shift import similarity

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(40, 3)), rng.normal(0.3, 1.0, size=(50, 3))
    value, p = similarity.mmd_test(x, y, 1.0, permutations=2500, seed=4)  # three chunks
    stacked = np.concatenate([x, y])
    kernel = np.exp(-similarity._squared_distances(stacked) / 2.0)
    observed = np.zeros((90, 1), dtype=bool)
    observed[:40] = True
    draws = seeded_rng(4, MMD_PERMUTATIONS)
    shuffled = np.stack([draws.permutation(observed[:, 0]) for _ in range(2500)], axis=1)
    values = similarity.mmd2_unbiased(kernel, np.concatenate([observed, shuffled], axis=1))
    assert value == pytest.approx(values[0], abs=1e-12)
    assert p == (np.sum(values[1:] >= values[0]) + 1) / 2501


def test_unbiased_mmd_matches_the_definition() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(7, 3)), rng.normal(1.0, 1.0, size=(5, 3))
    z = np.concatenate([x, y])
    k = np.exp(-((z[:, None] - z[None]) ** 2).sum(-1) / 2)
    kxx = sum(k[i, j] for i in range(7) for j in range(7) if i != j) / 42
    kyy = sum(k[i, j] for i in range(7, 12) for j in range(7, 12) if i != j) / 20
    kxy = k[:7, 7:].mean()
    member = np.zeros((12, 1), dtype=bool)
    member[:7] = True
    assert mmd2_unbiased(k, member)[0] == pytest.approx(kxx + kyy - 2 * kxy)


def test_mmd_tells_equal_means_with_different_spread_apart() -> None:
    rng = np.random.default_rng(1)
    centre = np.full(16, 3.0)
    narrow, wide, twin = (centre + rng.normal(0, s, size=(300, 16)) for s in (0.3, 0.6, 0.3))
    assert centroid_similarity({"a": narrow, "b": wide})[0, 1] > 99.9  # centroids cannot see it
    result = mmd_matrix({"narrow": narrow, "wide": wide, "twin": twin}, sample=300, permutations=100)
    assert result.p_value[0, 1] < 0.05 and result.mmd2[0, 1] > 10 * abs(result.mmd2[0, 2])
    assert result.p_value[0, 2] > 0.05  # same distribution
    assert mmd_test(narrow, wide, result.bandwidth, 50, seed=3) == mmd_test(narrow, wide, result.bandwidth, 50, seed=3)


def test_ood_rank_keeps_one_per_source_and_explains_every_decision() -> None:
    candidates = [
        Candidate("anli", "wiki", 30.0, 0.45),
        Candidate("wanli", "gen", 60.0, 0.60),
        Candidate("contract", "legal", 10.0, 0.55),
        Candidate("wiki-nli", "wiki", 20.0, 0.50),
        Candidate("near", "news", 95.0, 0.20),
    ]
    decisions = {d.candidate.name: d for d in rank_candidates(candidates, id_accuracy=0.9, max_similarity=90)}
    assert [n for n, d in sorted(decisions.items(), key=lambda kv: kv[1].rank or 99) if d.kept] == [
        "anli",
        "contract",
        "wanli",
    ]
    assert "source 'wiki' already has 'anli'" in decisions["wiki-nli"].reasons[0]
    assert "too close to the ID data" in decisions["near"].reasons[0]
    assert decisions["anli"].drop == pytest.approx(0.45) and "rank 1" in decisions["anli"].reasons[-1]
    by_similarity = rank_candidates([c.__class__(c.name, c.source, c.similarity) for c in candidates])
    assert [d.rank for d in by_similarity] == [None, 3, 1, 2, 4]  # no accuracies: lowest similarity first
    with pytest.raises(ConfigError, match="give every candidate one, or none"):
        rank_candidates([candidates[0], Candidate("x", "y", 1.0)], id_accuracy=0.9)


def test_correlate_command_fits_each_group_and_reports_bad_rows(tmp_path: Path) -> None:
    lines = ["id_acc,ood_acc,group"]
    for kind in ("I", "III"):
        x, y = synthetic_points(kind, n=30, seed=5)
        lines += [f"{a:.5f},{b:.5f},model-{kind}" for a, b in zip(x, y)]
    (tmp_path / "points.csv").write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["correlate", str(tmp_path / "points.csv"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "model-I: Type I, increasing line" in result.output and "model-III: Type III" in result.output
    report = json.loads((tmp_path / "out" / "correlate.json").read_text())
    assert report["groups"]["model-III"]["chosen"]["turning_point"] == pytest.approx(0.72, abs=0.03)
    assert "<svg" in (tmp_path / "out" / "report.html").read_text()
    (tmp_path / "bad.csv").write_text("id_acc,ood_acc\n0.5,0.4\n0.6,high\n0.7,0.5\n")
    bad = runner.invoke(app, ["correlate", str(tmp_path / "bad.csv")])
    assert bad.exit_code == 2 and "bad.csv:3: field 'ood_acc' is 'high', not a number" in bad.output


NLI = [
    "A man is playing a guitar on stage.",
    "Two dogs run through a snowy field.",
    "A woman cooks pasta.",
    "Children are playing soccer in the park.",
    "A man rides a bicycle down the street.",
    "People wait for a bus.",
]
TWEETS = [
    "@user can't wait for the game tonight!!! #excited",
    "worst customer service ever, never again",
    "new phone who dis lol",
    "happy birthday to my best friend <3",
    "traffic is insane this morning smh",
    "just finished my first marathon!!",
]


def _shift_files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_jsonl(tmp_path / "nli.jsonl", [{"premise": t, "hypothesis": "Someone is outside."} for t in NLI]),
        write_jsonl(tmp_path / "tweets.jsonl", [{"text": t} for t in TWEETS]),
    )


@pytest.mark.model
def test_similarity_command_with_the_bundled_encoder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "cache"))
    nli, tweets = _shift_files(tmp_path)
    write_jsonl(tmp_path / "nli2.jsonl", [{"premise": t, "hypothesis": "Someone is outside."} for t in reversed(NLI)])
    args = [
        "similarity",
        f"nli={nli}@premise+hypothesis",
        f"<b>nli2</b>={tmp_path / 'nli2.jsonl'}@premise+hypothesis",
        f"tweets={tweets}",
        "--mmd-sample",
        "6",
        "--permutations",
        "20",
    ]
    first = runner.invoke(app, args + ["--out", str(tmp_path / "a")])
    assert first.exit_code == 0, first.output
    assert "embedded 12 texts (6 cached)" in first.output  # nli2 repeats nli's texts: encoded once
    matrix = np.array(json.loads((tmp_path / "a" / "similarity.json").read_text())["centroid_similarity"])
    assert matrix[0, 1] == pytest.approx(100, abs=0.01) and matrix[0, 2] < 60
    again = runner.invoke(app, args + ["--out", str(tmp_path / "b")])
    assert again.exit_code == 0 and "embedded 0 texts (18 cached)" in again.output
    for name in ("similarity.json", "report.md", "report.html"):  # the same but for --out in the command
        theirs = (
            (tmp_path / "b" / name).read_bytes().replace(str(tmp_path / "b").encode(), str(tmp_path / "a").encode())
        )
        assert (tmp_path / "a" / name).read_bytes() == theirs, name
    page = (tmp_path / "a" / "report.html").read_text()
    assert "<b>nli2</b>" not in page and "&lt;b&gt;nli2&lt;/b&gt;" in page and page.count("<svg") == 2
    assert "Provenance" in page and "\\toprule" in (tmp_path / "a" / "tables" / "centroid-similarity.tex").read_text()
    assert "](figures/centroid-similarity-cosine-100.svg)" in (tmp_path / "a" / "report.md").read_text()
    missing = runner.invoke(app, ["similarity", f"nli={nli}", f"tweets={tweets}"])
    assert missing.exit_code == 2 and "nli.jsonl:1: field 'text' is missing or not text" in missing.output


@pytest.mark.model
def test_ood_rank_command_reads_candidates_relative_to_the_csv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "cache"))
    nli, tweets = _shift_files(tmp_path)
    (tmp_path / "candidates.csv").write_text(
        "name,path,fields,source,accuracy\n"
        "tweets,tweets.jsonl,text,twitter,0.61\n"
        "nli-copy,nli.jsonl,premise+hypothesis,captions,0.88\n"
    )
    result = runner.invoke(
        app,
        [
            "ood-rank",
            "--id",
            f"id={nli}@premise+hypothesis",
            "--candidates",
            str(tmp_path / "candidates.csv"),
            "--id-accuracy",
            "0.9",
            "--min-drop",
            "0.05",
            "--out",
            str(tmp_path / "ood"),
        ],
    )
    assert result.exit_code == 0, result.output
    decisions = json.loads((tmp_path / "ood" / "ood.json").read_text())["decisions"]
    assert [(d["name"], d["kept"]) for d in decisions] == [("tweets", True), ("nli-copy", False)]
    assert (
        decisions[1]["similarity"] == pytest.approx(100, abs=0.01) and "not challenging" in decisions[1]["reasons"][0]
    )
    (tmp_path / "bad.csv").write_text("name,path,source\ntweets,,twitter\n")
    bad = runner.invoke(
        app, ["ood-rank", "--id", str(nli) + "@premise+hypothesis", "--candidates", str(tmp_path / "bad.csv")]
    )
    assert bad.exit_code == 2 and "bad.csv:2: field 'path' is missing or empty" in bad.output


@pytest.mark.model
def test_similarity_between_the_parts_of_a_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "cache"))
    rows = [{"id": f"r{i}", "text": t} for i, t in enumerate(NLI * 3 + TWEETS * 3)]
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    split = runner.invoke(
        app,
        [
            "split",
            str(data),
            "--splitter",
            "random",
            "--dev-size",
            "6",
            "--test-size",
            "6",
            "--no-analyze",
            "--out",
            str(tmp_path / "rand"),
        ],
    )
    assert split.exit_code == 0, split.output
    result = runner.invoke(
        app,
        [
            "similarity",
            "--split",
            str(tmp_path / "rand"),
            "--mmd-sample",
            "30",
            "--permutations",
            "10",
            "--out",
            str(tmp_path / "sim"),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "sim" / "similarity.json").read_text())
    assert report["names"] == ["rand:train", "rand:dev", "rand:test"]
    assert [d["examples"] for d in report["datasets"]] == [24, 6, 6]


@pytest.mark.model
def test_texts_are_embedded_chunk_by_chunk_each_shown_and_cached(
    tiny_encoder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long embedding is no one silent call: chunks of ``CHUNK_BATCHES`` batches, each
    advancing the command's progress and committed to the cache, the same vectors as one call."""
    from tailsplit.progress import shown
    from tailsplit.shift import encoder as encoding

    texts = [f"a sentence number {i} about {'cats' if i % 2 else 'dogs'}" for i in range(70)]
    whole = encoding.SentenceEncoder(str(tiny_encoder), batch_size=4, cache_dir=tmp_path / "one").load_model()
    reference = whole.encode(texts, batch_size=4, convert_to_numpy=True)
    chunked = encoding.SentenceEncoder(str(tiny_encoder), batch_size=4, cache_dir=tmp_path / "chunks")
    advanced: list[int] = []

    class Counting(encoding.ProgressBar):
        def __enter__(self):  # type: ignore[no-untyped-def]
            inner = super().__enter__()

            def advance(n: int) -> None:
                advanced.append(n)
                inner(n)

            return advance

    monkeypatch.setattr(encoding, "ProgressBar", Counting)
    with shown(True):
        vectors = chunked.encode(texts)
    assert advanced == [8] * 8 + [6] and chunked.encoded == 70
    np.testing.assert_allclose(vectors, reference, rtol=0, atol=1e-5)
    again = encoding.SentenceEncoder(str(tiny_encoder), batch_size=4, cache_dir=tmp_path / "chunks")
    assert np.array_equal(again.encode(texts), vectors) and again.encoded == 0
    chunked.close()
    again.close()
