"""MkDocs hooks: pages whose content is generated at build time, so it cannot drift.

- The command-line reference, from the declarations the CLI itself is built from (each
  command's options come from its config fields): the same as ``tailsplit COMMAND --help-all``.
- The list of benchmark results files, each with the command, date and commit that wrote it
  (as the file records them).
- A table whose numbers no results file holds yet is marked ``<!-- by hand: COMMAND -->`` and
  shown under a note that says so, with the command that would measure it again.
- Every measured number of every page: pages hold ``{{ FILE:PATH | FORMAT }}`` fields that
  read a value from ``benchmarks/results/FILE.json`` (or ``.csv``) at build time, and
  ``{{ source:FILE }}`` for the line that says which command wrote the file and when. A field
  that names a missing file, key or row fails the build. In the Markdown a field is kept
  filled, ``<!--{{ FILE:PATH | FORMAT }}-->VALUE<!--/-->``, so a page read where no build runs
  (on GitHub) shows its numbers; ``python docs/hooks.py --write`` fills every page again from
  the results files (``make docs-numbers``), and a test fails while a page is not up to date.

A PATH is dotted keys; a key may be followed by ``[3]`` (an index), ``[*]`` (every element, or every
value of a mapping: the field then shows the range, lowest to highest) or ``[key=value]`` filters, one or more in a
row (the one element whose fields have these values). FORMAT is a Python format specification (``.2f``, ``,.0f``,
``+.1f``), optionally after ``pct:`` (the value times 100, for shares shown in per cent
without a sign); ``len`` shows how many elements a list has. ``words:KIND`` turns a result
into the words a sentence around it needs, so no fixed prose stands beside a number that says
otherwise: ``words:interval`` (a ``[low, high]`` interval: "an interval clear of zero" or "an
interval that includes zero"), ``words:type`` (a BOSS type: "Type II", "none of Types I–III",
"undecided"), ``words:decision`` (an ``ood-rank`` decision: "kept (rank 1)", "rejected",
"undecided"), ``words:trend`` (a slope: "rises", "falls")."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from tailsplit.render import markdown_code, markdown_text

MARKER = "<!-- command-line reference -->"
RESULTS_MARKER = "<!-- benchmark results -->"
RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
BY_HAND = re.compile(r"^<!-- by hand: (.+?) -->$", re.MULTILINE)
FIELD = re.compile(r"\{\{\s*([^{}|]+?)\s*(?:\|\s*([^{}]*?)\s*)?\}\}")
# A field as a page keeps it: the field in a comment, then its value as last written.
FILLED = re.compile(r"<!--(\{\{[^{}]*\}\})-->(.*?)<!--/-->")
DOCS = Path(__file__).resolve().parent
STEPS = re.compile(r"(?:[^.\[\]]+|\[[^\]]*\])+")  # dot-separated steps; a dot inside [...] is kept
STEP = re.compile(r"([^.\[\]]*)((?:\[[^\]]*\])*)")


class ResultsFieldError(ValueError):
    """A field of a page that does not resolve to a value in a results file."""


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if MARKER in markdown:
        from tailsplit.cli.reference import cli_reference_markdown

        markdown = markdown.replace(MARKER, cli_reference_markdown())
    if RESULTS_MARKER in markdown:
        markdown = markdown.replace(RESULTS_MARKER, results_table())
    markdown = BY_HAND.sub(by_hand_note, markdown)
    return fill_results_fields(markdown, RESULTS, where=getattr(getattr(page, "file", None), "src_path", "page"))


def by_hand_note(match: re.Match[str]) -> str:
    """The visible note above a table whose numbers no results file holds yet."""
    return (
        '!!! note "Recorded by hand"\n'
        "    These numbers were copied from a run made before the benchmarks kept results files;\n"
        f"    no results file holds them yet. Rerun: `{match.group(1)}`.\n"
    )


def fill_results_fields(markdown: str, folder: Path, where: str = "page") -> str:
    """``markdown`` with every ``{{ FILE:PATH | FORMAT }}`` field (kept filled or bare)
    replaced by its value as the results files give it now."""
    return FIELD.sub(_filler(folder, where), FILLED.sub(lambda m: m.group(1), markdown))


def written_fields(markdown: str, folder: Path, where: str = "page") -> str:
    """``markdown`` with every field kept filled with its value as the results files give it
    now (``<!--{{ ... }}-->VALUE<!--/-->``): what a page holds in the repository."""
    fill = _filler(folder, where)
    return FIELD.sub(lambda m: f"<!--{m.group(0)}-->{fill(m)}<!--/-->", FILLED.sub(lambda m: m.group(1), markdown))


def write_pages(docs: Path = DOCS) -> list[Path]:
    """Every page of ``docs`` filled again from the results files; the pages that changed."""
    changed = []
    for page in sorted(docs.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        written = written_fields(text, RESULTS, where=str(page.relative_to(docs)))
        if written != text:
            page.write_text(written, encoding="utf-8")
            changed.append(page)
    return changed


def _filler(folder: Path, where: str) -> Any:
    """The value of one matched field (a missing file, key or row raised, naming the page)."""
    cache: dict[str, Any] = {}

    def fill(match: re.Match[str]) -> str:
        target, spec = match.group(1), match.group(2) or ""
        try:
            name, _, path = target.partition(":")
            name = name.strip()
            if name == "source":
                return source_line(path.strip(), folder, cache)
            if not path:
                raise ResultsFieldError("a field reads FILE:PATH")
            return render_value(lookup(load_results(name, folder, cache), path.strip()), spec)
        except (ResultsFieldError, KeyError, IndexError, TypeError, ValueError) as error:
            raise ResultsFieldError(f"{where}: {{{{ {target} }}}}: {error}") from None

    return fill


def results_file(name: str, folder: Path) -> Path:
    """The results file ``name`` names: ``name.json``, else ``name.csv``."""
    for path in (folder / f"{name}.json", folder / f"{name}.csv"):
        if path.is_file():
            return path
    raise ResultsFieldError(f"no results file {name}.json or {name}.csv")


def load_results(name: str, folder: Path, cache: dict[str, Any]) -> Any:
    """The parsed results file ``name`` (JSON, or a CSV as a list of rows)."""
    if name not in cache:
        path = results_file(name, folder)
        if path.suffix == ".json":
            cache[name] = json.loads(path.read_text(encoding="utf-8"))
        else:
            with path.open(encoding="utf-8", newline="") as handle:
                cache[name] = list(csv.DictReader(handle))
    return cache[name]


def lookup(value: Any, path: str) -> Any:
    """The value at ``path`` (see the module's docstring for the steps a path may take)."""
    steps = STEPS.findall(path)
    if ".".join(steps) != path:
        raise ResultsFieldError(f"cannot read the path {path!r}")
    for position, step in enumerate(steps):
        match = STEP.fullmatch(step)
        if match is None:
            raise ResultsFieldError(f"cannot read the step {step!r}")
        if match.group(1):
            value = value[match.group(1)]
        rows = None  # the rows that the step's [key=value] filters have kept so far
        for selector in re.findall(r"\[([^\]]*)\]", match.group(2)):
            if "=" in selector:
                key, wanted = selector.split("=", 1)
                rows = [item for item in (value if rows is None else rows) if str(item.get(key)) == wanted]
                continue
            if rows is not None:
                value, rows = one_row(rows, match.group(2)), None
            if selector == "*":
                rest = ".".join(steps[position + 1 :])
                items = value.values() if isinstance(value, dict) else value
                return [lookup(item, rest) if rest else item for item in items]
            value = value[int(selector)]
        if rows is not None:
            value = one_row(rows, match.group(2))
    return value


def one_row(rows: list[Any], selectors: str) -> Any:
    if len(rows) != 1:
        raise ResultsFieldError(f"{len(rows)} rows match {selectors}")
    return rows[0]


def render_value(value: Any, spec: str) -> str:
    """``value`` formatted by ``spec``; a list shows its range (lowest–highest), or with ``len``
    its length."""
    if spec == "len":
        return str(len(value))
    if spec.startswith("words:"):
        return result_words(value, spec.removeprefix("words:"))
    if isinstance(value, list):
        low, high = render_value(min(value), spec), render_value(max(value), spec)
        return low if low == high else f"{low}–{high}"
    if value is None or value == "":
        raise ResultsFieldError("the value is empty")
    percent = spec.startswith("pct:")
    spec = spec.removeprefix("pct:")
    if isinstance(value, str) and not (percent or spec):
        return markdown_text(value)  # text from a results file shows literally
    if isinstance(value, str):
        value = float(value)  # a CSV cell
    return format(100 * value if percent else value, spec)


def result_words(value: Any, kind: str) -> str:
    """The words for a result (see the module's docstring for the kinds)."""
    if kind == "interval":
        low, high = value
        return "an interval that includes zero" if low <= 0 <= high else "an interval clear of zero"
    if kind == "type":
        return {"none": "none of Types I–III", "undecided": "undecided", None: "not fitted"}.get(value, f"Type {value}")
    if kind == "decision":
        if value.get("undecided"):
            return "undecided"
        return f"kept (rank {value['rank']})" if value.get("kept") else "rejected"
    if kind == "trend":
        return "rises" if value > 0 else "falls" if value < 0 else "stays flat"
    raise ResultsFieldError(f"words:{kind} is not a kind of words; use interval, type, decision or trend")


def source_line(name: str, folder: Path, cache: dict[str, Any]) -> str:
    """Which command wrote results file ``name``, and when (as its provenance records)."""
    data = load_results(name, folder, cache)
    made = data.get("provenance") if isinstance(data, dict) else None
    where = markdown_code(f"benchmarks/results/{results_file(name, folder).name}")
    if not made:
        return f"From {where} (its command and date were not recorded)."
    commit = f", commit {made['commit']}" if made.get("commit") else ""
    script = script_of(made["command"])
    by = f"{markdown_code(script)} as {markdown_code(made['command'])}" if script else markdown_code(made["command"])
    return (
        f"From {where}, written by {by} on {markdown_text(made['date'])} "
        f"(tailsplit {markdown_text(made['tailsplit'])}{markdown_text(commit)})."
    )


def script_of(command: str) -> str | None:
    """The benchmark script a results file's command ran (``python -m benchmarks.speed.x`` →
    ``benchmarks/speed/x.py``), if it names one that exists."""
    match = re.match(r"python3? -m (benchmarks(?:\.\w+)+)", command)
    if not match:
        return None
    path = f"{match.group(1).replace('.', '/')}.py"
    return path if (RESULTS.parents[1] / path).is_file() else None


def results_table() -> str:
    """One row per file in ``benchmarks/results``: what it holds and how it was made."""
    rows = ["| file | holds | command | date | commit |", "|---|---|---|---|---|"]
    cache: dict[str, Any] = {}
    for path in sorted(p for p in RESULTS.iterdir() if p.suffix in (".json", ".csv")):
        data = load_results(path.stem, RESULTS, cache)
        if isinstance(data, dict):
            made, holds = data.get("provenance") or {}, ", ".join(k for k in data if k != "provenance")
        else:  # a CSV's rows
            made, holds = {}, f"{len(data)} rows: {', '.join(data[0]) if data else ''}"
        command = markdown_code(made["command"]) if made.get("command") else "not recorded"
        rows.append(
            f"| {markdown_code(path.name)} | {markdown_text(holds)} | {command} | "
            f"{markdown_text(made.get('date') or 'not recorded')} | {markdown_text(made.get('commit') or '')} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python docs/hooks.py --write  (fills every page's results fields again)")
    for page in write_pages():
        print(f"filled {page.relative_to(DOCS.parent)}")
