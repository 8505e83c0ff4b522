"""Evidence: the runs behind the Results page (splits of the shared datasets, baselines, fairness, BOSS, overlap)."""
