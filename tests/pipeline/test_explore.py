"""``tailsplit explore``: one self-contained page of every example of one or more splits — its
rows and token cells as the score file holds them, hostile text inert, several splits of the
same data side by side with their test sets' overlap, ``evaluate``'s predictions joined by
id, the same bytes for the same inputs, and every refusal one line before anything is written.
The page's behaviour in a browser is tested in ``tests/render/test_explorer_browser.py``."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import EXPLORE_HOSTILE as HOSTILE
from helpers import explore_examples as examples
from helpers import explore_folders, invoke, write_jsonl
from helpers import explore_token_scores as token_scores
from hostile import Elements

from tailsplit.render.explorer import SCALE, shade_alpha, token_cell

pytest.importorskip("itables")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return explore_folders(tmp_path_factory.mktemp("explore"))


def page_json(page: str, element: str) -> object:
    found = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_a_split_folder_keeps_the_score_files_tokens(folders) -> None:
    table = pq.read_table(folders["ll"] / "scores.parquet").to_pydict()
    pieces, values = token_scores(examples())
    at = {example: i for i, example in enumerate(table["id"])}
    for i, example in enumerate(f"e{k}" for k in range(60)):
        assert table["token_pieces"][at[example]] == pieces[i]
        assert np.array_equal(np.float32(table["token_logprobs"][at[example]]), values[i])


def test_the_page_holds_every_example_once_with_its_tokens_as_scored(folders, tmp_path) -> None:
    result = invoke(["explore", folders["ll"], "--out", tmp_path / "x"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "x" / "explorer.html").read_text(encoding="utf-8")
    spec, rows = page_json(page, "explorer-spec"), page_json(page, "explorer-rows")
    keys = [c["key"] for c in spec["columns"]]
    assert keys[:5] == ["id", "context", "text", "label", "part:ll"]
    assert sorted(r[0] for r in rows) == sorted(f"e{k}" for k in range(60))
    pieces, values = token_scores(examples())
    text = keys.index("text")
    for row in rows:
        i = int(row[0][1:])
        cell = row[text]
        assert cell[0] == examples()[i]["hypothesis"]  # the text, literally
        assert cell == token_cell(cell[0], pieces[i], values[i])
        assert "".join(cell[0][sum(cell[1][:j]) : sum(cell[1][: j + 1])] for j in range(len(cell[1]))) == cell[0]
        assert np.max(np.abs(np.array(cell[2]) / 100 - values[i])) <= 0.005
    order = spec["order"][0]
    assert keys[order[0]] == "logprob_sum" and order[1] == "asc"  # the tail first
    manifest = json.loads((tmp_path / "x" / "manifest.json").read_text())
    assert manifest["explorer"]["rows"] == 60 and manifest["explorer"]["tokens"] is True
    assert set(manifest["outputs"]) == {"explorer.html"} and manifest["itables_version"]


def test_hostile_text_stays_inert_in_the_page(folders, tmp_path) -> None:
    assert invoke(["explore", folders["ll"], "--out", tmp_path / "x"]).exit_code == 0
    page = (tmp_path / "x" / "explorer.html").read_text(encoding="utf-8")
    parser = Elements()
    parser.feed(page)
    scripts = [dict(attrs) for tag, attrs in parser.found if tag == "script"]
    assert [s.get("id", s.get("type")) for s in scripts] == [
        "explorer-spec", "explorer-rows", "explorer-bundle", "module"
    ]  # fmt: skip
    for tag, attrs in parser.found:
        assert tag not in ("img", "iframe"), (tag, attrs)
        assert not any(name.startswith("on") for name, _ in attrs), (tag, attrs)
    assert HOSTILE not in page and "<b>bold</b>" not in page
    assert [r[2][0] for r in page_json(page, "explorer-rows") if r[0] == "e7"] == [HOSTILE]  # as text, whole
    assert html.escape("<b>") not in page.split('id="explorer-rows">')[1].split("</script>")[0]


def test_two_splits_side_by_side_show_where_each_puts_every_example(folders, tmp_path) -> None:
    result = invoke(["explore", folders["ll"], folders["rnd"], "--out", tmp_path / "x"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "x" / "explorer.html").read_text(encoding="utf-8")
    spec, rows = page_json(page, "explorer-spec"), page_json(page, "explorer-rows")
    keys = [c["key"] for c in spec["columns"]]
    parts = {}
    for name in ("ll", "rnd"):
        for part in ("train", "dev", "test"):
            for line in (folders[name] / f"{part}.jsonl").read_text().splitlines():
                parts[(name, json.loads(line)["id"])] = part
    a, b, where = keys.index("part:ll"), keys.index("part:rnd"), keys.index("test_in")
    for row in rows:
        assert row[a] == parts[("ll", row[0])] and row[b] == parts[("rnd", row[0])]
        expected = {(True, True): "all", (False, False): "none", (True, False): "ll", (False, True): "rnd"}
        assert row[where] == expected[(row[a] == "test", row[b] == "test")]
    both = sum(parts[("ll", f"e{k}")] == parts[("rnd", f"e{k}")] == "test" for k in range(60))
    assert f"{both} examples in both tests" in result.output
    assert "Overlap of the test sets" in page


def test_evaluate_predictions_sit_beside_the_examples_of_their_split(folders, tmp_path) -> None:
    test_ids = [json.loads(line)["id"] for line in (folders["ll"] / "test.jsonl").read_text().splitlines()]
    predicted = [
        {"folder": "ll", "split": "likelihood", "baseline": "tfidf", "id": i, "gold": "neutral",
         "predicted": "neutral", "probability": 0.5, "correct": n % 2 == 0}
        for n, i in enumerate(test_ids)
    ]  # fmt: skip
    other = {**predicted[0], "folder": "another-split"}  # another folder's rows are left out
    path = write_jsonl(tmp_path / "predictions.jsonl", [*predicted, other])
    result = invoke(["explore", folders["ll"], "--predictions", path, "--out", tmp_path / "x"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "x" / "explorer.html").read_text(encoding="utf-8")
    spec, rows = page_json(page, "explorer-spec"), page_json(page, "explorer-rows")
    keys = [c["key"] for c in spec["columns"]]
    said, verdict = keys.index("ll:tfidf:predicted"), keys.index("ll:tfidf:correct")
    by_id = {r[0]: r for r in rows}
    for n, i in enumerate(test_ids):
        assert by_id[i][said] == "neutral" and by_id[i][verdict] == ("yes" if n % 2 == 0 else "no")
    assert all(r[said] is None for r in rows if r[0] not in test_ids)


def test_the_same_inputs_write_the_same_page(folders, tmp_path) -> None:
    pages = []
    for _ in range(2):  # the same command (the page records it), written afresh
        args = ["explore", folders["ll"], folders["rnd"], "--out", tmp_path / "x", "--overwrite"]
        assert invoke(args).exit_code == 0
        pages.append((tmp_path / "x" / "explorer.html").read_bytes())
    assert pages[0] == pages[1]


def test_a_split_without_token_scores_shows_its_text(folders, tmp_path) -> None:
    result = invoke(["explore", folders["rnd"], "--out", tmp_path / "x"])
    assert result.exit_code == 0 and "score with --token-scores" in result.output
    rows = page_json((tmp_path / "x" / "explorer.html").read_text(encoding="utf-8"), "explorer-rows")
    assert all(len(r[2]) == 1 for r in rows)


def test_shades_follow_the_legend() -> None:
    assert shade_alpha(0.0) == 0 and shade_alpha(-SCALE) == shade_alpha(-3 * SCALE) == 1.0
    assert shade_alpha(-2.5) == 0.25 and shade_alpha(1.0) == 0.0
    assert token_cell("a 😀 b", ["a", " 😀", " b"], [-1, -2, -3])[1] == [1, 3, 2]  # UTF-16 units, as JavaScript counts
    assert token_cell("xy", ["x", "z"], [-1, -2]) == ["xy", ["x", "z"], [-100, -200]]  # pieces that do not spell it


def refusal(args: list[str], tmp_path: Path, says: str) -> None:
    result = invoke(args)
    assert result.exit_code == 2, result.output
    assert says in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert "Traceback" not in result.output and not (tmp_path / "x").exists()


def test_splits_of_other_data_are_refused(folders, tmp_path) -> None:
    other = write_jsonl(tmp_path / "other.jsonl", examples(30))
    args = ["split", other, "--text", "hypothesis", "--label", "label", "--splitter", "random", "--no-analyze"]
    assert invoke([*args, "--out", tmp_path / "small"]).exit_code == 0
    refusal(["explore", folders["ll"], tmp_path / "small", "--out", tmp_path / "x"], tmp_path, "not of the same data")


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        ([{"folder": "ll", "baseline": "b", "id": "e1", "predicted": "x"}], "field 'correct'"),
        ([{"folder": "ll", "baseline": "b", "id": "nope", "predicted": "x", "correct": True}], "names id 'nope'"),
        ([{"folder": "ll", "baseline": "b", "id": "e1", "predicted": "x", "correct": "yes"}], "not true or false"),
        ([{"folder": "elsewhere", "baseline": "b", "id": "e1", "predicted": "x", "correct": True}], "no predictions"),
    ],
)
def test_bad_predictions_are_refused_naming_the_line(folders, tmp_path, rows, says) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    refusal(["explore", folders["ll"], "--predictions", path, "--out", tmp_path / "x"], tmp_path, says)


def test_the_output_folder_is_checked_first(folders, tmp_path) -> None:
    refusal(["explore", folders["ll"], "--out", folders["ll"]], tmp_path, "--out")
    refusal(["explore", folders["ll"]], tmp_path, "--out is required")


def test_a_missing_table_library_is_named_before_anything_is_read(folders, tmp_path, monkeypatch) -> None:
    from tailsplit.render import explorer

    def absent(name: str) -> None:
        raise ModuleNotFoundError(name)

    monkeypatch.setattr(explorer.resources, "files", absent)
    refusal(["explore", folders["ll"], "--out", tmp_path / "x"], tmp_path, "tailsplit[explore]")


def test_token_columns_that_disagree_are_refused(folders, tmp_path) -> None:
    table = pq.read_table(folders["root"] / "scores.parquet").to_pydict()
    table["token_logprobs"][3] = table["token_logprobs"][3][:-1]
    pq.write_table(pa.table(table), tmp_path / "bad.parquet")
    args = ["split", folders["data"], "--text", "hypothesis", "--label", "label", "--no-analyze"]
    refusal([*args, "--scores", tmp_path / "bad.parquet", "--out", tmp_path / "x"], tmp_path, "token_logprobs")


def test_python_returns_the_result_and_writes_later(folders, tmp_path) -> None:
    from tailsplit import explore

    result = explore([folders["ll"], folders["rnd"]])
    assert result.out_dir is None and result.content["rows"] == 60 and len(result.rows()) == 1
    written = result.write(tmp_path / "x")
    assert (written.out_dir / "explorer.html").is_file()


def test_the_predictions_evaluate_writes_are_joined_as_it_writes_them(folders, tmp_path) -> None:
    """The real ``evaluate`` output (TF-IDF baselines on both splits), not a stand-in of it."""
    pytest.importorskip("sklearn")
    evaluated = invoke(["evaluate", folders["ll"], folders["rnd"], "--baseline", "tfidf", "--out", tmp_path / "eval"])
    assert evaluated.exit_code == 0, evaluated.output
    path = tmp_path / "eval" / "predictions.jsonl"
    result = invoke(["explore", folders["ll"], folders["rnd"], "--predictions", path, "--out", tmp_path / "x"])
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in path.read_text().splitlines()]
    page = (tmp_path / "x" / "explorer.html").read_text(encoding="utf-8")
    spec, rows = page_json(page, "explorer-spec"), page_json(page, "explorer-rows")
    keys = [c["key"] for c in spec["columns"]]
    by_id = {r[0]: r for r in rows}
    for name in ("ll", "rnd"):
        mine = [w for w in written if Path(w["folder"]).name == name and w["baseline"] == "tfidf"]
        assert len(mine) == sum(1 for _ in (folders[name] / "test.jsonl").open())
        said, verdict = keys.index(f"{name}:tfidf:predicted"), keys.index(f"{name}:tfidf:correct")
        for w in mine:
            assert by_id[w["id"]][said] == w["predicted"]
            assert by_id[w["id"]][verdict] == ("yes" if w["correct"] else "no")


def test_a_tail_button_per_label_only_while_they_fit() -> None:
    from tailsplit.render.explorer import MAX_TAIL_BUTTONS, Column, ExplorerTable, _tails

    columns = [Column("id", "id"), Column("label", "label", "category"), Column("logprob_sum", "log p", "number")]
    few = ExplorerTable(columns, [[f"e{i}", f"l{i % 3}", -float(i)] for i in range(9)], "logprob_sum")
    many = ExplorerTable(columns, [[f"e{i}", f"l{i}", -float(i)] for i in range(MAX_TAIL_BUTTONS + 1)], "logprob_sum")
    assert _tails(few, "label").count("data-tail=") == 3
    assert _tails(many, "label") == "" and _tails(few, None) == ""
    assert _tails(ExplorerTable(columns, few.rows, None), "label") == ""  # no scores: no tail


def test_membership_scores_travel_from_the_score_file_to_the_page(folders, tmp_path) -> None:
    """``--membership-k``'s columns: carried by ``split --scores`` into the split folder, and a
    number column of the explorer."""
    kept = pq.read_table(folders["ll"] / "scores.parquet").to_pydict()
    pieces, values = token_scores(examples())
    at = {example: i for i, example in enumerate(kept["id"])}
    assert [kept["membership_min_k"][at[f"e{k}"]] for k in range(60)] == [float(np.sort(v)[0]) for v in values]
    assert invoke(["explore", folders["rnd"], folders["ll"], "--out", tmp_path / "x"]).exit_code == 0
    page = (tmp_path / "x" / "explorer.html").read_text(encoding="utf-8")
    spec, rows = page_json(page, "explorer-spec"), page_json(page, "explorer-rows")
    keys = [c["key"] for c in spec["columns"]]
    column = keys.index("membership_min_k")
    assert spec["columns"][column]["kind"] == "number" and spec["columns"][column]["title"] == "membership: Min-K%"
    for row in rows:
        assert abs(row[column] - float(np.sort(values[int(row[0][1:])])[0])) <= 5e-5
    assert len(rows[0][keys.index("text")]) == 3  # the tokens too, from the second folder's score file


def test_a_score_files_membership_column_reads_nulls_as_nan_and_refuses_text(tmp_path) -> None:
    """A score file made elsewhere: a null membership score is a text without a token (NaN);
    a value that is not a number is named by its row and field, and nothing is written."""
    rows = examples()
    data = write_jsonl(tmp_path / "data.jsonl", rows)
    base = {"id": [r["id"] for r in rows], "logprob_sum": [-float(i + 1) for i in range(len(rows))]}
    common = [data, "--text", "hypothesis", "--label", "label", "--no-analyze"]
    nulls = [None if i == 3 else -1.0 - i for i in range(len(rows))]
    pq.write_table(pa.table({**base, "membership_loss": nulls}), tmp_path / "s.parquet")
    assert invoke(["split", *common, "--scores", tmp_path / "s.parquet", "--out", tmp_path / "a"]).exit_code == 0
    kept = pq.read_table(tmp_path / "a" / "scores.parquet").to_pydict()
    loss = dict(zip(kept["id"], kept["membership_loss"]))
    assert np.isnan(loss[rows[3]["id"]]) and loss[rows[4]["id"]] == -5.0
    words = [None if i < 2 else "x" for i in range(len(rows))]  # text, after two nulls
    pq.write_table(pa.table({**base, "membership_loss": pa.array(words, pa.string())}), tmp_path / "t.parquet")
    result = invoke(["split", *common, "--scores", tmp_path / "t.parquet", "--out", tmp_path / "b"])
    assert result.exit_code == 2 and "row 3: field 'membership_loss' has 'x'" in result.output
    assert not (tmp_path / "b").exists()
