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
        self._handlers = _signal_handlers() if self._started else {}
        if self._started:
            ray.init(
                address=address,
                num_cpus=num_cpus if address is None else None,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )

    def close(self) -> None:
        """Stop the cluster this process started, and give back the signal handlers Ray put in
        place (its SIGTERM handler exits the process, and outlives ``ray.shutdown()``: a process
        forked later would inherit it)."""
        if self._started:
            self.ray.shutdown()
            self._started = False
            _restore(self._handlers)


def _signal_handlers() -> dict[int, Any]:
    """The handlers of the signals Ray replaces (main thread only: elsewhere none can be set)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    return {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}


def _restore(handlers: dict[int, Any]) -> None:
    import signal

    for number, handler in handlers.items():
        if handler is not None and signal.getsignal(number) is not handler:
            signal.signal(number, handler)
