"""``python -m tailsplit.cli``."""

from tailsplit.cli import main

main()
