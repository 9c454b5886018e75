"""Every ``skirmish`` command in README.md and docs/**/*.md runs as written (issue 15).

The commands are read from the Markdown itself, so a document cannot drift from the program:

- in fenced blocks, every line starting with ``skirmish`` or ``.venv/bin/skirmish`` (after an
  optional ``$`` prompt), joined with the lines its trailing backslashes continue to;
- inline code spans starting with ``skirmish`` that carry arguments (``skirmish check`` or
  ``skirmish odds aff`` in a sentence names a command, it is not one to run).

Not run: ``play`` and ``edit`` (a window waits for a person), ``--view``, a command marked
``# interactive``, and synopses, i.e. spans or lines with placeholders (``SCENARIO``,
``FILE.png``, ``<host>``, ``[--json]``, ``...``). A command marked ``# exits N`` must exit
with status N, every other with 0. In a ``$``-prompt block the lines after a command are its
output as the document shows it: each must appear, in that order, in what the command prints
(``...`` stands for lines left out).

Each document's commands run in document order in one fresh folder prepared as the documents
assume: the shipped ``scenarios/`` copied in, the fixtures of ``tests/docs_fixtures/`` (e.g.
the ``bad.yaml`` of docs/scenario-format.md), and both ``skirmish`` and ``.venv/bin/skirmish``
running this checkout. So a ``replay`` finds the log an earlier ``battle --log`` of the same
document wrote. To stay fast, ``-n N`` is capped at :data:`MAX_BATTLES`, commands that play on
past ``-n`` get the bounds of :data:`BOUNDS`, and each command has a time limit.
The ``examples/`` folder (user policies to copy) is copied in beside ``scenarios/``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "docs_fixtures"
DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
#: ``-n`` above this is lowered to it (enough for the seeds the documents replay).
MAX_BATTLES = 3
#: Options appended to a subcommand that would otherwise play on past ``-n`` (fairness tops up
#: to a number of decisive battles; a tournament plays every pair on every scenario and ruleset).
BOUNDS = {"fairness": f"--min-decisive 1 --max-battles {MAX_BATTLES}", "tournament": "--round-limit 2"}
#: Seconds one command may take.
TIME_LIMIT = 300
#: Subcommands that wait for a person.
INTERACTIVE = frozenset({"play", "edit"})
PREFIXES = ("skirmish ", ".venv/bin/skirmish ")

_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
_PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]+(\.[a-z]+)?$|[<>\[\]…]|\.\.\.")
_EXITS = re.compile(r"#\s*exits\s+(\d+)\b")


@dataclass(frozen=True)
class DocCommand:
    """A command found in a document, where, and what it must do."""

    source: str
    line: int
    text: str
    inline: bool
    expect: int = 0
    output: tuple[str, ...] | None = None

    def words(self) -> list[str]:
        return shlex.split(self.text, comments=True)

    def skip_reason(self) -> str | None:
        """Why this command is not run, or None."""
        words = self.words()
        sub = words[1] if len(words) > 1 else ""
        if sub in INTERACTIVE or "--view" in words or re.search(r"#\s*interactive\b", self.text):
            return "interactive"
        if any(_PLACEHOLDER.search(w) for w in words[1:]):
            return "a synopsis with placeholders"
        if self.inline and _only_command_names(words[1:]):
            return "names a command"
        return None

    def runnable(self) -> str:
        """The command with ``-n`` capped at :data:`MAX_BATTLES` and :data:`BOUNDS` appended."""
        text = re.sub(r"(?<!\S)-n\s+(\d+)", lambda m: f"-n {min(int(m.group(1)), MAX_BATTLES)}", self.text)
        bounds = BOUNDS.get(self.words()[1] if len(self.words()) > 1 else "")
        if bounds:
            command, _, comment = text.partition(" #")
            text = f"{command.rstrip()} {bounds}" + (f"  #{comment}" if comment else "")
        return text


def _only_command_names(words: list[str]) -> bool:
    """Whether ``words`` are nothing but (sub)command names: ``odds aff`` names a command."""
    import click

    from game.cli import cli

    command: click.Command = cli
    ctx = click.Context(cli)
    for word in words:
        if not isinstance(command, click.Group):
            return False
        sub = command.get_command(ctx, word)
        if sub is None:
            return False
        command = sub
    return True


def _is_command(text: str) -> bool:
    return text.startswith(PREFIXES)


def _expect(text: str) -> int:
    m = _EXITS.search(text)
    return int(m.group(1)) if m else 0


def extract(markdown: str, source: str = "<doc>") -> list[DocCommand]:
    """The commands of a Markdown text, in document order (see the module docstring)."""
    lines = markdown.splitlines()
    found: list[DocCommand] = []
    fenced = False
    prose: list[tuple[int, str]] = []  # (line number, text) outside fences
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            fenced = not fenced
            i += 1
            continue
        if not fenced:
            prose.append((i + 1, line))
            i += 1
            continue
        body = line.strip()
        prompt = body.startswith("$ ")
        if prompt:
            body = body[2:].lstrip()
        if not _is_command(body):
            i += 1
            continue
        start = i + 1
        while body.endswith("\\") and i + 1 < len(lines):
            i += 1
            body = body[:-1].rstrip() + " " + lines[i].strip()
        output: tuple[str, ...] | None = None
        if prompt:
            shown = []
            while i + 1 < len(lines) and not lines[i + 1].strip().startswith("$ "):
                if _FENCE.match(lines[i + 1]):
                    break
                i += 1
                shown.append(lines[i].rstrip())
            output = tuple(shown)
        found.append(DocCommand(source, start, body, False, _expect(body), output))
        i += 1
    # Inline spans: may wrap over lines within a paragraph, never across a blank line.
    text = "\n".join(t for _, t in prose)
    numbers = [n for n, _ in prose]
    for m in _INLINE.finditer(text):
        span = m.group(1)
        if "\n\n" in span:
            continue
        flat = " ".join(span.split())
        if _is_command(flat):
            line_no = numbers[text.count("\n", 0, m.start())]
            found.append(DocCommand(source, line_no, flat, True, _expect(flat)))
    return sorted(found, key=lambda c: c.line)


def _all_commands() -> dict[Path, list[DocCommand]]:
    out = {}
    for doc in DOCS:
        cmds = extract(doc.read_text(), str(doc.relative_to(REPO)))
        if any(c.skip_reason() is None for c in cmds):
            out[doc] = cmds
    return out


COMMANDS = _all_commands()


def _prepare(folder: Path) -> dict[str, str]:
    """The folder the documents assume, and the environment to run their commands in."""
    shutil.copytree(REPO / "scenarios", folder / "scenarios", ignore=shutil.ignore_patterns("__*"))
    shutil.copytree(REPO / "examples", folder / "examples", ignore=shutil.ignore_patterns("__*"))
    if FIXTURES.is_dir():
        shutil.copytree(FIXTURES, folder, dirs_exist_ok=True)
    wrapper = f'#!/bin/sh\nexec "{sys.executable}" -m game "$@"\n'
    for bindir in (folder / "bin", folder / ".venv" / "bin"):
        bindir.mkdir(parents=True)
        script = bindir / "skirmish"
        script.write_text(wrapper)
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    env = dict(os.environ)
    env.update(
        PATH=f"{folder / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(REPO),
        SDL_VIDEODRIVER="dummy",
        SDL_AUDIODRIVER="dummy",
        MPLBACKEND="Agg",
        PYGAME_HIDE_SUPPORT_PROMPT="1",
    )
    return env


def _shows(output: tuple[str, ...], printed: str) -> str | None:
    """None if every shown line appears in order in ``printed``; else the first missing one."""
    lines = [ln.rstrip() for ln in printed.splitlines()]
    pos = 0
    for want in output:
        if want.strip() in ("...", "…", ""):
            continue
        try:
            pos = lines.index(want, pos) + 1
        except ValueError:
            return want
    return None


@pytest.mark.slow
@pytest.mark.parametrize("doc", list(COMMANDS), ids=[str(d.relative_to(REPO)) for d in COMMANDS])
def test_every_command_in_the_document_runs_as_written(doc: Path, tmp_path: Path) -> None:
    env = _prepare(tmp_path)
    failures = []
    for cmd in COMMANDS[doc]:
        if cmd.skip_reason() is not None:
            continue
        try:
            done = subprocess.run(
                ["bash", "-c", cmd.runnable()],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIME_LIMIT,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            failures.append(f"{cmd.source}:{cmd.line}: {cmd.text}\n  took over {TIME_LIMIT} s")
            continue
        printed = done.stdout + done.stderr
        if done.returncode != cmd.expect:
            tail = "\n  ".join(printed.strip().splitlines()[-4:])
            where = f"{cmd.source}:{cmd.line}: {cmd.text}"
            failures.append(f"{where}\n  exit {done.returncode}, expected {cmd.expect}:\n  {tail}")
        elif cmd.output is not None:
            missing = _shows(cmd.output, printed)
            if missing is not None:
                failures.append(
                    f"{cmd.source}:{cmd.line}: {cmd.text}\n  the document shows {missing!r}, "
                    f"the command printed:\n  " + "\n  ".join(printed.strip().splitlines()[:8])
                )
    assert not failures, "\n".join(failures)


# ------------------------------------------------------------------ the extractor itself
SAMPLE = """\
Run `skirmish check scenarios/duel.yaml` first; `skirmish check` names a command and
`skirmish los FILE red-1 blue-2` is a synopsis. A span may wrap: `skirmish battle
scenarios/duel.yaml -n 500 --log out/logs`.

```sh
skirmish render scenarios/duel.yaml --from vasco \\
    --out duel.png
.venv/bin/skirmish play scenarios/duel.yaml     # you are red
skirmish battle scenarios/duel.yaml --seed 3 --option nope=1   # exits 2
out/logs/battle-1.jsonl: OK (output, not a command)
```

```
$ skirmish check scenarios/*.yaml
ok: scenarios/duel.yaml (2 units, 2 obstacles, ruleset aff)
...
$ skirmish replay LOG --view
```
"""


def test_extract_finds_fenced_prompted_and_inline_commands_in_order() -> None:
    cmds = extract(SAMPLE)
    assert [(c.line, c.text) for c in cmds] == [
        (1, "skirmish check scenarios/duel.yaml"),
        (1, "skirmish check"),
        (2, "skirmish los FILE red-1 blue-2"),
        (2, "skirmish battle scenarios/duel.yaml -n 500 --log out/logs"),
        (6, "skirmish render scenarios/duel.yaml --from vasco --out duel.png"),
        (8, ".venv/bin/skirmish play scenarios/duel.yaml     # you are red"),
        (9, "skirmish battle scenarios/duel.yaml --seed 3 --option nope=1   # exits 2"),
        (14, "skirmish check scenarios/*.yaml"),
        (17, "skirmish replay LOG --view"),
    ]
    by_line = {(c.line, c.text.split()[1]): c for c in cmds}
    assert by_line[(9, "battle")].expect == 2
    assert by_line[(14, "check")].output == (
        "ok: scenarios/duel.yaml (2 units, 2 obstacles, ruleset aff)",
        "...",
    )
    reasons = [c.skip_reason() for c in cmds]
    assert reasons == [
        None,
        "names a command",
        "a synopsis with placeholders",
        None,
        None,
        "interactive",
        None,
        None,
        "interactive",
    ]
    assert cmds[3].runnable() == f"skirmish battle scenarios/duel.yaml -n {MAX_BATTLES} --log out/logs"


def test_shown_output_must_appear_in_order() -> None:
    printed = "ok: a\nok: b\nok: c\n"
    assert _shows(("ok: a", "...", "ok: c"), printed) is None
    assert _shows(("ok: c", "ok: a"), printed) == "ok: a"


def test_the_documents_have_commands_to_run() -> None:
    runnable = [c for cmds in COMMANDS.values() for c in cmds if c.skip_reason() is None]
    assert len(runnable) >= 20
    assert {"README.md", "docs/batch.md", "docs/window.md"} <= {str(d.relative_to(REPO)) for d in COMMANDS}
