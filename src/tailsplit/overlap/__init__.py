"""Overlap audits: how much of a test set also occurs in training or pre-training text."""
