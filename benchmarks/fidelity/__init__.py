"""Fidelity: how exactly tailsplit follows the papers' recipes and its own outputs (token boundaries, start and end tokens, fold leakage, output identity across a refactor)."""
