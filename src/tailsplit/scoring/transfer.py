"""Moving a batch between host and scoring device: one copy in, one copy out.

In: every integer array of a batch's layout (ids, positions, mask or owners, scored rows,
columns and targets) is written into one pinned buffer and crosses to the GPU in one
asynchronous copy; the device tensors are views of that one transfer. Out: the scored
tokens' log-probabilities are copied into a pinned host buffer without waiting, and an
event marks when they have landed, so the host can lay out and launch the next batch while
this one runs. On a CPU nothing is copied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def to_device(arrays: Sequence[np.ndarray], device: str) -> list[Any]:
    """``arrays`` as int64 tensors on ``device`` (shapes kept), through one pinned buffer and
    one copy on a GPU; on a CPU the tensors share the arrays' memory where they can."""
    import torch

    if device == "cpu":
        return [torch.from_numpy(np.ascontiguousarray(a, dtype=np.int64)) for a in arrays]
    sizes = [int(a.size) for a in arrays]
    host = torch.empty(sum(sizes), dtype=torch.int64, pin_memory=True)
    flat = host.numpy()
    offset = 0
    for array, size in zip(arrays, sizes):
        flat[offset : offset + size] = array.ravel()
        offset += size
    moved = host.to(device, non_blocking=True)
    out, offset = [], 0
    for array, size in zip(arrays, sizes):
        out.append(moved[offset : offset + size].view(array.shape))
        offset += size
    return out


class HostCopy:
    """A device tensor on its way to the host: started at once, waited for in :meth:`numpy`."""

    def __init__(self, values: Any) -> None:
        import torch

        self.event: Any = None
        if values.device.type == "cpu":
            self.host = values
            return
        self.host = torch.empty(values.shape, dtype=values.dtype, pin_memory=True)
        self.host.copy_(values, non_blocking=True)
        self.event = torch.cuda.Event()
        self.event.record()

    def numpy(self) -> np.ndarray:
        """The values as float64, once they have arrived (float32 widens exactly)."""
        if self.event is not None:
            self.event.synchronize()
        return self.host.numpy().astype(np.float64)
