"""A run's recorded configuration read back typed: the sections a manifest (or a score file's
metadata) holds, as the :class:`~tailsplit.config.RunConfig` that made them — each key this
version knows checked against its type, a key it does not know left out, and a key left out
taking its declared default — so no reader restates a default or reads a section by string key.

>>> from tailsplit.io.manifest import Manifest
>>> recorded_run(Manifest.of({"config": {"data": {"text": "hypothesis"}}})).data.text
'hypothesis'
>>> recorded_run(Manifest.of({"config": {}})).scoring.backend
'hf'
"""

from __future__ import annotations

from tailsplit.config.run import RunConfig
from tailsplit.io.manifest import Manifest


def recorded_run(manifest: Manifest) -> RunConfig:
    """The run configuration ``manifest`` records (defaults where it records none)."""
    return RunConfig.from_dict(dict(manifest.config.values), source="the manifest's config", strict=False)
