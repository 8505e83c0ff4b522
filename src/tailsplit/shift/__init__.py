"""Dataset shift (BOSS, Yuan et al. 2023): embedding similarity between datasets, OOD candidate
ranking, and the shape of the ID–OOD accuracy relation."""
