"""The membership scores' calibration on known members and non-members (``--members``,
``--non-members``): the AUC against scikit-learn's, the TPR at 5 % FPR against its definition
counted by hand, intervals that hold the value, and every refusal before a model loads."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from tailsplit.cli import app
from tailsplit.scoring.membership_calibration import auc, calibration_table, tpr_at_fpr

runner = CliRunner()


@pytest.mark.parametrize("seed", range(5))
def test_auc_is_scikit_learns_with_ties(seed: int) -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(seed)
    members = rng.integers(0, 6, size=int(rng.integers(5, 40))).astype(float)  # many ties
    others = rng.integers(0, 5, size=int(rng.integers(5, 40))).astype(float)
    expected = roc_auc_score([1] * len(members) + [0] * len(others), np.concatenate([members, others]))
    assert auc(members, others) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_tpr_at_5_percent_fpr_lets_at_most_5_percent_of_non_members_through(seed: int) -> None:
    rng = np.random.default_rng(seed)
    members, others = rng.normal(1, 1, 50), rng.normal(0, 1, int(rng.integers(20, 200)))
    tpr = tpr_at_fpr(members, others)
    # the lowest threshold among the non-members' own scores that at most 5 % exceed
    allowed = [t for t in np.sort(others) if np.mean(others > t) <= 0.05]
    assert tpr == np.mean(members > min(allowed))


def test_the_table_gives_every_score_an_interval_around_its_value_and_is_seeded() -> None:
    rng = np.random.default_rng(0)
    is_member = np.array([True] * 40 + [False] * 60)
    scores = {"loss": np.where(is_member, 1.0, 0.0) + rng.normal(0, 1, 100), "zlib": rng.normal(0, 1, 100)}
    scores["zlib"][[0, 50]] = np.nan  # a text without a token: left out of that score only
    table = calibration_table(scores, is_member, seed=3)
    assert table == calibration_table(scores, is_member, seed=3)
    for row in table["scores"].values():
        for statistic in ("auc", "tpr_at_5pct_fpr"):
            low, high = row[statistic]["ci95"]
            assert low <= row[statistic]["value"] <= high
    assert (table["scores"]["zlib"]["members"], table["scores"]["zlib"]["non_members"]) == (39, 59)
    assert table["scores"]["loss"]["auc"]["ci95"][0] > 0.5  # separable here, and the interval says so


def write_rows(path, texts):  # noqa: ANN001, ANN201
    path.write_text("".join(json.dumps({"id": f"{path.stem}{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    return path


def test_a_calibration_is_refused_in_one_line_before_any_model_loads(tmp_path) -> None:
    data = write_rows(tmp_path / "d.jsonl", ["a man plays", "a dog runs"])
    members = write_rows(tmp_path / "m.jsonl", [f"member text {i}" for i in range(12)])
    others = write_rows(tmp_path / "n.jsonl", [f"other text {i}" for i in range(12)])
    few = write_rows(tmp_path / "few.jsonl", ["only one"])
    both = write_rows(tmp_path / "both.jsonl", [f"other text {i}" for i in range(11)] + ["member text 3"])
    base = ["score", str(data), "--out", str(tmp_path / "s.parquet")]
    cases = [
        (["--membership-k", "20", "--members", str(members)], "--members needs --non-members too"),
        (["--members", str(members), "--non-members", str(others)], "only with --membership-k"),
        (["--membership-k", "20", "--members", str(members), "--non-members", str(few)], "holds 1 texts"),
        (
            ["--membership-k", "20", "--members", str(members), "--non-members", str(both)],
            "both.jsonl: row 12: field 'text'",
        ),
    ]
    for extra, says in cases:
        result = runner.invoke(app, [*base, *extra, "--model", str(tmp_path / "no-such-model")])
        assert result.exit_code == 2 and says in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not (tmp_path / "s.parquet").exists()


@pytest.mark.model
def test_the_score_file_records_the_table_of_the_known_texts(tiny_llama, tmp_path) -> None:
    import pyarrow.parquet as pq

    from tailsplit.scoring.membership import MEMBERSHIP_SCORES

    data = write_rows(tmp_path / "d.jsonl", ["A man plays a guitar.", "Two dogs run."])
    members = write_rows(tmp_path / "m.jsonl", [f"A person number {i} walks in the park." for i in range(12)])
    others = write_rows(tmp_path / "n.jsonl", [f"Zebra {i} computes taxes under the moon." for i in range(12)])
    args = ["score", str(data), "--model", str(tiny_llama), "--device", "cpu", "--cache-dir", str(tmp_path / "c")]
    extra = ["--membership-k", "20", "--members", str(members), "--non-members", str(others)]
    result = runner.invoke(app, [*args, *extra, "--out", str(tmp_path / "s.parquet")])
    assert result.exit_code == 0, result.output
    assert "on the known members against the known non-members" in result.output and "no verdict" not in result.output
    table = pq.read_table(tmp_path / "s.parquet")
    assert table.num_rows == 2  # the known texts are scored for the table, not written as rows
    calibration = json.loads(table.schema.metadata[b"tailsplit"])["membership"]["calibration"]
    assert sorted(calibration["scores"]) == sorted(MEMBERSHIP_SCORES)
    # the table is that of each side's own scores, as `score` gives them for the files alone
    sides = []
    for side in (members, others):
        out = tmp_path / f"{side.stem}.parquet"
        assert (
            runner.invoke(app, ["score", str(side), *args[2:], "--membership-k", "20", "--out", str(out)]).exit_code
            == 0
        )
        sides.append(pq.read_table(out))
    is_member = np.array([True] * 12 + [False] * 12)
    for name in MEMBERSHIP_SCORES:
        values = np.concatenate([s.column(f"membership_{name}").to_numpy() for s in sides])
        assert calibration["scores"][name]["auc"]["value"] == round(auc(values[is_member], values[~is_member]), 4)
