"""The ``skipstone`` command line: index datasets, inspect and optimize managed tables, and draw them.

    skipstone index /data/weather minmax:ts valuelist:city bloomfilter:station:fpp=0.01
    skipstone stats "SELECT count(*) FROM parquet.`/data/weather` WHERE ts < '2024-02-01'"
    skipstone plot blocks /data/events --x a --y b --where "a < 5000" --out blocks.png

See docs/cli.md; every command has ``--help``.
"""
from __future__ import annotations

from skipstone.cli.app import app, main

__all__ = ["app", "main"]
