"""Dataset shift (BOSS, Yuan et al. 2023): embedding similarity between datasets, OOD candidate
ranking, and the shape of the ID–OOD accuracy relation; BOSS's three tasks (classification,
NER, extractive QA) read, mapped and scored (:mod:`.tasks`)."""
