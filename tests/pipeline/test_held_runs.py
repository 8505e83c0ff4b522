"""A run held in memory is read from the cache folder that holds it only when what the folder
holds is that run — its configuration, inputs, part ids and scores — never by its name: a copy
of another split, or a link to one, under the run's name is left untouched and the run is
written beside it; and no command's output may go under the cache at all."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import nli_pairs, split_args, write_jsonl
from hostile import refused

import tailsplit
from tailsplit.cache import HELD_SPLITS
from tailsplit.pipeline.runs.result import held_folder


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[tailsplit.RunResult, Path]:
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(tmp_path / "cache"))
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(60))
    run = tailsplit.split(data, "random", text="hypothesis", label="label", seed=1, analyze=False)
    tailsplit.split(data, "random", text="hypothesis", label="label", seed=7, analyze=False, out=tmp_path / "other")
    return run, tmp_path / "other"


def ids_of_test(folder: Path) -> list[str]:
    return [line.split('"id": "')[1].split('"')[0] for line in (folder / "test.jsonl").read_text().splitlines()]


def test_a_copy_of_another_split_under_the_runs_name_is_not_read_as_the_run(
    runs: tuple[tailsplit.RunResult, Path],
) -> None:
    run, other = runs
    folder = held_folder(run)
    expected = [run.dataset.ids[i] for i in run.split.test_idx]
    assert ids_of_test(folder) == expected
    shutil.rmtree(folder)
    shutil.copytree(other, folder)
    used = held_folder(run)
    assert used != folder and ids_of_test(used) == expected
    assert ids_of_test(folder) == ids_of_test(other)  # the copy is left as it was
    table = tailsplit.evaluate([run], baselines=["tfidf"]).to_pandas()
    assert set(table["folder"]) == {used.name}


def test_a_link_to_another_split_under_the_runs_name_is_not_followed(runs: tuple[tailsplit.RunResult, Path]) -> None:
    run, other = runs
    folder = held_folder(run)
    shutil.rmtree(folder)
    os.symlink(other.resolve(), folder)
    used = held_folder(run)
    assert used != folder and not used.is_symlink()
    assert ids_of_test(used) == [run.dataset.ids[i] for i in run.split.test_idx]
    assert folder.is_symlink() and (other / "manifest.json").is_file()  # neither the link nor its target touched


def test_a_held_folder_that_holds_the_run_is_reused(runs: tuple[tailsplit.RunResult, Path]) -> None:
    run, _ = runs
    folder = held_folder(run)
    stamp = (folder / "manifest.json").stat().st_mtime_ns
    assert held_folder(run) == folder and (folder / "manifest.json").stat().st_mtime_ns == stamp


def test_no_output_goes_under_the_cache_not_even_at_a_held_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(cache))
    data = write_jsonl(tmp_path / "d.jsonl", nli_pairs(30))
    out = cache / HELD_SPLITS / "random-0123456789abcdef"
    refused(split_args(data, out), "lies inside tailsplit's cache")
    assert not out.exists()
    with pytest.raises(tailsplit.ConfigError, match="lies inside tailsplit's cache"):
        tailsplit.split(data, "random", text="hypothesis", out=out)
