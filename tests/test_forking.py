"""Work split over forked processes gives what the same work gives in one process."""

from __future__ import annotations

import pytest

from tailsplit import forking


@pytest.mark.parametrize(("size", "workers"), [(0, 2), (1, 2), (5, 2), (7, 3), (4, 8), (10, 1)])
def test_on_cores_covers_every_row_once_in_order(size: int, workers: int) -> None:
    data = [f"row {i}" for i in range(size)]  # read by the forked workers from their copy of memory
    chunks = forking.on_cores(lambda start, stop: data[start:stop], size, workers=workers)
    assert [row for chunk in chunks for row in chunk] == data
    assert len(chunks) <= max(workers, 1) and forking._TASK is None


def test_map_forked_keeps_item_order_and_raises_a_worker_error() -> None:
    offset = 1000
    assert forking.map_forked(lambda item: item + offset, list(range(9)), workers=2) == list(range(1000, 1009))

    def fails(item: int) -> int:
        if item == 3:
            raise ValueError("item 3")
        return item

    with pytest.raises(ValueError, match="item 3"):
        forking.map_forked(fails, list(range(6)), workers=2)
    with pytest.raises(ValueError, match="item 3"):
        forking.on_cores(lambda start, stop: [fails(i) for i in range(start, stop)], 6, workers=2)
    assert forking._TASK is None


def test_finished_work_never_sends_its_workers_sigterm(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool whose work is done is closed and joined, not terminated. A forked worker inherits
    its parent's Python SIGTERM handler (Ray's exits, the command line's raises); a SIGTERM that
    reaches a worker still starting runs it before multiprocessing can catch what it raises, and
    the worker ran on into its parent's code: a test run once hung waiting on such a worker."""
    import multiprocessing.pool

    def no_terminate(self: object) -> None:
        raise AssertionError("a pool whose work was done was terminated")

    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", no_terminate)
    assert forking.on_cores(lambda start, stop: stop - start, 5, workers=2) == [3, 2]
    assert forking.map_forked(lambda item: item * 2, [1, 2, 3], workers=2) == [2, 4, 6]


def _in_a_pool_worker(size: int) -> list[list[int]]:
    return forking.on_cores(lambda start, stop: list(range(start, stop)), size, workers=3)


def test_work_from_a_callers_pool_worker_runs_in_that_worker() -> None:
    """A caller's pool worker is daemonic and may not fork children of its own: the work runs
    there instead of failing ("daemonic processes are not allowed to have children")."""
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(1) as pool:
        chunks = pool.apply(_in_a_pool_worker, (7,))
    assert [row for chunk in chunks for row in chunk] == list(range(7))
