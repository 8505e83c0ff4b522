"""Dataset shift (BOSS, SPEC §2): embedding similarity between datasets, OOD candidate
ranking, and the shape of the ID–OOD accuracy relation."""
