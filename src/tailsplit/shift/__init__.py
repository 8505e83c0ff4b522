"""Dataset shift (BOSS, Yuan et al. 2023): embedding similarity between datasets, OOD candidate
ranking, and the shape of the ID–OOD accuracy relation; BOSS's three tasks (classification,
NER, extractive QA) as a registry of task kinds (:mod:`.task_kinds`), read, mapped and scored
(:mod:`.tasks`, :mod:`.task_metrics`); their task models are :mod:`tailsplit.shift_models`."""
