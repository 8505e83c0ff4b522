"""The manifest is a type read and written in one module (``tailsplit.io.manifest``): its keys
are properties, a key of the wrong JSON type is refused where the file is read, and no other
module reads a manifest by string key."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from helpers import nli_pairs, write_jsonl
from typer.testing import CliRunner

import tailsplit
from tailsplit.cli import app
from tailsplit.errors import InputError
from tailsplit.io.manifest import Manifest, read_manifest_file

SRC_DIR = Path(tailsplit.__file__).parent


def test_the_keys_read_as_typed_properties() -> None:
    m = Manifest.from_record(
        {
            "tailsplit_version": "1.0",
            "command": ["tailsplit", "split", "d.jsonl"],
            "config": {"data": {"text": "q", "label": "y"}, "split": {"splitter": "random"}, "seed": 4},
            "inputs": [{"path": "d.jsonl", "sha256": "ab", "rows": 3}, {"in_memory": "pandas", "content_sha256": "cd"}],
            "outputs": {"train.jsonl": "11"},
            "splitter": {"name": "random", "params": {"seed": 0}, "details": {}},
            "seed": 0,
            "modified_files": ["dev.jsonl"],
        }
    )
    assert m.config.data == {"text": "q", "label": "y"} and m.config.scoring == {} and m.config.seed == 4
    assert [i.identity for i in m.inputs] == ["ab", "cd"] and m.inputs[0].rows == 3
    assert m.splitter.name == "random" and m.splitter.params == {"seed": 0} and m.seed == 0
    assert m.command == ["tailsplit", "split", "d.jsonl"] and m.outputs == {"train.jsonl": "11"}
    assert m.with_modified(["dev.jsonl", "test.jsonl"]).modified_files == ["dev.jsonl", "test.jsonl"]
    assert m.with_output(out="x").config.values == m.config.values  # no output section: left as it is
    empty = Manifest({})
    assert (empty.outputs, empty.model, empty.splitter.name, empty.config.data, empty.method) == (
        {},
        None,
        "?",
        {},
        None,
    )


@pytest.mark.parametrize(
    ("key", "value"), [("outputs", ["train.jsonl"]), ("config", "data"), ("seed", True), ("inputs", {"a": 1})]
)
def test_a_key_of_the_wrong_type_is_refused_naming_the_file_and_key(tmp_path: Path, key: str, value: object) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"tailsplit_version": "1", key: value}), encoding="utf-8")
    with pytest.raises(InputError, match=rf"manifest\.json.*{key!r} of the wrong type"):
        read_manifest_file(path)


def test_a_split_folder_with_a_mangled_manifest_is_refused_in_one_line(tmp_path: Path) -> None:
    data, out = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30)), tmp_path / "split"
    runner = CliRunner()
    made = runner.invoke(app, ["split", str(data), "--text", "hypothesis", "--splitter", "random", "--out", str(out)])
    assert made.exit_code == 0, made.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    (out / "manifest.json").write_text(json.dumps({**manifest, "outputs": list(manifest["outputs"])}), encoding="utf-8")
    result = runner.invoke(app, ["analyze", str(out), "--null-splits", "10"])
    assert result.exit_code == 2 and "'outputs' of the wrong type" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("section", "key", "value", "command", "said"),
    [
        ("splitter", "params", "abc", ["export", "hf"], "has 'splitter.params' of the wrong type (str)"),
        ("config", "data", ["x"], ["analyze"], "has 'config.data' of the wrong type (list)"),
        ("config.data", "text", 5, ["analyze"], "manifest.json [data] text = 5 is not of type text"),
    ],
)
def test_nested_manifest_sections_are_type_checked_before_use(
    tmp_path: Path, section: str, key: str, value: object, command: list[str], said: str
) -> None:
    data, out = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30)), tmp_path / "split"
    runner = CliRunner()
    made = runner.invoke(app, ["split", str(data), "--text", "hypothesis", "--splitter", "random", "--out", str(out)])
    assert made.exit_code == 0, made.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    target = manifest
    for step in section.split("."):
        target = target[step]
    target[key] = value
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    extra = ["--out", str(tmp_path / "hf")] if command[0] == "export" else ["--null-splits", "10", "--no-syntax"]
    result = runner.invoke(app, [*command, str(out), *extra])
    assert result.exit_code == 2 and said in result.output and "Traceback" not in result.output, result.output


def _string_key_reads(tree: ast.AST) -> list[int]:
    """Lines reading a manifest by string key: ``manifest["k"]`` (not an assignment) or ``manifest.get("k")``."""

    def is_manifest(node: ast.AST) -> bool:
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        return "manifest" in name

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and is_manifest(node.value):
            if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
                found.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            if is_manifest(node.func.value):
                found.append(node.lineno)
    return found


def test_no_module_but_the_manifest_module_reads_a_manifest_by_string_key() -> None:
    offenders = {
        str(path.relative_to(SRC_DIR)): lines
        for path in sorted(SRC_DIR.rglob("*.py"))
        if path.name != "manifest.py" or path.parent.name != "io"
        for lines in [_string_key_reads(ast.parse(path.read_text(encoding="utf-8")))]
        if lines
    }
    assert offenders == {}


def test_the_checker_finds_a_string_key_read() -> None:
    assert _string_key_reads(
        ast.parse('x = manifest["outputs"]\ny = self.manifest.get("seed")\nmanifest["a"] = 1')
    ) == [1, 2]
