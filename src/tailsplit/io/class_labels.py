"""Hugging Face ``ClassLabel`` columns: their label names, and records with the integers
written as names (read from datasets in memory and from ``save_to_disk`` folders alike)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def class_label_names(features: Mapping[str, Any]) -> dict[str, list[str]]:
    """Label names of each top-level ``ClassLabel`` column of Hugging Face ``features``
    (objects, or their JSON form in a ``save_to_disk`` folder's ``dataset_info.json``)."""
    names = {}
    for column, feature in features.items():
        if isinstance(feature, Mapping):
            if feature.get("_type") == "ClassLabel" and feature.get("names"):
                names[column] = list(feature["names"])
        elif type(feature).__name__ == "ClassLabel":
            names[column] = list(feature.names)
    return names


def decode_class_labels(record: dict[str, Any], names: Mapping[str, list[str]]) -> dict[str, Any]:
    """``record`` with ClassLabel integers as their names; a negative value (SNLI's -1, "no
    gold label") becomes ``None`` so that it is reported as an empty label."""
    for column, labels in names.items():
        value = record.get(column)
        if isinstance(value, int) and not isinstance(value, bool):
            record[column] = labels[value] if 0 <= value < len(labels) else None
    return record
