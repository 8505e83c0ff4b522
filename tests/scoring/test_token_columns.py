"""``--token-scores``: each query's tokens and their log-probabilities, kept from the scoring
passes themselves (no pass of their own), cached beside the sums, and written to the score
file — equal to the separate token pass of :mod:`tailsplit.scoring.tokens`, summing to each
query's score, and refused before any model loads where the scorer cannot hand them back."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest
from helpers import snli_requests

from tailsplit.cache import ScoreCache
from tailsplit.errors import ConfigError
from tailsplit.scoring.driver import score_requests

pytestmark = [pytest.mark.model]
torch = pytest.importorskip("torch")
HFScorer = pytest.importorskip("tailsplit.scoring.hf").HFScorer


@pytest.fixture(scope="module")
def requests_40():
    return snli_requests(30, 10)  # packed and padded batches, shared prompts


def test_kept_tokens_are_the_scoring_passes_own_and_sum_to_each_score(tiny_llama, requests_40, tmp_path) -> None:
    from tailsplit.scoring.tokens import token_scores

    scorer = HFScorer(str(tiny_llama), device="cpu", cache_dir=tmp_path, batch_tokens=400)
    scored = score_requests(requests_40, scorer, None, tokens=True)
    assert scored.token_logprobs is not None and scored.report.n_scored_batches > 2
    sums = np.array([np.sum(v, dtype=np.float64) for v in scored.token_logprobs])
    np.testing.assert_allclose(sums, scored.logprob_sum, rtol=0, atol=1e-9)
    assert [len(v) for v in scored.token_logprobs] == scored.n_tokens.tolist()
    separate = token_scores(scorer, requests_40)  # its own passes, planned the same way
    for kept, other in zip(scored.token_logprobs, separate):
        np.testing.assert_allclose(kept, other.logprobs, rtol=0, atol=1e-6)
    plain = score_requests(requests_40, scorer, None)
    assert plain.token_logprobs is None and np.array_equal(plain.logprob_sum, scored.logprob_sum)


def test_tokens_come_from_the_cache_and_a_sum_without_its_tokens_is_scored_again(
    tiny_llama, requests_40, tmp_path
) -> None:
    scorer = HFScorer(str(tiny_llama), device="cpu", cache_dir=tmp_path / "models", batch_tokens=400)
    with ScoreCache(tmp_path / "cache") as cache:
        sums_only = score_requests(requests_40[:20], scorer, cache)
        first = score_requests(requests_40, scorer, cache, tokens=True)
        again = score_requests(requests_40, scorer, cache, tokens=True)
    assert sums_only.token_logprobs is None
    assert first.report.n_cached == 0  # a cached sum without its tokens is no hit for a token run
    assert again.report.n_cached == again.report.n_unique and again.report.n_scored_batches == 0
    for a, b in zip(first.token_logprobs, again.token_logprobs):
        assert a.dtype == b.dtype == np.float32 and np.array_equal(a, b)
    assert np.array_equal(first.logprob_sum, again.logprob_sum)  # the sums cached first, as a plain run reads them
    assert max(abs(np.sum(v, dtype=np.float64) - s) for v, s in zip(again.token_logprobs, again.logprob_sum)) < 1e-4


def test_the_score_file_holds_each_querys_pieces_and_log_probabilities(tiny_llama, tmp_path) -> None:
    from tailsplit import score

    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        '{"id": "a", "text": "A man plays a guitar."}\n{"id": "b", "text": "Zebras calculate tax returns."}\n'
    )
    result = score(
        rows, model=str(tiny_llama), device="cpu", token_scores=True, cache_dir=tmp_path / "c",
        out=tmp_path / "scores.parquet",
    )  # fmt: skip
    table = pq.read_table(tmp_path / "scores.parquet").to_pydict()
    assert table["id"] == ["a", "b"]
    for pieces, logprobs, total, text in zip(
        table["token_pieces"], table["token_logprobs"], table["logprob_sum"], ["A man plays a guitar.", "Zebras"]
    ):
        assert len(pieces) == len(logprobs) > 0
        assert abs(sum(logprobs) - total) < 1e-4  # float32 values as stored, summed in float64 when scored
        assert "".join(pieces).strip().startswith(text)
    assert result.scores.token_pieces is not None


@pytest.mark.parametrize("options", [["--method", "ngram"], ["--engine", "ray"]])
def test_token_scores_are_refused_where_the_scorer_cannot_keep_them(options, tmp_path) -> None:
    """One line, exit 2, before any model loads (nothing is written)."""
    from typer.testing import CliRunner

    from tailsplit.cli import app

    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "a", "text": "A man plays a guitar."}\n')
    out = tmp_path / "scores.parquet"
    result = CliRunner().invoke(app, ["score", str(rows), "--token-scores", *options, "--out", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert "--token-scores=True has an effect only with --method prompted" in result.output
    assert "Traceback" not in result.output


def test_python_says_it_in_pythons_words() -> None:
    from tailsplit.config import check_values
    from tailsplit.config.run import ScoringConfig

    with pytest.raises(ConfigError, match="token_scores=True has an effect only with method="):
        check_values(ScoringConfig(token_scores=True, method="ngram"))


def test_a_token_table_made_before_moments_were_kept_gains_their_column(tmp_path) -> None:
    import sqlite3

    from tailsplit.cache import SCHEMA_VERSION

    tmp_path.mkdir(exist_ok=True)
    db = sqlite3.connect(tmp_path / f"scores-v{SCHEMA_VERSION}.sqlite")
    db.execute(
        "CREATE TABLE tokens (key TEXT PRIMARY KEY, logprobs BLOB NOT NULL, checksum INTEGER NOT NULL) WITHOUT ROWID"
    )
    db.commit()
    db.close()
    values = np.array([-1.5, -2.25], dtype=np.float32)
    with ScoreCache(tmp_path) as cache:
        cache.put_tokens([("k", values, np.array([[-3.0, -4.0], [0.5, 0.25]]))])
        kept = cache.get_tokens(["k"])["k"]
    assert np.array_equal(kept[0], values) and np.array_equal(kept[1], [[-3.0, -4.0], [0.5, 0.25]])
