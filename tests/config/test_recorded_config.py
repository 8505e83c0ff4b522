"""A run's recorded configuration is read back typed (``recorded_run``): every reader asks the
typed config, so a default is stated once, in the declarations, and a recorded value of the
wrong type is refused by name; no module outside the manifest's own reads a recorded section
by string key."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tailsplit
from tailsplit.config import DataConfig, RunConfig
from tailsplit.config.recorded import recorded_run
from tailsplit.errors import ConfigError
from tailsplit.io.manifest import Manifest

SOURCE = Path(tailsplit.__file__).parent
SECTIONS = {"data", "scoring", "split", "output"}


def test_a_recorded_run_is_its_typed_config_with_declared_defaults() -> None:
    manifest = Manifest.of({"config": {"data": {"text": "hypothesis", "label": "y"}, "split": {"reverse": True}}})
    config = recorded_run(manifest)
    assert isinstance(config, RunConfig) and isinstance(config.data, DataConfig)
    assert (config.data.text, config.data.label, config.split.reverse) == ("hypothesis", "y", True)
    defaults = RunConfig()
    assert (config.scoring.backend, config.scoring.template, config.output.analysis_text, config.split.seed) == (
        defaults.scoring.backend, defaults.scoring.template, defaults.output.analysis_text, defaults.split.seed
    )  # fmt: skip


def test_a_key_of_another_version_is_left_out_and_a_wrong_type_refused() -> None:
    assert recorded_run(Manifest.of({"config": {"data": {"text": "q", "later_option": 1}}})).data.text == "q"
    with pytest.raises(ConfigError, match="label_tolerance"):
        recorded_run(Manifest.of({"config": {"split": {"label_tolerance": "wide"}}}))


def section_reads(tree: ast.AST) -> list[int]:
    """Lines reading ``<something>.config.<section>`` (a manifest's recorded section)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in SECTIONS
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "config"
    ]


def test_no_module_reads_a_recorded_section_by_key() -> None:
    allowed = {SOURCE / "io" / "manifest.py"}
    found = {
        str(path.relative_to(SOURCE)): lines
        for path in sorted(SOURCE.rglob("*.py"))
        if path not in allowed and (lines := section_reads(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert not found, f"read the typed config (tailsplit.config.recorded.recorded_run) instead: {found}"


def test_the_check_finds_a_read() -> None:
    assert section_reads(ast.parse("x = manifest.config.scoring.get('backend', 'hf')")) == [1]
