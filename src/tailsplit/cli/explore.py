"""``explore``: every example of one or more split folders in one page."""

from __future__ import annotations

from tailsplit.cli.app import app, show, typed_command
from tailsplit.cli.declared import Given, declared_options
from tailsplit.config import ExploreConfig
from tailsplit.errors import ConfigError
from tailsplit.pipeline.explore import explore_config

EXPLORE_EXAMPLES = """
**Examples**

One split, its tokens shaded (scored with --token-scores), a baseline's predictions beside each example:

    tailsplit run snli.jsonl.gz --text hypothesis --context premise --label label --template snli --token-scores --out snli-ll
    tailsplit evaluate snli-ll snli-random-0 --out snli-eval
    tailsplit explore snli-ll --predictions snli-eval/predictions.jsonl --out snli-ll-explorer

Two splits of the same data side by side (which examples each puts in test, and their overlap):

    tailsplit explore snli-ll snli-length --out snli-explorer
"""


@app.command(epilog=EXPLORE_EXAMPLES)
@declared_options(ExploreConfig)
def explore(given: Given) -> None:
    """Write a page of every example of the splits: search, sort, filter, tokens shaded by likelihood."""

    settings = given.command_config(ExploreConfig)
    if settings.out is None:
        raise ConfigError("--out is required: the folder to write explorer.html into")
    show(explore_config(settings, command=typed_command()))
