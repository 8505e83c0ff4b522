"""A split's Hugging Face dataset as the hub holds one, and its upload.

``export hf --push-to-hub REPO`` writes, inside the export folder, ``hub/``: one Parquet file
per part under ``data/`` and a ``README.md`` whose card is tailsplit's (description, licence,
citation, provenance) with the ``configs`` and ``dataset_info`` metadata ``datasets``
reads back — the features, ``ClassLabel`` names in order included. That folder is uploaded in
one commit (``HfApi.upload_folder``); ``load_dataset(REPO)`` then gives the same
``DatasetDict`` and the hub shows the card. ``datasets``' own ``push_to_hub`` would rebuild
the card from the hub repository and drop tailsplit's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tailsplit.errors import ConfigError, OutputError

HUB_FOLDER = "hub"


def check_repo_id(repo_id: str, flag: str = "--push-to-hub") -> str:
    """``OWNER/NAME`` or ``NAME`` as the hub accepts it (given with ``flag``); refused before any work."""
    try:
        from huggingface_hub.utils import HFValidationError, validate_repo_id
    except ImportError:  # the hf extra is checked by the export itself
        return repo_id
    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise ConfigError(f"{flag} {repo_id!r} is not a hub repository id ({exc}); give OWNER/NAME") from None
    return repo_id


def write_hub_folder(folder: Path, dataset_dict: Any, card_text: str) -> None:
    """``folder``/data/<part>-00000-of-00001.parquet and ``folder``/README.md (card + metadata)."""
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCard

    files = {}
    for part, dataset in dataset_dict.items():
        name = f"data/{part}-00000-of-00001.parquet"
        (folder / "data").mkdir(parents=True, exist_ok=True)
        dataset.to_parquet(str(folder / name))
        files[part] = name
    card = DatasetCard(card_text)
    card.data["configs"] = [
        {"config_name": "default", "data_files": [{"split": part, "path": path} for part, path in files.items()]}
    ]
    info = next(iter(dataset_dict.values())).info.copy()
    info.splits = None
    DatasetInfosDict({"default": info}).to_dataset_card_data(card.data)
    card.save(str(folder / "README.md"))


def push_hub_folder(folder: Path, repo_id: str, message: str) -> str:
    """Upload ``folder`` to the dataset repository ``repo_id`` (created if absent); its URL."""
    from huggingface_hub import HfApi

    api = HfApi()
    try:
        api.create_repo(repo_id, repo_type="dataset", exist_ok=True)
        commit = api.upload_folder(
            repo_id=repo_id, folder_path=str(folder), repo_type="dataset", commit_message=message
        )
    except Exception as exc:  # network, authentication, permissions: one line, the export stays
        raise OutputError(
            f"--push-to-hub {repo_id!r} failed ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
            f"the export is complete in {folder.parent}; log in (hf auth login) and upload {folder} with "
            f"hf upload {repo_id} {folder} --repo-type dataset"
        ) from None
    return str(getattr(commit, "repo_url", "") or f"https://huggingface.co/datasets/{repo_id}")
