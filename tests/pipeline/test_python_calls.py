"""Commands as one Python call (``tailsplit.likelihood_split``, ``tailsplit.split``): the
same split as the config-object API and the command line, every input form, keyword errors
that name the keyword, the analysis in memory when asked, progress only when watched."""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
import types
from pathlib import Path

import pytest
from helpers import SAMPLE, assert_same_output
from typer.testing import CliRunner

import tailsplit
from tailsplit.cli import app
from tailsplit.errors import ConfigError
from tailsplit.progress import in_notebook, watched

ROWS = 150


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line, _ in zip(handle, range(ROWS))]


def parts(result: tailsplit.RunResult) -> list[str]:
    return result.to_pandas()["part"].tolist()


def test_a_likelihood_split_is_one_call_equal_to_the_config_api(rows) -> None:
    options = dict(text="hypothesis", context="premise", label="label", template="snli", balance_labels=True)
    ours = tailsplit.likelihood_split(rows, backend="fake", **options)
    config = tailsplit.RunConfig()
    config.data = tailsplit.DataConfig(table=rows, text="hypothesis", context="premise", label="label")
    config.scoring.template, config.scoring.backend, config.split.balance_labels = "snli", "fake", True
    theirs = tailsplit.run(config)
    assert (
        ours.manifest["splitter"] == theirs.manifest["splitter"] and ours.manifest["splitter"]["name"] == "likelihood"
    )
    assert ours.to_pandas().equals(theirs.to_pandas())
    assert ours.out_dir is None and ours.analysis is None


def test_every_input_form_gives_the_same_split(rows, tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options = dict(text="hypothesis", label="label", seed=3, balance_labels=True)
    expected = parts(tailsplit.split(rows, "random", **options))
    assert parts(tailsplit.split(path, "random", **options)) == expected
    assert parts(tailsplit.split(str(path), "random", **options)) == expected
    assert parts(tailsplit.split(pandas.DataFrame(rows), "random", **options)) == expected
    half = tmp_path / "second.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows[:75]), encoding="utf-8")
    half.write_text("".join(json.dumps(r) + "\n" for r in rows[75:]), encoding="utf-8")
    assert parts(tailsplit.split([path, half], "random", **options)) == expected  # pooled in order


def test_keyword_errors_name_the_keyword(rows) -> None:
    with pytest.raises(ConfigError, match=r"lable='label' is not an option; did you mean label\?"):
        tailsplit.split(rows, "random", text="hypothesis", lable="label")
    with pytest.raises(ConfigError, match="dev_size=-1 must be at least 0"):
        tailsplit.split(rows, "random", text="hypothesis", dev_size=-1)
    with pytest.raises(ConfigError, match="paths= is given as data"):
        tailsplit.split(rows, "random", paths=["x.jsonl"])
    with pytest.raises(ConfigError, match="data=None"):
        tailsplit.split(None, "random")
    with pytest.raises(ConfigError, match="splitter"):
        tailsplit.split(rows, "randm", text="hypothesis")


def test_the_analysis_is_computed_in_memory_when_asked(rows, tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("wordfreq")
    monkeypatch.chdir(tmp_path)
    result = tailsplit.split(rows, "length", text="hypothesis", analyze=True, null_splits=400, syntax=False)
    assert result.out_dir is None and list(tmp_path.iterdir()) == []  # nothing written
    assert result.analysis is not None and result.analysis.comparison("mean_words").differs


def test_out_writes_what_the_command_line_writes(rows, tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options = ["--text", "hypothesis", "--label", "label", "--splitter", "random", "--seed", "2", "--no-analyze"]
    command = CliRunner().invoke(app, ["split", str(data), *options, "--out", str(tmp_path / "cli")])
    assert command.exit_code == 0, command.output
    result = tailsplit.split(
        data, "random", text="hypothesis", label="label", seed=2, analyze=False, out=tmp_path / "py"
    )
    assert result.out_dir == tmp_path / "py"
    for name in ("train.jsonl", "dev.jsonl", "test.jsonl", "summary.md"):
        assert_same_output(tmp_path / "py" / name, tmp_path / "cli" / name)


def test_progress_shows_in_a_terminal_or_a_notebook_only(monkeypatch) -> None:
    assert not in_notebook() and not watched()  # pytest captures stderr: nobody is watching

    class ZMQInteractiveShell:  # what a Jupyter kernel's shell is called
        pass

    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: ZMQInteractiveShell()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert in_notebook() and watched()
    fake.get_ipython = lambda: None  # type: ignore[attr-defined]  # IPython imported, no kernel
    assert not in_notebook()


def test_a_result_writes_the_folder_the_command_line_writes_and_shows_its_verdicts(rows, tmp_path: Path) -> None:
    pytest.importorskip("wordfreq")
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options = ["--text", "hypothesis", "--splitter", "length", "--null-splits", "400", "--no-syntax"]
    cli, py = tmp_path / "cli" / "length", tmp_path / "py" / "length"  # an analysis is named by its folder
    command = CliRunner().invoke(app, ["split", str(data), *options, "--out", str(cli)])
    assert command.exit_code == 0, command.output
    result = tailsplit.split(data, "length", text="hypothesis", analyze=True, null_splits=400, syntax=False)
    written = result.write(py)
    assert written.out_dir == py and result.out_dir is None
    for name in ("train.jsonl", "dev.jsonl", "test.jsonl", "summary.md", "analysis.json", "report.md"):
        assert_same_output(py / name, cli / name)
    manifest = json.loads((py / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["config"]["output"]["out"] == str(py)
    with pytest.raises(tailsplit.TailsplitError, match="not empty|exists|overwrite"):
        result.write(py)
    shown = result._repr_html_()
    assert "mean query length (word tokens)" in shown and "Holm" in shown


def test_analyze_is_one_call_on_a_folder_or_a_run_in_memory(rows, tmp_path: Path) -> None:
    pytest.importorskip("wordfreq")
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    options = dict(text="hypothesis", label="label", analyze=False)
    length = tailsplit.split(data, "length", **options)
    random = tailsplit.split(data, "random", seed=1, **options)
    folder, other = tmp_path / "<b>length", tmp_path / "random"  # a name that is markup stays text
    length.write(folder), random.write(other)
    before = sorted(p.name for p in folder.iterdir())

    on_folder = tailsplit.analyze(folder, compare=[other], null_splits=300, syntax=False)
    assert sorted(p.name for p in folder.iterdir()) == before, "analyze wrote before it was asked to"
    in_memory = tailsplit.analyze(length, compare=[random], null_splits=300, syntax=False)
    table, memory_table = on_folder.to_pandas(), in_memory.to_pandas()
    assert table[["statistic", "observed", "p", "p_holm", "differs"]].equals(
        memory_table[["statistic", "observed", "p", "p_holm", "differs"]]
    )
    assert table.set_index("statistic").loc["mean_words", "differs"]
    assert on_folder.comparisons[0][0].as_dict() == in_memory.comparisons[0][0].as_dict() | {"other": "random"}
    shown = on_folder._repr_html_()
    assert "&lt;b&gt;length" in shown and "<b>length" not in shown and shown.count("<svg") == 1  # the key figure
    # as the report prints it: the split's kind, shares in percent, the comparison asked for
    table_html = shown[: shown.index("</table>")]
    assert "of the length split" in shown and "%" in table_html and "vs random: " in shown
    assert not re.search(r"\d\.\d{5,}", table_html), table_html  # numbers at the report's precision

    assert on_folder.write() == folder
    by_cli, by_python = tmp_path / "cli" / "random", tmp_path / "python" / "random"  # same name: same reports
    random.write(by_cli), random.write(by_python)
    command = CliRunner().invoke(
        app, ["analyze", str(by_cli), "--compare", str(folder), "--null-splits", "300", "--no-syntax"]
    )
    assert command.exit_code == 0, command.output
    tailsplit.analyze(by_python, compare=[folder], null_splits=300, syntax=False).write()
    for name in ("analysis.json", "report.md", "report.html"):
        assert_same_output(by_python / name, by_cli / name)
    with pytest.raises(ConfigError, match="in memory; write it to a folder of its own"):
        in_memory.write()
    own = in_memory.write(tmp_path / "memory-analysis")  # an analysis of a run in memory, in its own folder
    assert {"report.md", "report.html", "analysis.json", "manifest.json"} <= {p.name for p in own.iterdir()}
    assert (
        json.loads((own / "analysis.json").read_text())["against_null"]
        == json.loads((folder / "analysis.json").read_text())["against_null"]
    )
    assert "wrote " + str(own) in in_memory.console()[-1].text
    with pytest.raises(ConfigError, match="overwrite"):
        in_memory.write(own)
    assert in_memory.write(own, overwrite=True) == own
    with pytest.raises(ConfigError):  # never over an input of the run, overwrite or not
        in_memory.write(data, overwrite=True)
    assert data.read_bytes().startswith(b"{")
    with pytest.raises(ConfigError, match=r"null_split=3 is not an option; did you mean null_splits\?"):
        tailsplit.analyze(folder, null_split=3)


def test_evaluate_is_one_call_whose_result_writes_what_the_command_line_writes(rows, tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    fields = dict(text="hypothesis", context="premise", label="label", balance_labels=True, analyze=False)
    length = tailsplit.split(data, "length", **fields).write(tmp_path / "length")
    random = tailsplit.split(data, "random", seed=1, **fields).write(tmp_path / "random-1")
    evaluation = tailsplit.evaluate([length, tmp_path / "random-1"], baselines=["tfidf"])
    assert evaluation.out_dir is None and not (tmp_path / "eval").exists()
    table = evaluation.to_pandas()
    assert len(table) == len(evaluation.table) >= 2 and "tfidf" in set(table["baseline"])
    assert (
        "tailsplit evaluation" in evaluation._repr_html_() and "(0." not in evaluation._repr_html_()
    )  # intervals as [a, b]
    shown = evaluation._repr_html_()  # as the report prints it: its headers, percent and points
    assert "relative error increase" in shown and "test [95% CI]" in shown and "test_std" not in shown
    assert "difference_ci" not in shown and "tfidf (accuracy)" in shown

    command = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(length.out_dir),
            str(random.out_dir),
            "--baseline",
            "tfidf",
            "--out",
            str(tmp_path / "cli" / "ev"),
        ],
    )
    assert command.exit_code == 0, command.output
    written = evaluation.write(tmp_path / "python" / "ev")  # one name: the table's label is the folder's
    assert written.out_dir == tmp_path / "python" / "ev" and "evaluation.json" in written.outputs
    for name in ("evaluation.json", "table.csv", "table.tex"):
        assert_same_output(tmp_path / "python" / "ev" / name, tmp_path / "cli" / "ev" / name)
    # runs held in memory evaluate as their folders do (tailsplit writes each once into its cache)
    held = [tailsplit.split(data, "length", **fields), tailsplit.split(data, "random", seed=1, **fields)]
    in_memory = tailsplit.evaluate(held, baselines=["tfidf"]).to_pandas()
    columns = ["split", "baseline", "metric", "test"]
    assert in_memory[columns].equals(table[columns])
    with pytest.raises(ConfigError, match=r"baseline=.* is not an option; did you mean baselines\?"):
        tailsplit.evaluate([length], baseline="tfidf")


def test_the_overlap_audit_and_correlate_are_one_call_each(rows, tmp_path: Path) -> None:
    from tailsplit.shift.correlate import synthetic_points

    lines = ["id_acc,ood_acc,group"]
    for kind in ("I", "III"):
        x, y = synthetic_points(kind, n=30, seed=5)
        lines += [f"{a:.5f},{b:.5f},model-{kind}" for a, b in zip(x, y)]
    points = tmp_path / "points.csv"
    points.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fits = tailsplit.correlate(points, out=tmp_path / "py-fits")
    assert fits.content["groups"]["model-III"]["chosen"]["turning_point"] == pytest.approx(0.72, abs=0.03)
    command = CliRunner().invoke(app, ["correlate", str(points), "--out", str(tmp_path / "cli-fits")])
    assert command.exit_code == 0, command.output
    for name in ("correlate.json", "report.md"):
        assert_same_output(tmp_path / "py-fits" / name, tmp_path / "cli-fits" / name)
    assert (
        not (tmp_path / "nothing").exists() and tailsplit.correlate(points).content["groups"] == fits.content["groups"]
    )
    later = tailsplit.correlate(points).write(tmp_path / "later-fits")  # written after, the same bytes
    assert later.out_dir == tmp_path / "later-fits"
    for name in ("correlate.json", "report.md", "report.html"):
        assert_same_output(tmp_path / "later-fits" / name, tmp_path / "cli-fits" / name)
    with pytest.raises(ConfigError, match="is not empty|exists|overwrite"):
        tailsplit.correlate(points).write(tmp_path / "later-fits")
    table = fits.to_pandas().set_index("name")
    assert sorted(table.index) == ["model-I", "model-III"] and "tailsplit correlate" in fits._repr_html_()

    test, corpus = tmp_path / "test.jsonl", tmp_path / "corpus.jsonl"
    test.write_text("".join(json.dumps(r) + "\n" for r in rows[:40]), encoding="utf-8")
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows[20:]), encoding="utf-8")  # 20 test rows copied
    audit = tailsplit.audit_overlap(
        test, corpus=[corpus], text="hypothesis", corpus_field="hypothesis", out=tmp_path / "python" / "audit"
    )
    assert audit.content["examples"] == 40 and audit.content["verbatim"] >= 20
    flags = ["--test", str(test), "--corpus", str(corpus), "--text", "hypothesis", "--corpus-field", "hypothesis"]
    command = CliRunner().invoke(app, ["overlap", *flags, "--out", str(tmp_path / "cli" / "audit")])
    assert command.exit_code == 0, command.output
    for path in sorted((tmp_path / "cli" / "audit").rglob("*")):
        name = path.relative_to(tmp_path / "cli" / "audit")
        if path.is_file() and path.name != "manifest.json":
            assert_same_output(tmp_path / "python" / "audit" / name, path)
    assert audit.to_pandas().loc[0, "examples"] == 40 and audit.to_dict()["clean"] == audit.content["clean"]
    with pytest.raises(ConfigError, match=r"corpus_fields=.* is not an option; did you mean corpus_field,"):
        tailsplit.audit_overlap(test, corpus=[corpus], corpus_fields="hypothesis")


def test_the_exports_are_one_call_each_and_write_what_the_command_line_writes(rows, tmp_path: Path) -> None:
    pytest.importorskip("datasets")
    fields = dict(text="hypothesis", context="premise", label="label", template="snli", backend="fake", analyze=False)
    written = tailsplit.likelihood_split(rows, **fields).write(tmp_path / "snli-ll")
    tailsplit.export_lm_eval(written, tmp_path / "py-task", task_name="snli_ll")
    command = CliRunner().invoke(
        app, ["export", "lm-eval", str(written.out_dir), "--task-name", "snli_ll", "--out", str(tmp_path / "cli-task")]
    )
    assert command.exit_code == 0, command.output
    for path in sorted((tmp_path / "cli-task").iterdir()):
        if path.name != "manifest.json":  # the README's lm_eval command names the folder
            ours = (tmp_path / "py-task" / path.name).read_text(encoding="utf-8").replace("py-task", "cli-task")
            assert ours == path.read_text(encoding="utf-8"), path.name
    manifest = tailsplit.export_hf(written.out_dir, tmp_path / "python" / "hf", license="cc-by-sa-4.0")
    assert manifest.content["license"] == "cc-by-sa-4.0" and (tmp_path / "python" / "hf" / "README.md").is_file()
    shown = manifest.to_pandas()  # what a user checks: rows per part, the label's feature, the licence
    assert shown["part"].tolist() == ["train", "validation", "test"] and shown["rows"].sum() == len(rows)
    assert set(shown["licence"]) == {"cc-by-sa-4.0"} and set(shown["label"]) == {"label"}
    assert "sha256" not in manifest._repr_html_()
    hf_flags = [str(written.out_dir), "--license", "cc-by-sa-4.0", "--out", str(tmp_path / "cli" / "hf")]
    command = CliRunner().invoke(app, ["export", "hf", *hf_flags])
    assert command.exit_code == 0, command.output
    for path in sorted((tmp_path / "cli" / "hf").rglob("*")):
        name = path.relative_to(tmp_path / "cli" / "hf")
        if path.is_file() and path.name != "manifest.json":
            assert_same_output(tmp_path / "python" / "hf" / name, path)

    # A run held in memory is exported as its written folder is: tailsplit writes it once into its cache.
    import datasets

    held = tailsplit.split(rows, "random", text="hypothesis", analyze=False)
    tailsplit.export_hf(held, tmp_path / "held-hf")
    shown = tailsplit.split(rows, "random", text="hypothesis", analyze=False).write(tmp_path / "random")
    tailsplit.export_hf(shown, tmp_path / "shown-hf")
    ours, theirs = (
        datasets.load_from_disk(str(tmp_path / "held-hf")),
        datasets.load_from_disk(str(tmp_path / "shown-hf")),
    )
    assert set(ours) == set(theirs) and all(ours[k].to_pandas().equals(theirs[k].to_pandas()) for k in theirs)
    assert (tmp_path / "held-hf" / "README.md").read_text() == (tmp_path / "shown-hf" / "README.md").read_text()
    (folder,) = (Path(os.environ["TAILSPLIT_CACHE_DIR"]) / "held-splits").iterdir()
    written = (folder / "manifest.json").stat().st_mtime_ns
    tailsplit.export_lm_eval(held, tmp_path / "held-task")  # the same folder again, not rewritten
    assert (folder / "manifest.json").stat().st_mtime_ns == written and folder.name.startswith("random-")


def test_findings_table_each_commands_main_result() -> None:
    from tailsplit.pipeline.curve import CurveResult
    from tailsplit.pipeline.ood_rank import OodRankResult
    from tailsplit.pipeline.similarity import SimilarityResult

    similarity = SimilarityResult(
        {
            "names": ["a", "b", "c"],
            "centroid_similarity": [[100, 90, 80], [90, 100, 70], [80, 70, 100]],
            "mmd": {"mmd2": [[0, 0.1, 0.2], [0.1, 0, 0.3], [0.2, 0.3, 0]], "p_value": [[1, 0.5, 0.01]] * 3},
        },
    )
    assert [(r["a"], r["b"], r["centroid_similarity"]) for r in similarity.rows()] == [
        ("a", "b", 90),
        ("a", "c", 80),
        ("b", "c", 70),
    ]
    ranked = OodRankResult({"decisions": [{"name": "anli", "kept": True}, {"name": "snli", "kept": False}]})
    assert ranked.to_pandas()["kept"].tolist() == [True, False]
    points = CurveResult({"points": [{"step": 1, "id_acc": 0.5}], "groups": {}})
    assert (
        points.rows() == [{"step": 1, "id_acc": 0.5}]
        and "<script>" not in OodRankResult({"decisions": [{"name": "<script>"}]})._repr_html_()
    )


def test_a_call_prints_nothing_and_leaves_the_process_as_it_found_it(rows, capsys) -> None:
    import logging
    import random as random_module

    import numpy as np

    before = (
        list(logging.getLogger().handlers),
        list(logging.getLogger("tailsplit").handlers),
        np.random.get_state()[1].copy(),
        random_module.getstate(),
    )
    result = tailsplit.likelihood_split(rows, text="hypothesis", label="label", backend="fake", balance_labels=True)
    tailsplit.split(rows, "random", text="hypothesis", seed=4)
    after = (
        list(logging.getLogger().handlers),
        list(logging.getLogger("tailsplit").handlers),
        np.random.get_state()[1],
        random_module.getstate(),
    )
    assert before[:2] == after[:2] and np.array_equal(before[2], after[2]) and before[3] == after[3]
    assert capsys.readouterr().out == "" and result.out_dir is None


@pytest.mark.model
def test_similarity_is_one_call_whose_folder_equals_the_command_lines(rows, tmp_path: Path, tiny_encoder) -> None:
    pytest.importorskip("sentence_transformers")
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows[:60]), encoding="utf-8")
    second.write_text("".join(json.dumps(r) + "\n" for r in rows[60:]), encoding="utf-8")
    datasets = [f"a={first}@hypothesis", f"b={second}@premise"]
    options = dict(encoder=str(tiny_encoder), permutations=50)
    found = tailsplit.similarity(datasets, **options, out=tmp_path / "python" / "shift")
    pairs = found.to_pandas()
    assert pairs[["a", "b"]].values.tolist() == [["a", "b"]] and 0 <= pairs.loc[0, "p_value"] <= 1
    flags = ["--encoder", str(tiny_encoder), "--permutations", "50"]
    command = CliRunner().invoke(app, ["similarity", *datasets, *flags, "--out", str(tmp_path / "cli" / "shift")])
    assert command.exit_code == 0, command.output
    for name in ("similarity.json", "report.md"):
        assert_same_output(tmp_path / "python" / "shift" / name, tmp_path / "cli" / "shift" / name)


def test_a_likelihood_split_writes_what_tailsplit_run_writes(rows, tmp_path: Path) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    flags = ["--text", "hypothesis", "--context", "premise", "--label", "label", "--template", "snli"]
    flags += ["--balance-labels", "--backend", "fake", "--no-analyze"]
    command = CliRunner().invoke(app, ["run", str(data), *flags, "--out", str(tmp_path / "cli" / "ll")])
    assert command.exit_code == 0, command.output
    tailsplit.likelihood_split(
        data, text="hypothesis", context="premise", label="label", template="snli", balance_labels=True,
        backend="fake", analyze=False, out=tmp_path / "python" / "ll",
    )  # fmt: skip
    for name in ("train.jsonl", "dev.jsonl", "test.jsonl", "scores.parquet", "summary.md"):
        assert_same_output(tmp_path / "python" / "ll" / name, tmp_path / "cli" / "ll" / name)


def test_score_is_one_call_whose_file_is_the_command_lines(rows, tmp_path: Path) -> None:
    import pyarrow.parquet as pq
    from helpers import write_jsonl

    fields = dict(text="hypothesis", context="premise", label="label", template="snli", backend="fake")
    result = tailsplit.score(rows, **fields)
    frame = result.to_pandas()
    assert list(frame.columns) == ["id", "text", "logprob_sum", "n_tokens", "logprob_mean", "truncated"]
    assert len(frame) == ROWS and frame["logprob_sum"].lt(0).all() and result.path is None
    assert repr(result).startswith(f"ScoreResult(n={ROWS}, model=") and f"{ROWS} examples" in result._repr_html_()

    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    written = tailsplit.score(data, out=tmp_path / "py.parquet", **fields)
    assert written.path == tmp_path / "py.parquet"
    args = ["score", str(data), "--text", "hypothesis", "--context", "premise", "--label", "label", "--template", "snli",
            "--backend", "fake", "--out", str(tmp_path / "cli.parquet")]  # fmt: skip
    command = CliRunner().invoke(app, args)
    assert command.exit_code == 0, command.output
    ours, theirs = pq.read_table(tmp_path / "py.parquet"), pq.read_table(tmp_path / "cli.parquet")
    assert ours.equals(theirs)  # every column, every row

    def meta(table) -> dict:  # the score file's record, less the command and the timings of this call
        record = json.loads(table.schema.metadata[b"tailsplit"])
        return {k: v for k, v in record.items() if k not in ("command", "scoring")}

    assert meta(ours) == meta(theirs) and json.loads(ours.schema.metadata[b"tailsplit"])["command"] == []
    again = tailsplit.split(
        data, "likelihood", scores=written.path, text="hypothesis", context="premise", label="label"
    )
    assert len(again.to_pandas()) == ROWS
    with pytest.raises(ConfigError, match=r"^dev_size= does not apply to score"):
        tailsplit.score(rows, dev_size=10, **fields)
    with pytest.raises(ConfigError, match=r"is Parquet; name it 'scores.parquet'"):
        tailsplit.score(rows, out=tmp_path / "scores.csv", **fields)
    assert not (tmp_path / "scores.csv").exists()
    held = tailsplit.score(rows, cache_dir=str(tmp_path / "cache"), **fields)
    with pytest.raises(ConfigError, match="lies inside tailsplit's cache"):
        held.write(tmp_path / "cache" / "scores.parquet")
    assert not (tmp_path / "cache" / "scores.parquet").exists()


def test_split_takes_a_splitter_object_with_its_parameters_on_it() -> None:
    from tailsplit.errors import ConfigError
    from tailsplit.splits import LengthSplitter, RandomSplitter

    rows = [{"id": str(i), "hypothesis": f"h {i} " + "x " * (i % 7), "label": "ab"[i % 2]} for i in range(40)]
    typed = tailsplit.split(rows, RandomSplitter(seed=2, dev_size=5, test_size=5), text="hypothesis")
    named = tailsplit.split(rows, "random", seed=2, dev_size=5, test_size=5, text="hypothesis")
    assert typed.split.test_idx.tolist() == named.split.test_idx.tolist()
    assert typed.manifest["splitter"] == named.manifest["splitter"]
    with pytest.raises(
        ConfigError, match=r"seed=3 is given as a keyword and by RandomSplitter; .*RandomSplitter\(seed=3\)"
    ):
        tailsplit.split(rows, RandomSplitter(seed=2), text="hypothesis", seed=3)
    balanced = tailsplit.split(
        rows, LengthSplitter(balance_labels=True, label_quota="equal"), text="hypothesis", label="label"
    )
    assert balanced.manifest["splitter"]["params"]["label_quota"] == "equal"
