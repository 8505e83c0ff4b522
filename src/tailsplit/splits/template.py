"""Template split: programs that share a template never straddle train and evaluation.

Finegan-Dollak et al. (2018): anonymise each program into a template (names and values
replaced by placeholders), then draw whole template groups at random into evaluation until
the target size; dev and test get disjoint templates too. Sizes are exact whenever small
template groups remain to fill the last places (always, on Spider); otherwise evaluation is
smaller than asked by less than one group, and ``details`` says by how much.

With ``atom_constraint`` whole template groups are swapped: an evaluation template holding
an atom unseen in training moves to training, and random safe training templates that fit
take its place.
"""

from __future__ import annotations

import numpy as np

from tailsplit.core import SplitIndices
from tailsplit.errors import ConfigError
from tailsplit.rng import SPLIT_ORDER, seeded_rng
from tailsplit.splits.base import SplitInputs, Splitter, check_params, resolve_sizes
from tailsplit.splits.selection import (
    Units,
    divide_evaluation,
    fill_quotas,
    repair_atoms,
    strata_quotas,
)


class TemplateSplitter(Splitter):
    """Whole template groups at random → evaluation, then → dev or test."""

    name = "template"

    def __init__(
        self, *, dev_size: float | int = 0.1, test_size: float | int = 0.1, atom_constraint: bool = False, seed: int = 0
    ) -> None:
        self.dev_size = dev_size
        self.test_size = test_size
        self.atom_constraint = atom_constraint
        self.seed = seed
        check_params(self)

    @property
    def needs_programs(self) -> bool:
        return True

    def split(self, inputs: SplitInputs) -> SplitIndices:
        programs = inputs.require_programs("splitter='template'")
        if inputs.groups is not None:
            raise ConfigError("--splitter='template' groups examples by template already; drop --group")
        n_dev, n_test = resolve_sizes(inputs.n, self.dev_size, self.test_size)
        templates = programs.template_codes()
        units = Units(of_row=templates, count=int(templates.max()) + 1)
        strata = strata_quotas((n_dev, n_test), None, None, inputs.n)
        order = seeded_rng(self.seed, SPLIT_ORDER).permutation(units.count)
        eval_mask = fill_quotas(order, units, strata)
        details: dict = {}
        if self.atom_constraint:
            position = np.empty(units.count, dtype=np.float64)
            position[order] = np.arange(units.count)
            eval_mask, details = repair_atoms(eval_mask, inputs, position[templates], strata, units)
        _, test_mask, _ = divide_evaluation(eval_mask, n_dev, n_test, units, None, self.seed)
        details["template"] = {
            "templates": units.count,
            "evaluation_templates": len(np.unique(templates[eval_mask])),
            "evaluation_shortfall": n_dev + n_test - int(eval_mask.sum()),
        }
        return SplitIndices.from_masks(eval_mask, test_mask, details)
