"""A word n-gram language model with interpolated modified Kneser–Ney smoothing.

Chen & Goodman (1998), "An empirical study of smoothing techniques for language modeling",
§3.5: for the highest order, with ``c`` raw counts and ``D(c)`` one of three discounts
(``D1``, ``D2``, ``D3+``),

    P(w | h) = max(c(hw) − D(c(hw)), 0) / c(h·) + γ(h) · P(w | h′),
    γ(h)     = (D1·N1(h·) + D2·N2(h·) + D3+·N3+(h·)) / c(h·),

where ``h′`` drops the oldest word and ``Nk(h·)`` counts the words seen exactly k times (3+:
at least 3) after ``h``. Lower orders use the same formula with *continuation* counts
(how many distinct words precede ``hw``) instead of raw counts; the unigram level
interpolates with the uniform distribution over the vocabulary plus ``<unk>``, so every word
has a non-zero probability. A history never seen backs off to the lower order entirely.
Discounts come from counts-of-counts: ``Y = n1/(n1 + 2 n2)``, ``Dk = k − (k+1)·Y·n(k+1)/nk``.

It is the cheap, CPU-fast scorer for cross-fitting: a fold of pooled Spider (5,400 questions
to fit, 2,700 to score, word tokenisation included) takes about 2.5 s.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.scoring.base import ScoreRequest
from tailsplit.words import word_tokens

BOS, EOS, UNK = "<s>", "</s>", "<unk>"


@dataclass
class _Level:
    """Counts of one order: per history, counts of next words and their counts-of-counts."""

    counts: dict[tuple[str, ...], Counter]
    discounts: tuple[float, float, float]

    def totals(self) -> dict[tuple[str, ...], tuple[int, int, int, int]]:
        """Per history: (total count, N1, N2, N3+)."""
        out = {}
        for history, nexts in self.counts.items():
            n1 = sum(1 for c in nexts.values() if c == 1)
            n2 = sum(1 for c in nexts.values() if c == 2)
            out[history] = (sum(nexts.values()), n1, n2, len(nexts) - n1 - n2)
        return out


def modified_discounts(count_of_counts: Counter) -> tuple[float, float, float]:
    """(D1, D2, D3+) from how many n-grams occur exactly 1, 2, 3, 4 times.

    Falls back to the plain Kneser–Ney 0.75-style estimate where counts are too sparse.
    """
    n1, n2, n3, n4 = (count_of_counts.get(k, 0) for k in (1, 2, 3, 4))
    if n1 == 0 or n2 == 0:
        return (0.5, 0.75, 0.9)
    y = n1 / (n1 + 2 * n2)
    d1 = 1 - 2 * y * n2 / n1
    d2 = 2 - 3 * y * n3 / n2 if n3 else 1.0
    d3 = 3 - 4 * y * n4 / n3 if n3 and n4 else 1.5
    return (max(d1, 0.05), max(d2, 0.05), max(d3, 0.05))


class KneserNeyLM:
    """An order-``n`` word LM; ``fit`` on token lists, then ``logprob`` of token lists.

    >>> lm = KneserNeyLM(order=2).fit([["a", "b"], ["a", "c"]])
    >>> round(math.exp(lm.logprob(["a", "b"])), 4) > round(math.exp(lm.logprob(["b", "a"])), 4)
    True
    """

    def __init__(self, order: int = 3) -> None:
        if order < 1:
            raise ValueError(f"order={order!r} must be at least 1")
        self.order = order
        self.vocab: set[str] = set()
        self.levels: list[_Level] = []
        self._totals: list[dict[tuple[str, ...], tuple[int, int, int, int]]] = []

    def fit(self, sentences: Iterable[Sequence[str]]) -> KneserNeyLM:
        highest: dict[tuple[str, ...], Counter] = defaultdict(Counter)
        for sentence in sentences:
            padded = [BOS] * (self.order - 1) + list(sentence) + [EOS]
            self.vocab.update(sentence)
            for i in range(self.order - 1, len(padded)):
                highest[tuple(padded[i - self.order + 1 : i])][padded[i]] += 1
        self.vocab.add(EOS)
        levels_counts = [highest]
        for _ in range(self.order - 1):  # continuation counts: distinct words before each n-gram
            upper = levels_counts[-1]
            lower: dict[tuple[str, ...], Counter] = defaultdict(Counter)
            for history, nexts in upper.items():
                for word in nexts:
                    lower[history[1:]][word] += 1
            levels_counts.append(lower)
        levels_counts.reverse()  # index 0 = unigram level (history of length 0)
        self.levels = []
        for counts in levels_counts:
            coc = Counter(c for nexts in counts.values() for c in nexts.values())
            self.levels.append(_Level(counts=dict(counts), discounts=modified_discounts(coc)))
        self._totals = [level.totals() for level in self.levels]
        # Per level, per history: what one interpolation step needs, computed once here
        # rather than at every scored token (same arithmetic, so the same floats as prob()).
        self._steps = [
            {
                context: (total[0], (d1 * total[1] + d2 * total[2] + d3 * total[3]) / total[0], level.counts[context])
                for context, total in totals.items()
            }
            for level, totals, (d1, d2, d3) in ((lv, t, lv.discounts) for lv, t in zip(self.levels, self._totals))
        ]
        return self

    def prob(self, word: str, history: Sequence[str]) -> float:
        """P(word | last ``order − 1`` words of history), smoothed; unknown words → <unk>."""
        if word not in self.vocab:
            word = UNK
        history = tuple(history[-(self.order - 1) :]) if self.order > 1 else ()
        history = (BOS,) * (self.order - 1 - len(history)) + history
        vocab_size = len(self.vocab) + 1  # + <unk>
        p = 1.0 / vocab_size
        for level_index in range(self.order):
            context = history[len(history) - level_index :] if level_index else ()
            total = self._totals[level_index].get(context)
            if total is None:
                continue  # unseen history: keep the lower-order estimate
            count_sum, n1, n2, n3 = total
            d1, d2, d3 = self.levels[level_index].discounts
            c = self.levels[level_index].counts[context].get(word, 0)
            discount = 0.0 if c == 0 else (d1 if c == 1 else d2 if c == 2 else d3)
            gamma = (d1 * n1 + d2 * n2 + d3 * n3) / count_sum
            p = max(c - discount, 0.0) / count_sum + gamma * p
        return p

    def logprob(self, sentence: Sequence[str]) -> float:
        """Natural-log probability of the sentence and its end marker: the sum of
        ``log(prob(word, history))`` over its words, computed with the per-history steps."""
        order, vocab = self.order, self.vocab
        padded = [BOS] * (order - 1) + list(sentence) + [EOS]
        uniform = 1.0 / (len(vocab) + 1)
        levels = list(zip(range(order), self._steps, (level.discounts for level in self.levels)))
        total = 0.0
        for i in range(order - 1, len(padded)):
            word = padded[i] if padded[i] in vocab else UNK
            p = uniform
            for level_index, steps, (d1, d2, d3) in levels:
                step = steps.get(tuple(padded[i - level_index : i]) if level_index else ())
                if step is None:
                    continue  # unseen history: keep the lower-order estimate
                count_sum, gamma, nexts = step
                c = nexts.get(word, 0)
                discount = 0.0 if c == 0 else (d1 if c == 1 else d2 if c == 2 else d3)
                p = max(c - discount, 0.0) / count_sum + gamma * p
            total += math.log(p)
        return total


class NgramFoldScorer:
    """Cross-fitting adapter: a Kneser–Ney LM over the lower-cased word tokens of the query.

    The prompt is ignored (an n-gram model of the query text alone); ``n_tokens`` counts the
    words plus the end marker.
    """

    def __init__(self, order: int = 3) -> None:
        self.order = order
        self._words: dict[str, list[str]] = {}  # each distinct query tokenised once, for every fold

    def identity(self) -> dict[str, Any]:
        return {"name": f"kneser-ney-{self.order}gram", "tokens": "nltk-treebank-lowercase"}

    def words(self, text: str) -> list[str]:
        words = self._words.get(text)
        if words is None:
            words = self._words[text] = [w.lower() for w in word_tokens(text)]
        return words

    def fit_and_score(
        self, train: list[ScoreRequest], heldout: list[ScoreRequest], fold: int, train_sha256: str
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        lm = KneserNeyLM(self.order).fit(self.words(r.query) for r in train)
        sentences = [self.words(r.query) for r in heldout]
        scores = np.array([lm.logprob(s) for s in sentences])
        counts = np.array([len(s) + 1 for s in sentences], dtype=np.int64)
        return (
            scores,
            counts,
            {"vocabulary": len(lm.vocab), "discounts": [list(level.discounts) for level in lm.levels]},
        )
