"""Programs (SQL, logical forms): atoms, compounds, templates, hardness and divergences."""

from tailsplit.programs.base import ProgramError, ProgramExtractor, ProgramParse
from tailsplit.programs.divergence import ATOM_ALPHA, COMPOUND_ALPHA, chernoff_divergence
from tailsplit.programs.sets import (
    ProgramFeatures,
    SparseSets,
    dataset_program_features,
    extract_program_features,
)

__all__ = [
    "ATOM_ALPHA",
    "COMPOUND_ALPHA",
    "ProgramError",
    "ProgramExtractor",
    "ProgramFeatures",
    "ProgramParse",
    "SparseSets",
    "chernoff_divergence",
    "dataset_program_features",
    "extract_program_features",
]
