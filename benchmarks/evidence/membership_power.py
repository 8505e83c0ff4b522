"""How well the membership scores tell members from non-members, measured where the members are
known: the bundled LM fine-tuned (tailsplit's k-fold fine-tuning, LoRA, best checkpoint by
held-out perplexity) on one half of the bundled SNLI sample's distinct hypotheses, the other half
never seen. For each score (``--membership-k``'s four columns), the AUC of members against
non-members and the TPR at 5 % FPR, each with a 95 % bootstrap interval (members and
non-members resampled apart); the same for the base model, where neither half was trained on
here (a control: near 0.5 unless the base model saw one half more than the other). The table is
the one ``score --members --non-members`` prints (``tailsplit.scoring.membership_calibration``).
A higher ``--learning-rate`` over fewer ``--members`` makes a model that memorises them.

The members are the texts the model trained on: the fine-tuning's held-out tenth (which picks
the checkpoint) is left out of both sides.

    python -m benchmarks.evidence.membership_power --members 1000 --steps 200 --json benchmarks/results/membership_power.json
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.harness import parser, sample_rows, write_results


def main() -> None:
    from tailsplit.rng import FINETUNE_HELDOUT, seeded_rng
    from tailsplit.scoring.base import ScoreRequest
    from tailsplit.scoring.driver import score_requests
    from tailsplit.scoring.finetune import FinetuneConfig
    from tailsplit.scoring.hf import HFScorer
    from tailsplit.scoring.kfold import FinetunedScorer
    from tailsplit.scoring.membership import membership_scores
    from tailsplit.scoring.membership_calibration import calibration_table

    made = parser(__doc__)
    made.add_argument("--members", type=int, default=1000, help="texts fine-tuned on (the same number never seen)")
    made.add_argument("--steps", type=int, default=200, help="fine-tuning steps (batch 16, LoRA rank 16)")
    made.add_argument("--k", type=float, default=20.0, help="Min-K%%'s k, a percent")
    made.add_argument("--learning-rate", type=float, default=1e-4, help="LoRA learning rate (higher: memorises)")
    made.add_argument("--seed", type=int, default=0)
    args = made.parse_args()

    texts = list(dict.fromkeys(row["hypothesis"] for row in sample_rows()))
    order = np.random.default_rng(args.seed).permutation(len(texts))
    chosen = [texts[i] for i in order[: 2 * args.members]]
    members, others = chosen[: args.members], chosen[args.members :]
    config = FinetuneConfig(
        max_steps=args.steps,
        batch_size=16,
        learning_rate=args.learning_rate,
        eval_every=max(args.steps // 10, 1),
        seed=args.seed,
    )
    n_heldout = max(1, int(round(config.heldout_fraction * len(members))))  # as fine-tuning draws them
    heldout = set(seeded_rng(config.seed, FINETUNE_HELDOUT).permutation(len(members))[:n_heldout].tolist())
    trained = [t for i, t in enumerate(members) if i not in heldout]

    base = HFScorer(device="cpu", head_moments=True)
    tuned = FinetunedScorer(base, [ScoreRequest("", t) for t in members], "membership-power", config)
    texts_scored = trained + others
    is_member = np.array([True] * len(trained) + [False] * len(others))
    results: dict[str, Any] = {
        "members_trained": len(trained), "non_members": len(others), "heldout_left_out": len(heldout),
        "k_percent": args.k, "finetune": config.as_dict(),
    }  # fmt: skip
    for name, scorer in (("fine_tuned", tuned), ("base", base)):
        scored = score_requests([ScoreRequest("", t) for t in texts_scored], scorer, None, moments=True)
        values = membership_scores(texts_scored, scored.token_logprobs, args.k / 100, scored.token_moments)
        results[name] = calibration_table(values, is_member, seed=args.seed)["scores"]  # as --members gives it
        print(name, {score: row["auc"]["value"] for score, row in results[name].items()})
    if tuned.curve is not None:
        results["training"] = {"chosen_step": tuned.curve.chosen_step, "seconds": tuned.curve.seconds}
    if args.json:
        write_results(args.json, results)


if __name__ == "__main__":
    main()
