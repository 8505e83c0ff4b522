"""Program metrics of a split: how far evaluation programs are from training ones.

For each evaluation part against train: atom divergence (Chernoff, α = 0.5), compound
divergence (α = 0.1), the share of examples holding a compound never seen in training,
the atoms missing from training (0 whenever the atom constraint holds), and the hardness
mix of every part.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.core import SplitIndices
from tailsplit.programs.divergence import ATOM_ALPHA, COMPOUND_ALPHA, chernoff_divergence
from tailsplit.programs.sets import ProgramFeatures, SparseSets


@dataclass(frozen=True)
class ProgramMetrics:
    """Metrics of one part; divergences and novelty are against train (``None`` for train)."""

    part: str
    size: int
    atom_divergence: float | None
    compound_divergence: float | None
    novel_compound_share: float | None
    atoms_missing_from_train: int | None
    hardness: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def novel_share(items: SparseSets, train_mask: np.ndarray, part_mask: np.ndarray) -> float:
    """Share of ``part`` rows holding at least one item that no training row holds."""
    unseen = items.presence(train_mask) == 0
    per_row = np.zeros(items.n_rows, dtype=bool)
    owner = items.owner
    per_row[owner[unseen[items.ids]]] = True
    n = int(part_mask.sum())
    return float(per_row[part_mask].sum() / n) if n else float("nan")


def program_metrics(programs: ProgramFeatures, split: SplitIndices) -> list[ProgramMetrics]:
    """One entry per part (train, dev, test)."""
    n = len(programs)
    train_mask = np.zeros(n, dtype=bool)
    train_mask[split.train_idx] = True
    train_atoms, train_compounds = programs.atoms.counts(train_mask), programs.compounds.counts(train_mask)
    out = []
    for part, idx in split.parts().items():
        mask = np.zeros(n, dtype=bool)
        mask[idx] = True
        hardness = _hardness_counts(programs, idx)
        if part == "train":
            out.append(ProgramMetrics(part, len(idx), None, None, None, None, hardness))
            continue
        part_atoms = programs.atoms.counts(mask)
        out.append(
            ProgramMetrics(
                part=part,
                size=len(idx),
                atom_divergence=_round(chernoff_divergence(train_atoms, part_atoms, ATOM_ALPHA)),
                compound_divergence=_round(
                    chernoff_divergence(train_compounds, programs.compounds.counts(mask), COMPOUND_ALPHA)
                ),
                novel_compound_share=_round(novel_share(programs.compounds, train_mask, mask)),
                atoms_missing_from_train=int(((part_atoms > 0) & (train_atoms == 0)).sum()),
                hardness=hardness,
            )
        )
    return out


def _hardness_counts(programs: ProgramFeatures, idx: np.ndarray) -> dict[str, int]:
    if programs.hardness is None:
        return {}
    counts = Counter(programs.hardness[i] for i in idx)
    return {level: counts.get(level, 0) for level in programs.hardness_levels}


def _round(value: float) -> float:
    return round(value, 4)


def divergence_note(count: str, extractor: str) -> str:
    """How the divergences were counted, and what a compound is (they differ from the papers')."""
    counting = (
        "atoms and compounds counted once per example"
        if count == "examples"
        else "atoms and compounds counted by occurrence, as the published TMCD code"
    )
    compounds = (
        "compounds are parse-tree paths from sqlglot (parent→child, grandparent→parent→child), "
        "not Shaw et al.'s grammar productions, so absolute values differ from the papers'"
        if extractor == "sql"
        else f"compounds as the {extractor!r} extractor defines them"
    )
    return f"{counting}; {compounds}"


def render_program_markdown(metrics: list[ProgramMetrics]) -> str:
    """A Markdown table: divergences and novelty per evaluation part, hardness mix per part."""
    levels = list(next((m.hardness for m in metrics if m.hardness), {}))
    header = ["part", "size", "atom div.", "compound div.", "novel compounds", "atoms unseen in train", *levels]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    for m in metrics:
        total = max(m.size, 1)
        cells = [
            m.part,
            str(m.size),
            _fmt(m.atom_divergence),
            _fmt(m.compound_divergence),
            "-" if m.novel_compound_share is None else f"{100 * m.novel_compound_share:.1f}%",
            "-" if m.atoms_missing_from_train is None else str(m.atoms_missing_from_train),
            *(f"{100 * m.hardness[level] / total:.1f}%" for level in levels),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
