"""Figures for every report: inline SVG for HTML pages, and SVG + PDF files for a paper
(matplotlib, Agg; both byte-identical from run to run).

Text is drawn as paths, so an SVG carries no markup from the data; PDFs embed TrueType fonts.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tailsplit.errors import MissingDependencyError


def pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise MissingDependencyError("matplotlib", "analysis", "the report's figures") from None
    matplotlib.use("Agg")
    # text.parse_math off: a label such as "$x$" is shown as written, not typeset (or a mathtext error)
    matplotlib.rcParams.update(
        {
            "svg.fonttype": "path",
            "svg.hashsalt": "tailsplit",
            "font.size": 9,
            "text.parse_math": False,
            "pdf.fonttype": 42,
        }  # TrueType fonts in PDFs (Type 3, the default, is flagged by ACL pubcheck)
    )
    import matplotlib.pyplot as plt

    return plt


@dataclass(frozen=True)
class Figure:
    """One rendered figure: inline SVG (for HTML) and PDF bytes (for LaTeX)."""

    svg: str
    pdf: bytes


# Font tables a PDF never reads: it places every glyph itself, so the shaping tables go too.
LAYOUT_TABLES = ["GSUB", "GPOS", "GDEF", "kern", "BASE", "JSTF", "MATH"]

# Every PDF's font subset holds these characters besides those it draws, so that the figures of
# a run share a few subsets (one per font) and each is made once: subsetting a font with
# fontTools was a third of a figure's time. About 95 more glyphs per PDF (~15 KB).
ALWAYS_SUBSET = "".join(chr(code) for code in range(0x20, 0x7F)) + "\u2013\u2212"


@contextlib.contextmanager
def lean_font_subsets() -> Iterator[None]:
    """While a PDF is written: its TrueType font subset without the layout tables, and made
    once per font and glyph set.

    matplotlib subsets the font of every PDF with fontTools and keeps GSUB, GPOS and GDEF,
    whose decompiling was over half of a figure's PDF time (0.64 → 0.29 s per figure on 2
    cores, 4 figures per analysed split). matplotlib's subsetting runs as ever, with fontTools'
    options narrowed for the length of the save (and restored after it); where matplotlib
    subsets through ``get_glyphs_subset`` (3.11 and later), each subset is also kept for the
    next PDF (see :data:`ALWAYS_SUBSET`)."""
    try:
        from fontTools import subset as fonttools_subset
    except ImportError:  # matplotlib needs fontTools; nothing to narrow without it
        yield
        return
    subset: Any = fonttools_subset
    original_options = subset.Options

    class LeanOptions(original_options):  # type: ignore[misc,valid-type]
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            options: Any = self
            options.drop_tables = [*options.drop_tables, *LAYOUT_TABLES]
            options.layout_features = []

    subset.Options = LeanOptions
    try:
        with _subsets_kept():
            yield
    finally:
        subset.Options = original_options


class _SavedFont:
    """A subset font already written out: what matplotlib's ``font_as_file`` saves from it."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def save(self, file: Any, **_: Any) -> None:
        file.write(self.data)


_SUBSETS: dict[tuple[str, int, frozenset[int]], tuple[bytes, dict[int, int]]] = {}
_KEPT_SUBSETS = 32  # at most this many subsets kept (~60 KB each)
_ALWAYS_GLYPHS: dict[tuple[str, int], frozenset[int]] = {}


@contextlib.contextmanager
def _subsets_kept() -> Iterator[None]:
    """matplotlib's ``get_glyphs_subset`` (3.11 and later; older versions are left as they are)
    asked for the glyphs it needs and :data:`ALWAYS_SUBSET`'s, each subset made once: the
    same font bytes as matplotlib's own subset of those glyphs."""
    try:
        from matplotlib.backends import _backend_pdf_ps as pdf_ps
    except ImportError:
        yield
        return
    module: Any = pdf_ps
    original = getattr(module, "get_glyphs_subset", None)
    if original is None or not hasattr(module, "SubsetResults") or not hasattr(module, "font_as_file"):
        yield
        return

    def kept(fontfile: Any, glyphs: Any) -> Any:
        face = (str(fontfile), int(getattr(fontfile, "face_index", 0)))
        if face not in _ALWAYS_GLYPHS:
            from matplotlib.ft2font import FT2Font

            font = FT2Font(fontfile)
            _ALWAYS_GLYPHS[face] = frozenset(font.get_char_index(ord(c)) for c in ALWAYS_SUBSET) - {0}
        key = (*face, frozenset(int(g) for g in glyphs) | _ALWAYS_GLYPHS[face])
        if key not in _SUBSETS:
            if len(_SUBSETS) >= _KEPT_SUBSETS:  # a long session drawing unusual text: keep memory bounded
                _SUBSETS.clear()
            with original(fontfile, set(key[2])) as made:
                _SUBSETS[key] = (module.font_as_file(made.font).getvalue(), dict(made.glyph_index_map))
        data, index_map = _SUBSETS[key]
        return contextlib.nullcontext(module.SubsetResults(_SavedFont(data), dict(index_map)))

    module.get_glyphs_subset = kept
    try:
        yield
    finally:
        module.get_glyphs_subset = original


def place_axes(
    fig: Any, *, left: float, right: float, top: float, bottom: float, wspace: float = 0.0, hspace: float = 0.0
) -> None:
    """Fix ``fig``'s grid of axes by its margins and gaps in inches, so that saving it measures
    nothing: each format is drawn once (a tight layout or a tight bounding box draws the whole
    figure again for every measurement — two thirds of a split's figure time)."""
    width, height = fig.get_size_inches()
    rows, cols = fig.axes[0].get_subplotspec().get_gridspec().get_geometry()
    axes_width = (width - left - right - (cols - 1) * wspace) / cols
    axes_height = (height - top - bottom - (rows - 1) * hspace) / rows
    fig.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        top=1 - top / height,
        bottom=bottom / height,
        wspace=wspace / axes_width,
        hspace=hspace / axes_height,
    )


def render_figure(fig: Any, *, crop: bool = True) -> Figure:
    """``fig`` as SVG and PDF. With ``crop``, both are cut to what the figure draws (its
    bounding box measured once, 0.1 in of padding); without, saved as laid out (``place_axes``)."""
    bbox = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1) if crop else None
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches=bbox, metadata={"Date": None, "Creator": None})
    pdf = io.BytesIO()
    with lean_font_subsets():
        fig.savefig(
            pdf, format="pdf", bbox_inches=bbox, metadata={"CreationDate": None, "Creator": None, "Producer": None}
        )
    pyplot().close(fig)
    text = buffer.getvalue()
    return Figure(text[text.index("<svg") :], pdf.getvalue())


_DRAWN: OrderedDict[str, Figure] = OrderedDict()
_KEPT_FIGURES = 24  # the figures of a few analyses (~60 KB each)


def drawn_once(kind: str, inputs: Sequence[Any], draw: Callable[[], Figure]) -> Figure:
    """``draw()``, or the figure it drew before in this process from the same ``inputs``
    (arrays by dtype, shape and bytes, anything else by ``repr``) and matplotlib settings: a
    split analysed again — ``analyze`` on the folder a ``run`` just wrote, one analysis shown in
    two reports — is not drawn again (a split's figures take about 1.5 s). Figures are
    byte-identical from draw to draw, so a kept one is the figure a new draw would make."""
    import matplotlib

    pyplot()  # tailsplit's settings, then all of them (a notebook's style too) are part of the key
    digest = hashlib.sha256(kind.encode("utf-8"))
    digest.update(repr(sorted(matplotlib.rcParams.items())).encode("utf-8"))
    for item in inputs:
        if isinstance(item, np.ndarray):
            digest.update(f"{item.dtype.str}{item.shape}".encode())
            digest.update(np.ascontiguousarray(item).tobytes())
        else:
            digest.update(repr(item).encode("utf-8"))
        digest.update(b"\0")
    key = digest.hexdigest()
    if key in _DRAWN:
        _DRAWN.move_to_end(key)
        return _DRAWN[key]
    figure = draw()
    _DRAWN[key] = figure
    if len(_DRAWN) > _KEPT_FIGURES:
        _DRAWN.popitem(last=False)
    return figure


def slug(caption: str, limit: int = 60) -> str:
    """A file name from a caption: ``Query length by part (word tokens)`` → ``query-length-by-part-word-tokens``."""
    words = re.findall(r"[a-z0-9]+", caption.lower())
    name = "-".join(words)[:limit].rstrip("-")
    return name or "figure"


def figure_files(figures: dict[str, Figure], folder: str = "figures") -> dict[str, str | bytes]:
    """``figures/<name>.svg`` and ``.pdf`` per figure (names from captions, made unique)."""
    files: dict[str, str | bytes] = {}
    for caption, figure in figures.items():
        name, k = slug(caption), 2
        while f"{folder}/{name}.svg" in files:
            name, k = f"{slug(caption)}-{k}", k + 1
        files[f"{folder}/{name}.svg"] = figure.svg
        files[f"{folder}/{name}.pdf"] = figure.pdf
    return files
