"""Encoder baseline speed: tailsplit's CPU recipe against a plain Hugging Face ``Trainer`` loop.

Both fine-tune the bundled all-MiniLM-L6-v2 as a cross-encoder on the same SNLI pairs (premise,
hypothesis) for the same number of steps of 32 pairs, from the same seed, then predict the same
test pairs. The plain loop is what a user would write first: ``Trainer`` with
``DataCollatorWithPadding`` (each batch padded to its longest pair, examples in random order),
prediction with ``Trainer.predict`` at batch 32. tailsplit's loop draws batches from length-sorted
chunks and predicts length-sorted in batches of about 16k tokens under ``inference_mode``.

    python -m benchmarks.speed.bench_encoder --data ../shared/data/snli/dev.jsonl.gz --steps 40 --test 1000

Prints examples per second (training and inference) and the ratios, and each loop's test
accuracy after those steps.
"""

from __future__ import annotations

import gzip
import json
import time

import numpy as np

from benchmarks import harness
from benchmarks.harness import write_results


def read_pairs(path: str, n: int, offset: int = 0) -> tuple[list[list[str]], list[str]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle][offset : offset + n]
    return [[r["premise"] for r in rows], [r["hypothesis"] for r in rows]], [r["label"] for r in rows]


def plain_trainer(
    location: str,
    train: list[list[str]],
    y_train: list[int],
    test: list[list[str]],
    y_test: list[int],
    steps: int,
    seed: int,
    out_dir: str,
) -> tuple[float, float, float]:
    import torch
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        DataCollatorWithPadding,
        Trainer,
        TrainingArguments,
    )

    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(location)
    model = AutoModelForSequenceClassification.from_pretrained(location, num_labels=3)

    def dataset(columns: list[list[str]], labels: list[int]) -> list[dict]:
        encoded = tokenizer(columns[0], columns[1], truncation=True, max_length=256)
        return [{**{k: encoded[k][i] for k in encoded}, "labels": labels[i]} for i in range(len(labels))]

    args = TrainingArguments(
        output_dir=out_dir,
        per_device_train_batch_size=32,
        per_device_eval_batch_size=32,
        max_steps=steps,
        learning_rate=1e-4,
        warmup_steps=int(0.1 * steps),
        weight_decay=0.01,
        seed=seed,
        report_to=[],
        save_strategy="no",
        logging_strategy="no",
        use_cpu=True,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    trainer = Trainer(
        model=model, args=args, train_dataset=dataset(train, y_train), data_collator=DataCollatorWithPadding(tokenizer)
    )
    started = time.perf_counter()
    trainer.train()
    train_rate = steps * 32 / (time.perf_counter() - started)
    test_set = dataset(test, y_test)
    started = time.perf_counter()
    predicted = trainer.predict(test_set).predictions.argmax(axis=-1)
    infer_rate = len(test_set) / (time.perf_counter() - started)
    return train_rate, infer_rate, float(np.mean(predicted == np.asarray(y_test)))


def tailsplit_loop(
    location: str,
    train: list[list[str]],
    y_train: list[int],
    test: list[list[str]],
    y_test: list[int],
    steps: int,
    seed: int,
) -> tuple[float, float, float]:
    from tailsplit.evaluation.encoder import EncoderRecipe, PairClassifier

    recipe = EncoderRecipe(max_steps=steps, eval_every=steps, seed=seed)
    classifier = PairClassifier(location, ["0", "1", "2"], recipe, "cpu")
    train_rows = classifier.encode(train, recipe.max_length)
    test_rows = classifier.encode(test, recipe.max_length)
    dev_rows = test_rows[:32]  # the one end-of-training dev check, kept tiny
    _, _, _, train_rate = classifier.fit(train_rows, np.asarray(y_train), dev_rows, np.asarray(y_test[:32]))
    started = time.perf_counter()
    predicted = classifier.predict(test_rows)
    infer_rate = len(test_rows) / (time.perf_counter() - started)
    return train_rate, infer_rate, float(np.mean(predicted == np.asarray(y_test)))


def main() -> None:
    import tempfile

    from tailsplit.evaluation.encoder import default_encoder_location

    parser = harness.parser(__doc__, "write the rates and ratios to this results file")
    parser.add_argument("--data", default="../shared/data/snli/dev.jsonl.gz")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--test", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    location = default_encoder_location()
    train, train_labels = read_pairs(args.data, args.steps * 32)
    test, test_labels = read_pairs(args.data, args.test, offset=args.steps * 32)
    names = sorted(set(train_labels))
    y_train = [names.index(v) for v in train_labels]
    y_test = [names.index(v) if v in names else -1 for v in test_labels]
    with tempfile.TemporaryDirectory() as out_dir:
        plain = plain_trainer(location, train, y_train, test, y_test, args.steps, args.seed, out_dir)
    ours = tailsplit_loop(location, train, y_train, test, y_test, args.steps, args.seed)
    print(f"{args.steps} steps × 32 pairs, {len(test[0])} test pairs, {args.data}")
    print(f"{'loop':<22}{'train ex/s':>12}{'infer ex/s':>12}{'test acc':>10}")
    for name, (train_rate, infer_rate, accuracy) in (("plain HF Trainer", plain), ("tailsplit recipe", ours)):
        print(f"{name:<22}{train_rate:>12.1f}{infer_rate:>12.1f}{100 * accuracy:>9.1f}%")
    print(f"ratio (tailsplit / Trainer): training {ours[0] / plain[0]:.2f}×, inference {ours[1] / plain[1]:.2f}×")
    if args.json:
        loops = {"trainer": plain, "tailsplit": ours}
        write_results(
            args.json,
            {
                "steps": args.steps,
                "batch": 32,
                "test": len(test[0]),
                **{name: {"train_per_s": round(r[0], 1), "infer_per_s": round(r[1], 1), "test_accuracy": round(r[2], 4)}
                   for name, r in loops.items()},
                "train_speedup": round(ours[0] / plain[0], 2),
                "infer_speedup": round(ours[1] / plain[1], 2),
            },
        )  # fmt: skip


if __name__ == "__main__":
    main()
