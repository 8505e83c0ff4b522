"""Speed: each script times tailsplit against a simple baseline measured in the same run, and prints the ratio."""
