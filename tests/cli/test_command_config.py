"""``--config`` works on every command with a config class; options given on the command line
override the recipe, options left out keep its values."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app

runner = CliRunner()


def _split(tmp_path: Path, name: str, seed: int) -> str:
    rows = [
        {"id": f"e{i}", "text": f"words {i} " + ("good" if i % 2 else "bad"), "label": str(i % 2)} for i in range(120)
    ]
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    result = runner.invoke(
        app,
        [
            "split",
            str(data),
            "--label",
            "label",
            "--splitter",
            "random",
            "--seed",
            str(seed),
            "--no-analyze",
            "--out",
            str(tmp_path / name),
        ],
    )
    assert result.exit_code == 0, result.output
    return str(tmp_path / name)


def test_evaluate_reads_its_recipe_and_the_command_line_overrides_it(tmp_path: Path) -> None:
    folder = _split(tmp_path, "random-0", 0)
    recipe = tmp_path / "evaluate.toml"
    recipe.write_text(
        f'[evaluate]\nsplit_dirs = ["{folder}"]\nbaselines = ["tfidf-text"]\nseed = 3\n'
        f'out = "{tmp_path / "from-recipe"}"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["evaluate", "--config", str(recipe)])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "from-recipe" / "manifest.json").read_text())
    assert manifest["config"]["baselines"] == ["tfidf-text"] and manifest["config"]["seed"] == 3
    override = runner.invoke(
        app, ["evaluate", "--config", str(recipe), "--baseline", "tfidf", "--out", str(tmp_path / "given")]
    )
    assert override.exit_code == 0, override.output
    manifest = json.loads((tmp_path / "given" / "manifest.json").read_text())
    assert manifest["config"]["baselines"] == ["tfidf"] and manifest["config"]["seed"] == 3  # seed kept


def test_overlap_and_correlate_take_a_recipe(tmp_path: Path) -> None:
    test = write_jsonl(
        tmp_path / "test.jsonl",
        [{"id": "a", "text": "the cat sat on the mat"}, {"id": "b", "text": "nothing like it at all"}],
    )
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat today\nsomething else\n", encoding="utf-8")
    recipe = tmp_path / "overlap.toml"
    recipe.write_text(
        f'test = ["{test}"]\ncorpus = ["{corpus}"]\nngram_orders = [3]\ntop_quantile = 0.5\n'
        f'index_dir = "{tmp_path / "index"}"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["overlap", "--config", str(recipe), "--out", str(tmp_path / "audit")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "audit" / "manifest.json").read_text())
    assert manifest["config"]["ngram_orders"] == [3] and manifest["overlap"] == 1
    points = tmp_path / "points.csv"
    points.write_text(
        "id_acc,ood_acc\n" + "".join(f"{0.5 + i / 100},{0.3 + i / 120}\n" for i in range(12)), encoding="utf-8"
    )
    (tmp_path / "correlate.toml").write_text(f'points = "{points}"\n', encoding="utf-8")
    fitted = runner.invoke(app, ["correlate", "--config", str(tmp_path / "correlate.toml")])
    assert fitted.exit_code == 0 and "Type" in fitted.output


def test_a_recipe_with_an_unknown_key_or_a_wrong_type_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('split_dirs = ["x"]\nbaseline = ["tfidf"]\n', encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "--config", str(tmp_path / "bad.toml")])
    assert result.exit_code == 2 and "has key 'baseline'; tailsplit evaluate takes" in result.output
    (tmp_path / "typed.toml").write_text('window = "ten"\n', encoding="utf-8")
    result = runner.invoke(app, ["overlap", "--config", str(tmp_path / "typed.toml")])
    assert result.exit_code == 2 and "window = 'ten' is not of type" in result.output
