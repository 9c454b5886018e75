"""``skirmish warmup``: compile the geometry and path kernels now, once per installation.

Contract: compiles (or, when cached, loads) every numba kernel by :func:`game.tools.warmup.warm`
and prints one line: how many kernels were compiled and in how long, and where their machine
code is cached; or that they were loaded from the cache. Before compiling, the line of
:mod:`game.core.compiled` says so on stderr. ``make demo`` and ``make test`` run it after
installing, so the first battle does not sit silent while the kernels compile. Exit 0.
"""

from __future__ import annotations

import click


@click.command("warmup")
def warmup() -> None:
    """Compile the geometry and path kernels now (once), instead of in the first battle."""
    from game.tools.warmup import warm

    click.echo(str(warm()))
