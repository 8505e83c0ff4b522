"""Connect to a Ray cluster, or start a local one for the length of a run."""

from __future__ import annotations

from typing import Any

from tailsplit.errors import MissingDependencyError


class RayCluster:
    """The cluster at ``address`` (``"auto"`` finds a running one), or a local cluster of
    ``num_cpus`` started now and stopped by :meth:`close` when none was running."""

    def __init__(self, address: str | None = None, num_cpus: int | None = None, feature: str = "--engine ray") -> None:
        try:
            import ray
        except ImportError:
            raise MissingDependencyError("ray", "distributed", feature) from None
        self.ray: Any = ray
        self._started = not ray.is_initialized()
        if self._started:
            ray.init(
                address=address,
                num_cpus=num_cpus if address is None else None,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )

    def close(self) -> None:
        if self._started:
            self.ray.shutdown()
            self._started = False
