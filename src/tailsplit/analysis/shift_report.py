"""Reports of the shift commands: similarity heatmaps, OOD decisions, ID–OOD fits.

Dataset names come from the user, so every one is escaped (Markdown cells and HTML); figures
draw text as paths, so the SVGs carry no markup from the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tailsplit.render import markdown_code, markdown_text
from tailsplit.render.figures import Figure, pyplot, render_figure
from tailsplit.shift.correlate import MIN_POINTS, type_label


def heatmap_figure(
    names: Sequence[str], matrix: np.ndarray, title: str, fmt: str = "{:.1f}", cmap: str = "viridis"
) -> Figure:
    plt = pyplot()
    size = 1.2 + 0.7 * len(names)
    fig, ax = plt.subplots(figsize=(size + 1.2, size))
    image = ax.imshow(matrix, cmap=cmap)
    ax.set_xticks(range(len(names)), [str(n) for n in names], rotation=35, ha="right")
    ax.set_yticks(range(len(names)), [str(n) for n in names])
    midpoint = (np.nanmax(matrix) + np.nanmin(matrix)) / 2
    for i in range(len(names)):
        for j in range(len(names)):
            ax.text(
                j,
                i,
                fmt.format(matrix[i, j]),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if matrix[i, j] < midpoint else "black",
            )
    ax.set_title(title)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return render_figure(fig)


def relation_figure(x: np.ndarray, y: np.ndarray, relation: Any, title: str) -> Figure:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    ax.scatter(x, y, s=14, color="#2a7ab8", label="points")
    grid = np.linspace(float(np.min(x)), float(np.max(x)), 200)
    for kind, fit in relation.fits.items():
        chosen = kind == relation.chosen.kind
        ax.plot(
            grid,
            fit.predict(grid),
            lw=2.2 if chosen else 1,
            ls="-" if chosen else ":",
            label=f"{kind} (Type {fit.boss_type()[0]}){' chosen' if chosen else ''}, BIC {fit.bic:.1f}",
        )
    if relation.chosen.turning_point is not None:
        ax.axvline(relation.chosen.turning_point, color="#999", lw=0.8, ls="--")
    ax.set_xlabel("ID accuracy")
    ax.set_ylabel("OOD accuracy")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left")  # where OOD-below-ID points leave room; "best" searches every point
    return render_figure(fig)


def curve_figure(points: Sequence[dict[str, Any]], relations: dict[str, Any], metric: str = "accuracy") -> Figure:
    """ID against OOD ``metric``, one colour per OOD set, each set's chosen fit drawn over its points."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 4.0))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, group in enumerate(dict.fromkeys(p["group"] for p in points)):
        colour = colours[i % len(colours)]
        x = np.array([p["id_acc"] for p in points if p["group"] == group])
        y = np.array([p["ood_acc"] for p in points if p["group"] == group])
        relation = relations.get(group)
        label = group if relation is None else f"{group}: {relation.chosen.kind}, {type_label(relation.type)}"
        ax.scatter(x, y, s=16, color=colour, label=label)
        if relation is not None:
            grid = np.linspace(float(x.min()), float(x.max()), 200)
            ax.plot(grid, relation.chosen.predict(grid), color=colour, lw=1.6)
    ax.set_xlabel(f"ID {metric}")
    ax.set_ylabel(f"OOD {metric}")
    ax.legend(fontsize=7, loc="upper left")  # where OOD-below-ID points leave room; "best" searches every point
    return render_figure(fig)


def curve_runs_markdown(result: dict[str, Any], points: Sequence[dict[str, Any]]) -> str:
    """The runs, and each checkpoint's ID metric and every OOD set's."""
    groups = list(dict.fromkeys(p["group"] for p in points))
    parts = result["id_parts"]
    lines = [
        f"Task model trained on ID train ({parts['origin']}: {parts['train']:,} train, {parts['test']:,} test "
        f"examples), evaluated at every checkpoint on ID test and {len(groups)} OOD set(s); the measure is "
        f"{result.get('metric', 'accuracy')}.",
        "",
        "| encoder | train size | tuned layers | step | ID | " + " | ".join(markdown_text(g) for g in groups) + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(groups),
    ]
    rows: dict[tuple[str, int, Any, int], dict[str, float]] = {}
    for p in points:
        key = (p["encoder"], p["train_size"], p.get("trainable_layers", "all"), p["step"])
        rows.setdefault(key, {"ID": p["id_acc"]})[p["group"]] = p["ood_acc"]
    for (encoder, size, tuned, step), values in rows.items():
        lines.append(
            f"| {markdown_text(encoder)} | {size:,} | {tuned} | {step} | {values['ID']:.3f} | "
            + " | ".join(f"{values[g]:.3f}" for g in groups)
            + " |"
        )
    return "\n".join(lines) + "\n"


def _matrix_markdown(names: Sequence[str], matrix: np.ndarray, fmt: str) -> list[str]:
    lines = ["| | " + " | ".join(markdown_text(n) for n in names) + " |", "|---|" + "---:|" * len(names)]
    for name, row in zip(names, matrix):
        lines.append(f"| **{markdown_text(name)}** | " + " | ".join(fmt.format(v) for v in row) + " |")
    return lines


def similarity_markdown(result: dict[str, Any]) -> str:
    names = result["names"]
    lines = [
        f"# Dataset similarity: {markdown_text(', '.join(names))}",
        "",
        f"Encoder: {markdown_text(result['encoder']['name'])}; {result['embedded']:,} texts embedded, "
        f"{result['cached']:,} served from the cache.",
        "",
        "| dataset | file | fields | examples |",
        "|---|---|---|---:|",
    ]
    for d in result["datasets"]:
        lines.append(
            f"| {markdown_text(d['name'])} | {markdown_text(d['path'])} | "
            f"{markdown_text('+'.join(d['fields']))} | {d['examples']:,} |"
        )
    lines += [
        "",
        "## Centroid similarity (cosine × 100)",
        "",
        "The cosine of the datasets' mean embeddings (BOSS). It sees means only.",
        "",
    ]
    lines += _matrix_markdown(names, np.array(result["centroid_similarity"]), "{:.1f}")
    mmd = result["mmd"]
    lines += [
        "",
        "## MMD (Gaussian kernel)",
        "",
        f"Unbiased MMD² between samples of at most {mmd['sample']:,} examples per dataset, bandwidth "
        f"{mmd['bandwidth']:.3f} (median pairwise distance); permutation p-values from "
        f"{mmd['permutations']} permutations. Larger is farther apart; it sees spread and shape too.",
        "",
    ]
    lines += _matrix_markdown(names, np.array(mmd["mmd2"]), "{:.4f}")
    lines += ["", "p-values:", ""] + _matrix_markdown(names, np.array(mmd["p_value"]), "{:.3f}")
    return "\n".join(lines) + "\n"


def _ci(bounds: Sequence[float] | None) -> str:
    return "" if bounds is None else f" ({bounds[0]:.3f}–{bounds[1]:.3f})"


def ood_markdown(result: dict[str, Any]) -> str:
    ident, task = result["id"], result.get("task_model") or {}
    metric = result.get("metric", "accuracy")
    lines = [f"# OOD candidates for {markdown_text(ident['name'])}", ""]
    if task.get("measured"):
        parts = task["id_parts"]
        training = task["training"]
        lines += [
            f"The task model — {markdown_text(task['encoder'])} fine-tuned on {training['train_examples']:,} ID "
            f"training examples ({parts['origin']}; {training['steps']} steps, checkpoint of step "
            f"{training['best_step']} chosen on {parts['dev']:,} dev examples) — reaches {metric} "
            f"**{ident['accuracy']:.3f}**{_ci(ident['accuracy_ci'])} on {parts['test']:,} ID test examples. "
            f"Intervals: {task['interval']}; they cover the test sets' sampling error, not training runs.",
            "",
        ]
        if task["label_map"]:
            mapping = ", ".join(
                f"{markdown_code(k)} → {markdown_code(v) if v else '(dropped)'}" for k, v in task["label_map"].items()
            )
            lines += [f"Label map (gold labels and predictions): {mapping}.", ""]
        for name, effect in (task.get("unscored_entities") or {}).items():
            lines += [
                f"{markdown_text(name)}: {effect['gold_entities_unscored']:,} gold entities of a removed type are no "
                f"gold entities, and the {effect['predictions_unscored']:,} predictions on them are neither right nor "
                f"wrong ({metric} {effect['entity_f1']:.3f}; {effect['entity_f1_counting_them_wrong']:.3f} had they "
                "counted as wrong).",
                "",
            ]
    elif ident["accuracy"] is not None:
        lines += [f"ID {metric} (given): {ident['accuracy']:.3f}.", ""]
    lines += [
        f"| rank | candidate | source | similarity | {metric} (95% CI) | drop (95% CI) | decision |",
        "|---:|---|---|---:|---:|---:|---|",
    ]
    for d in result["decisions"]:
        acc = "" if d["accuracy"] is None else f"{d['accuracy']:.3f}{_ci(d.get('accuracy_ci'))}"
        drop = "" if d["drop"] is None else f"{d['drop']:.3f}{_ci(d.get('drop_ci'))}"
        lines.append(
            f"| {d['rank'] or ''} | {markdown_text(d['name'])} | {markdown_text(d['source'])} | "
            f"{d['similarity']:.1f} | {acc} | {drop} | {markdown_text('; '.join(d['reasons']))} |"
        )
    return "\n".join(lines) + "\n"


def _separate(fit: dict[str, Any]) -> str:
    lines = fit.get("separate") or []
    if not lines:
        return "—"
    slopes = ", ".join(f"{x['slope']:.3f}" for x in lines)
    r2 = ", ".join(f"{x['r2']:.3f}" for x in lines)
    return f"{slopes}; {r2}"


def correlate_markdown(result: dict[str, Any]) -> str:
    lines = [
        f"# ID–OOD {result.get('metric', 'accuracy')} relation",
        "",
        "Shapes (line, hinge: two joined segments of one slope sign, vee: opposite signs) chosen by BIC, then "
        "named by BOSS: Type I an increasing line, Type II increasing and accelerating after the turning "
        "point, Type III a V (decreasing, then increasing); anything else is none of the three. A type is named "
        f"only from {MIN_POINTS} or more points whose fit establishes every sign it rests on (95% t-intervals that "
        "exclude 0); otherwise the relation is undecided. Beside the joined fit's r² per segment, BOSS's separate "
        "fits: a line through the points on each side of the turning point.",
        "",
        "| group | points | type | why | turning point | slopes | r² (whole, or per segment) | separate lines: "
        "slopes, r² | BIC line / hinge / vee |",
        "|---|---:|---|---|---:|---|---|---|---|",
    ]
    for group, rel in result["groups"].items():
        chosen = rel["chosen"]
        bics = " / ".join(
            f"{rel['candidates'][k]['bic']:.1f}" if k in rel["candidates"] else "—" for k in ("line", "hinge", "vee")
        )
        turning = "" if chosen["turning_point"] is None else f"{chosen['turning_point']:.3f}"
        lines.append(
            f"| {markdown_text(group)} | {rel['n']} | {rel['type']} | {rel['reason']} | {turning} | "
            f"{', '.join(f'{s:.3f}' for s in chosen['slopes'])} | "
            f"{', '.join(f'{r:.3f}' for r in chosen['r2'])} | {_separate(chosen)} | {bics} |"
        )
    return "\n".join(lines) + "\n"
