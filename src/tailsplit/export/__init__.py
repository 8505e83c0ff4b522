"""Splits handed to other tools: lm-evaluation-harness tasks and Hugging Face dataset folders with cards."""
