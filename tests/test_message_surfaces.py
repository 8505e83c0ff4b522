"""Every message on the caller's surface: the layers write options as flags (``--dev-size``),
the command line prints them so, and Python calls get them as keywords (``dev_size=``). Held
over every error string the layers raise (a scan of the source), then case by case: what
each message names is the thing that is wrong (a FIFO is no missing file, Parquet bytes are no
bad UTF-8, a file in the cache's place is no "File exists")."""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import nli_pairs, split_args, write_jsonl
from hostile import ok, refused

import tailsplit
from tailsplit.config import COMMAND_CONFIGS, declared_option
from tailsplit.errors import ConfigError, InputError, keyword_text

SOURCE = Path(tailsplit.__file__).parent
# Modules whose messages only Python reads: the scikit-learn-style splitters and their reprs.
PYTHON_ONLY = {"model_selection.py"}
_KEYWORD = re.compile(r"(?<![\w\-.'/])([a-z][a-z0-9_]*)=")


def _cli_options() -> set[str]:
    return {
        f.name
        for cls in COMMAND_CONFIGS
        for f in dataclasses.fields(cls)
        if (d := declared_option(f)) is not None and d.command_line and not d.argument
    }


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            found.add(id(body[0].value))
    return found


def test_the_layers_name_options_as_flags() -> None:
    """A message text in the source that names a command-line option as a keyword
    (``dev_size=``) would reach the command line so: each is written as its flag, which Python
    callers get back as the keyword."""
    options, wrong = _cli_options(), []
    for path in sorted(SOURCE.rglob("*.py")):
        if path.name in PYTHON_ONLY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs):
                continue
            if " " not in node.value or node.value.startswith(", "):  # a word or a repr's ", name=" piece
                continue
            wrong += [
                f"{path.relative_to(SOURCE)}:{node.lineno}: {m.group(1)}= in {node.value[:60]!r}"
                for m in _KEYWORD.finditer(node.value)
                if m.group(1) in options
            ]
    assert not wrong, "\n".join(wrong)


def test_flags_become_the_keywords_python_takes() -> None:
    assert keyword_text("--label-word x=y, --no-cache, --compile, --baseline=tfidf") == (
        "label_words=x=y, use_cache=False, torch_compile=True, baselines=tfidf"
    )


def test_a_size_error_is_a_flag_on_the_command_line_and_a_keyword_in_python(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    refused([*split_args(data, tmp_path / "o"), "--dev-size", "-0.1"], "--dev-size=-0.1")
    refused([*split_args(data, tmp_path / "o"), "--test-size", "40"], "--test-size=40")
    with pytest.raises(ConfigError, match=r"^dev_size=-0\.1 "):
        tailsplit.split(data, "random", text="hypothesis", dev_size=-0.1)
    import numpy as np

    with pytest.raises(ConfigError, match=r"^dev_size=-0\.1 "):
        tailsplit.RandomSplitter(dev_size=-0.1).split(tailsplit.SplitInputs(n=10, word_lengths=np.ones(10)))


def test_the_same_split_twice_names_no_keyword_on_the_command_line(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    ok(split_args(data, tmp_path / "s"))
    message = refused(["evaluate", str(tmp_path / "s"), str(tmp_path / "s")], "the same split twice")
    assert "split_dirs" not in message


def test_writing_a_result_from_python_names_keywords(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    result = tailsplit.split(data, "random", text="hypothesis")
    with pytest.raises(ConfigError) as caught:
        result.write(data)
    assert str(caught.value).startswith("out=") and "--" not in str(caught.value)


def test_an_empty_output_path_is_named_as_given(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    refused(["split", str(data), "--text", "hypothesis", "--splitter", "random", "--out", ""], "--out='' names no path")


def test_an_unbounded_number_that_is_not_finite_reads_once(tmp_path: Path) -> None:
    test = write_jsonl(tmp_path / "t.jsonl", nli_pairs(5))
    corpus = tmp_path / "c.txt"
    corpus.write_text("a person walks\n", encoding="utf-8")
    message = refused(["overlap", "--test", str(test), "--text", "hypothesis", "--corpus", str(corpus),
                       "--threshold", "nan"], "--threshold=nan is not a finite number; give a finite number")  # fmt: skip
    assert message.count("finite number") == 2


@pytest.mark.parametrize("where", ["corpus", "candidates", "points"])
def test_a_fifo_is_named_as_a_fifo_not_as_missing(tmp_path: Path, where: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    test = write_jsonl(tmp_path / "t.jsonl", nli_pairs(5))
    args = {
        "corpus": ["overlap", "--test", str(test), "--text", "hypothesis", "--corpus", str(fifo)],
        "candidates": ["ood-rank", "--id", f"{test}@hypothesis", "--candidates", str(fifo), "--skip-training"],
        "points": ["correlate", str(fifo)],
    }[where]
    message = refused(args, "is a FIFO (named pipe)")
    assert "does not exist" not in message


def test_parquet_bytes_under_a_csv_name_are_named_as_parquet(tmp_path: Path) -> None:
    import pandas as pd

    pd.DataFrame({"hypothesis": ["a b"] * 5}).to_parquet(tmp_path / "data.csv")
    refused(["split", str(tmp_path / "data.csv"), "--text", "hypothesis", "--splitter", "random", "--out",
             str(tmp_path / "o")], "holds Parquet data", "rename it to end in .parquet")  # fmt: skip


def test_scores_without_token_counts_say_so(tmp_path: Path) -> None:
    import numpy as np

    inputs = tailsplit.SplitInputs(n=10, word_lengths=np.ones(10), logprob_sum=-np.arange(10.0), n_tokens=None)
    with pytest.raises(ConfigError, match="these scores have none"):
        tailsplit.LikelihoodSplitter(rank="logprob_mean", dev_size=2, test_size=2).split(inputs)


def test_the_group_refusal_asks_for_what_would_help(tmp_path: Path) -> None:
    import numpy as np

    groups = np.array(["g0"] * 9 + ["g1"], dtype=object)
    inputs = tailsplit.SplitInputs(n=10, word_lengths=np.ones(10), groups=groups)
    with pytest.raises(ConfigError) as caught:
        tailsplit.RandomSplitter(dev_size=1, test_size=1).split(inputs)
    assert "of at least 1 examples" not in str(caught.value)


def test_a_score_file_for_another_context_says_which_field_differs(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", [{k: v for k, v in r.items() if k != "id"} for r in nli_pairs(30)])
    ok(["score", str(data), "--text", "hypothesis", "--method", "ngram", "--out", str(tmp_path / "s.parquet")])
    refused(["split", str(data), "--text", "hypothesis", "--context", "premise", "--splitter", "likelihood",
             "--scores", str(tmp_path / "s.parquet"), "--no-analyze", "--out", str(tmp_path / "o")],
            "it was scored with --context=None, and this run reads --context='premise'")  # fmt: skip


def test_a_record_without_wsc_fields_is_named_by_file_and_row(tmp_path: Path) -> None:
    test = write_jsonl(tmp_path / "t.jsonl", nli_pairs(5))
    corpus = tmp_path / "c.txt"
    corpus.write_text("a person walks\n", encoding="utf-8")
    refused(["overlap", "--test", str(test), "--text", "hypothesis", "--query-kind", "winograd", "--corpus",
             str(corpus)], "t.jsonl: row 1:", "lacks WSC fields")  # fmt: skip


def test_a_file_where_the_cache_keeps_its_models_is_named_before_any_model_loads(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "models").write_text("not a folder\n", encoding="utf-8")
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(5))
    message = refused(["score", str(data), "--text", "hypothesis", "--cache-dir", str(cache), "--out",
                       str(tmp_path / "s.parquet")], "has a file 'models' where its models folder goes")  # fmt: skip
    assert "File exists" not in message


def test_a_write_blocked_by_a_file_names_that_file(tmp_path: Path) -> None:
    from tailsplit.io.outputs import write_failure

    (tmp_path / "models").write_text("x", encoding="utf-8")
    error = write_failure(FileExistsError(17, "File exists"), tmp_path / "models" / "abc")
    assert f"{str(tmp_path / 'models')!r} is a file, where a folder must be" in str(error)


def test_bytes_in_a_dataframe_are_named_at_their_own_row() -> None:
    import pandas as pd

    rows = [{"hypothesis": f"text {i}", "label": "a"} for i in range(10)]
    rows[5]["hypothesis"] = b"bytes"  # type: ignore[assignment]
    with pytest.raises(InputError, match=r"row 6: field 'hypothesis' is a bytes here but a str in row 1"):
        tailsplit.split(pd.DataFrame(rows), "random", text="hypothesis")


@pytest.mark.parametrize("columns", ["0", "abc", "-3", "5"])
def test_help_is_legible_whatever_columns_says(columns: str) -> None:
    env = {**os.environ, "COLUMNS": columns}
    for args in (["run", "-h"], ["-h"]):
        shown = subprocess.run(
            [sys.executable, "-m", "tailsplit.cli", *args], env=env, capture_output=True, text=True, timeout=120
        )
        assert shown.returncode == 0, shown.stderr
        assert "Usage: " in shown.stdout and "[OPTIONS]" in shown.stdout, shown.stdout[:300]


def test_an_unknown_value_suggests_the_closest_choice(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    refused(["split", str(data), "--text", "hypothesis", "--splitter", "randm"], "did you mean 'random'?",
            "use one of ['likelihood', 'random'")  # fmt: skip
    refused(["run", str(data), "--text", "hypothesis", "--template", "snil"], "did you mean 'snli'?")
    refused(["split", str(data), "--text", "hypothesis", "--splitter", "zzz"], "use one of")


def test_score_v_lists_its_options_and_the_cache_default_is_true(tmp_path: Path) -> None:
    import logging

    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    from typer.testing import CliRunner

    from tailsplit.cli import app

    result = CliRunner().invoke(
        app,
        ["score", str(data), "--text", "hypothesis", "--method", "ngram", "--out", str(tmp_path / "s.parquet"), "-v"],
    )
    logging.getLogger("tailsplit").setLevel(logging.WARNING)  # -v set it for this process
    assert result.exit_code == 0, result.output
    assert "options: paths=" in result.output and "method='ngram'" in result.output
    shown = " ".join(CliRunner().invoke(app, ["score", "-h"], env={"COLUMNS": "200"}).output.split())
    assert "$TAILSPLIT_CACHE_DIR, else ~/.cache/tailsplit" in shown


def test_log_lines_and_first_lines_keep_control_characters_inert(capsys: pytest.CaptureFixture[str]) -> None:
    import logging

    from tailsplit.log import configure, logger
    from tailsplit.progress import announce

    level, propagate = logger.level, logger.propagate
    configure()
    try:
        logger.warning("a path \x1b]0;retitled\x07 from the data")
        announce(True, "scoring with \x1b[2J a model")  # not watched here: said through the log
    finally:
        for handler in [h for h in logger.handlers if getattr(h, "_tailsplit", False)]:
            logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b]0;retitled\\x07" in err and "\\x1b[2J" in err
    assert logging.getLogger("tailsplit").level == level
