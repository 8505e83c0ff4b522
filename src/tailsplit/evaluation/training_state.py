"""A classifier's training state saved after a checkpoint and read back, so that training
continues where it stopped as if it never had: the weights, the optimiser and its schedule,
and torch's random generators (CPU and CUDA). Written atomically."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError
from tailsplit.io.outputs import replace_file_bytes


def save_state(classifier: Any, path: Path, step: int, optimizer: Any, schedule: Any) -> None:
    """The state after ``step`` steps, in ``path`` (replaced atomically)."""
    torch = classifier.torch
    state = {
        "step": step,
        "model": classifier.model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "schedule": schedule.state_dict(),
        "cpu_rng": torch.get_rng_state(),
        "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }
    buffer = io.BytesIO()
    torch.save(state, buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file_bytes(path, buffer.getvalue())


def resume_state(classifier: Any, path: Path, optimizer: Any, schedule: Any) -> int:
    """The step a saved state continues from, loaded into the classifier, optimiser and
    generators (0 without one)."""
    torch = classifier.torch
    try:
        state = torch.load(path, map_location=classifier.device, weights_only=True)
        classifier.model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        torch.set_rng_state(state["cpu_rng"].cpu())
        if state["cuda_rng"] and torch.cuda.is_available():
            torch.cuda.set_rng_state_all([s.cpu() for s in state["cuda_rng"]])
        return int(state["step"])
    except FileNotFoundError:
        return 0
    except Exception as exc:  # written atomically, so only a file changed by hand gets here
        raise ConfigError(
            f"the saved training state {str(path)!r} cannot be read ({type(exc).__name__}); delete it to "
            "train that run from the start"
        ) from None
