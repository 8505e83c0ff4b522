"""The one-liner in a real notebook kernel (nbclient + ipykernel): a likelihood split with the
bundled model, its progress shown as a line rewritten in place (no widget library needed, no
warning), and the result displayed as HTML."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import SAMPLE

pytestmark = [pytest.mark.slow, pytest.mark.model]


def test_the_one_liner_runs_in_a_fresh_kernel_with_a_progress_line(
    model_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("TAILSPLIT_CACHE_DIR", str(model_cache))  # the kernel inherits it: the converted model
    load = (
        "import gzip, json\nimport tailsplit\n"
        f"rows = [json.loads(line) for line in gzip.open({str(SAMPLE)!r}, 'rt')][2900:2945]"
    )
    one_liner = (
        "tailsplit.likelihood_split(rows, text='hypothesis', context='premise', label='label', "
        "template='snli', balance_labels=True)"
    )
    export = f"tailsplit.export_hf(_, {str(tmp_path / 'hf')!r}, license='cc-by-sa-4.0')"  # _: the split above
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in (load, one_liner, export)])
    nbclient.NotebookClient(notebook, timeout=600, resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [out for cell in notebook.cells for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    text = "".join(out.get("text", "") for out in outputs if out.output_type == "stream")
    assert "\rscoring: " in text and "(100%)" in text and "ipywidgets" not in text and "IProgress" not in text
    # the first line, before the model loads, says what will happen
    first = text.lstrip().splitlines()[0]
    assert first == "scoring 45 examples with smollm2 (prompted)", text[:300]
    assert text.lstrip().splitlines()[1].startswith("loading the model to score "), text[:300]
    shown = [out for out in outputs if out.output_type == "execute_result"]
    assert "tailsplit RunResult" in shown[0].data["text/html"]


def test_the_gguf_conversion_shows_no_bar_of_its_own_and_gives_tqdm_back() -> None:
    gguf_utils = pytest.importorskip("transformers.modeling_gguf_pytorch_utils")
    from tailsplit.torch_state import quiet_gguf_conversion

    bar = gguf_utils.tqdm
    with quiet_gguf_conversion():
        assert gguf_utils.tqdm(range(3)).disable
    assert gguf_utils.tqdm is bar
