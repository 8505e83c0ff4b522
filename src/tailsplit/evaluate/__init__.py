"""Show that splits are harder: task-model baselines trained on each split, compared with
random splits (SPEC §1's headline table)."""
