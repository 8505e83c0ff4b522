"""Messages go through tailsplit's logger: the CLI prints them (``-q`` keeps warnings only), and
a long job without a terminal logs a periodic status line."""

from __future__ import annotations

import logging

from helpers import write_jsonl
from typer.testing import CliRunner

from tailsplit.cli import app

runner = CliRunner()


def _repeating(tmp_path):
    return write_jsonl(tmp_path / "d.jsonl", [{"id": f"e{i}", "text": f"query {i % 5}"} for i in range(50)])


def test_warnings_print_and_quiet_keeps_them(tmp_path) -> None:
    data = _repeating(tmp_path)
    args = ["split", str(data), "--splitter", "random", "--no-analyze"]
    loud = runner.invoke(app, [*args, "--out", str(tmp_path / "a")])
    assert loud.exit_code == 0 and loud.output.count("warning: 50 of 50 rows") == 1
    quiet = runner.invoke(app, ["-q", *args, "--out", str(tmp_path / "b")])
    assert quiet.exit_code == 0 and "warning: 50 of 50 rows" in quiet.output


def test_status_lines_without_a_terminal(monkeypatch, caplog) -> None:
    import tailsplit.progress as progress

    monkeypatch.setattr(progress, "STATUS_EVERY_S", 0.0)
    caplog.set_level(logging.INFO, logger="tailsplit")
    logging.getLogger("tailsplit").propagate = True
    with progress.ProgressBar(True, 4, "scoring", "tokens") as advance:
        advance(1)
        advance(3)
    lines = [r.getMessage() for r in caplog.records if r.name == "tailsplit"]
    assert lines[0].startswith("scoring: 1/4 tokens (25%)") and lines[-1].startswith("scoring: 4/4 tokens (100%)")


def test_a_bar_inside_another_speaks_in_a_log_and_stays_quiet_where_drawn_live(monkeypatch, caplog) -> None:
    """A dev check's predictions inside a training bar: in a log both write status lines; on a
    terminal the inner bar stays quiet (the outer one speaks for both), and the next bar after
    the outer one is drawn again."""
    import sys

    import tailsplit.progress as progress

    monkeypatch.setattr(progress, "STATUS_EVERY_S", 0.0)
    caplog.set_level(logging.INFO, logger="tailsplit")
    logging.getLogger("tailsplit").propagate = True
    with progress.ProgressBar(True, 2, "training", "steps") as advance:
        with progress.ProgressBar(True, 5, "predicting", "examples") as inner:
            inner(5)
        advance(2)
    lines = [r.getMessage().split(":")[0] for r in caplog.records if r.name == "tailsplit"]
    assert lines == ["predicting", "training"]
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    outer = progress.ProgressBar(True, 2, "training", "steps")
    with outer as advance:
        nested = progress.ProgressBar(True, 5, "predicting", "examples")
        with nested as inner:
            inner(5)  # drawn by no second live display
        advance(2)
    assert outer._progress is not None and nested._progress is None and progress.ProgressBar.live_bars == 0
    after = progress.ProgressBar(True, 1, "predicting", "examples")
    with after as step:
        step(1)
    assert after._progress is not None and progress.ProgressBar.live_bars == 0


def test_a_bars_first_status_counts_from_the_last_line_said(monkeypatch, caplog) -> None:
    """A model that loads between an announcement and its bar takes from the bar's first
    interval: the log is never silent for the load and a whole interval after it."""
    import time

    import tailsplit.progress as progress

    monkeypatch.setattr(progress, "STATUS_EVERY_S", 0.2)
    monkeypatch.setattr(progress, "watched", lambda: False)
    caplog.set_level(logging.INFO, logger="tailsplit")
    logging.getLogger("tailsplit").propagate = True
    progress.announce(True, "loading the model")
    time.sleep(0.25)  # the load
    with progress.ProgressBar(True, 10, "embedding", "texts") as advance:
        advance(1)  # at once: 0.25 s since the last line
        advance(1)  # not again until another interval has passed
    lines = [r.getMessage() for r in caplog.records if r.name == "tailsplit"]
    assert lines == ["loading the model", lines[1]] and lines[1].startswith("embedding: 1/10 texts")


def test_messages_follow_the_current_stderr(capsys) -> None:
    from tailsplit.log import configure, logger

    configure()
    logger.warning("first")
    assert capsys.readouterr().err == "warning: first\n"
    configure(logging.WARNING)
    logger.info("hidden")
    logger.warning("shown")
    assert capsys.readouterr().err == "warning: shown\n"  # one handler, however often configured


def test_a_long_step_reports_only_inside_a_command_that_shows_progress(monkeypatch, caplog) -> None:
    import tailsplit.progress as progress

    monkeypatch.setattr(progress, "STATUS_EVERY_S", 0.0)
    caplog.set_level(logging.INFO, logger="tailsplit")
    logging.getLogger("tailsplit").propagate = True
    progress.say("unseen")  # outside a command: silent
    with progress.steps(2, "training", "steps") as advance:
        advance(2)
    with progress.shown(True):
        assert progress.showing()
        progress.say("training the encoder")
        with progress.steps(2, "training", "steps") as advance:
            advance(1)
            with progress.shown(False):  # a nested step that shows nothing
                progress.say("nested, unseen")
            advance(1)
    assert not progress.showing()
    lines = list(dict.fromkeys(r.getMessage() for r in caplog.records if r.name == "tailsplit"))
    assert lines[0] == "training the encoder" and lines[1].startswith("training: 1/2 steps (50%)"), lines
    assert lines[-1].startswith("training: 2/2 steps (100%)") and "unseen" not in " ".join(lines)
