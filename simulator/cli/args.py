"""Argument types shared by the subcommands, so a value is checked the same way everywhere
and a bad one is argparse's usage line plus one error line, exit status 2."""

from __future__ import annotations

import argparse


def seed(text: str) -> int:
    """A `--seed`: a whole number of 0 or more (numpy's generators refuse negative seeds, which
    gave a traceback from `throw`, `play` and `render`)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number (got {text[:40]!r})") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more (got {value})")
    return value
