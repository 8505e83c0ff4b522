"""The OpenMP wait policy a command chooses before torch loads: spin only on an idle machine."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tailsplit.cli.threads import set_wait_policy, wait_policy


@pytest.mark.parametrize(
    ("loadavg", "cores", "threads", "expected"),
    [
        ("0.10 0.20 0.30 1/90 4242", 2, 2, "ACTIVE"),  # only this process runs
        ("1.90 1.80 1.70 2/90 4242", 2, 2, "PASSIVE"),  # another process wants a core
        ("1.00 1.00 1.00 2/90 4242", 2, 1, "ACTIVE"),  # one thread leaves the other core free
        ("3.00 3.00 3.00 4/300 4242", 16, 8, "ACTIVE"),
        ("3.00 3.00 3.00 10/300 4242", 16, 8, "PASSIVE"),
        ("", 2, 2, "PASSIVE"),  # unreadable: the safe choice on a shared machine
        ("0.1 0.2 0.3 x/90 1", 2, 2, "PASSIVE"),
    ],
)
def test_threads_spin_only_when_every_thread_has_a_free_core(
    loadavg: str, cores: int, threads: int, expected: str
) -> None:
    assert wait_policy(loadavg, cores, threads) == expected


def test_a_wait_policy_the_user_set_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")
    set_wait_policy()
    assert os.environ["OMP_WAIT_POLICY"] == "passive"


def test_the_command_sets_a_policy_before_torch_loads() -> None:
    code = (
        "import os, sys; os.environ.pop('OMP_WAIT_POLICY', None); from tailsplit.cli import main; "
        "sys.argv = ['tailsplit', '--version']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(os.environ['OMP_WAIT_POLICY'], 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[-2] in ("ACTIVE", "PASSIVE") and out[-1] == "False"
