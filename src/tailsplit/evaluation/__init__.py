"""Show that splits are harder: task-model baselines trained on each split, compared with
random splits (the Likelihood Splits paper's headline table)."""
