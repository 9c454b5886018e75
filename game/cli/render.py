"""``skirmish render``: draw a scenario (optionally a few AI decisions in) to a PNG, headless.

Contract (DESIGN §4, issue 7):

- ``skirmish render SCENARIO --out FILE.png [--ruleset R] [--from ID] [--target ID]
  [--overlays LIST] [--size WxH] [--seed N] [--steps N] [--until KIND] [--red P] [--blue P]``
  draws exactly what
  the window (``skirmish play``) would show: map, units, panel and the chosen overlays
  (comma-separated names from :data:`game.render.ui.OVERLAYS`, or ``all`` / ``none``;
  default: every overlay but ``threat``). ``--from`` is the unit whose point of view the
  overlays use (default: the unit whose decision is pending), ``--target`` an enemy to inspect
  (sight line, silhouette, odds). ``--steps N`` first lets the scenario's AI controllers take
  N decisions (a :class:`game.tools.session.Session` playing them, seeded by ``--seed``
  through the match's AI generator; ``--red`` / ``--blue`` name other policies for the
  first / second side); ``--until KIND`` keeps
  going until a decision of that kind (``turn``, ``defence``, ``dodge_move``, ``follow``,
  ``interpose``) is pending, which shows reaction regions such as a retreat or a dodge disc.
- ``--true-scale --dpi N`` draws the table at exactly N pixels per table inch (the picture is as
  large as the table needs, plus the panel) and writes N dpi into the PNG (``pHYs``), so one
  table inch prints as one inch: a printable battle map. ``--dpi`` is 10 .. 200; ``--size`` is
  then ignored; the picture must be a ``.png`` (the one format that carries its dpi).
- Runs with ``SDL_VIDEODRIVER=dummy`` (no window). The picture is written in the format its
  extension names: ``.png``, ``.jpg``/``.jpeg`` (JPEG) or ``.bmp``
  (:func:`game.cli.params.picture_format`); any other extension is refused before anything is
  drawn. It is written atomically: a temp file in the target folder renamed over ``FILE``
  (nothing half-written on failure), with the usual permissions (0666 minus the umask).
  Prints ``wrote FILE (W x H)``.
- ``--animate FILE.gif`` (or ``.mp4``) draws the whole battle instead, a frame per command or
  reaction with the overlays of the moment and a caption in words (odds and rolls):
  :mod:`game.render.animate`. SCENARIO is a scenario (the battle is played first by its AI
  controllers, ``--red`` / ``--blue`` / ``--ruleset`` / ``--seed`` as for a still picture) or a
  recorded battle ``LOG.jsonl`` (its scenario, ruleset, seed and commands come from the log, so
  those options are refused with it). ``--fps`` (default 1) sets the pace, ``--max-frames``
  (default 240) bounds the frames (commands past it are played without a frame; the end frame
  still shows the end); ``--overlays`` and ``--size`` apply, ``--out``, ``--from``, ``--target``,
  ``--steps``, ``--until`` and ``--true-scale`` do not. tqdm bars on stderr count the commands
  played and the frames drawn;
  prints ``wrote FILE (N frames, W x H, K KB)``. An ``.mp4`` without an ffmpeg binary
  (``pip install imageio-ffmpeg``) exits 2 saying so, before anything is drawn.
- Exactly one of ``--out`` and ``--animate`` is given.
- Bad input (missing or invalid scenario, unknown ruleset, policy, unit, overlay or decision
  kind, a malformed size, a negative seed, an ``--out`` extension that is no picture format, a
  battle that ends before ``--until`` is met, an unwritable ``--out``, plain pygame instead of
  pygame-ce) exits 2 with one line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from game.cli.params import POLICY, SEED, UNIT_ID, FiniteRange, picture_format

if TYPE_CHECKING:
    from components.specs import ScenarioSpec
    from game.tools.session import Session

#: Decisions ``--until`` may wait for.
DECISION_KINDS = ("turn", "defence", "dodge_move", "follow", "interpose", "protection")
#: Give up waiting for ``--until`` after this many AI decisions.
MAX_UNTIL_STEPS = 5000
DEFAULT_SIZE = "1280x800"
_SIZE = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x800"`` -> (1280, 800); at least 640 x 420, at most 8192 on a side."""
    m = _SIZE.match(text)
    if not m:
        raise click.BadParameter(f"{text!r} is not WIDTHxHEIGHT (e.g. 1280x800)", param_hint="--size")
    w, h = int(m.group(1)), int(m.group(2))
    if not (640 <= w <= 8192 and 420 <= h <= 8192):
        raise click.BadParameter(f"{w}x{h} is outside 640x420 .. 8192x8192", param_hint="--size")
    return w, h


#: Pixels of table edge around a true-scale map.
TRUE_SCALE_MARGIN_PX = 24


def true_scale_size(width: float, height: float, dpi: int) -> tuple[int, int]:
    """Picture size that holds a ``width`` x ``height`` inch table at ``dpi`` pixels per inch
    beside the panel."""
    import math

    from game.render.panel import PANEL_W

    w = math.ceil(width * dpi) + 2 * TRUE_SCALE_MARGIN_PX + PANEL_W
    h = max(420, math.ceil(height * dpi) + 2 * TRUE_SCALE_MARGIN_PX)
    if w > 20_000 or h > 20_000:
        raise click.BadParameter(
            f"a {width:g} x {height:g} in table at {dpi} dpi is {w} x {h} px (over 20000)", param_hint="--dpi"
        )
    return w, h


def pin_true_scale(renderer: object, dpi: int) -> None:
    """Set the renderer's camera to exactly ``dpi`` pixels per table inch, the table's corner
    :data:`TRUE_SCALE_MARGIN_PX` inside the map area."""
    cam = renderer.camera  # type: ignore[attr-defined]
    cam.scale = float(dpi)
    cam.origin_x = -TRUE_SCALE_MARGIN_PX / float(dpi)
    cam.origin_y = -TRUE_SCALE_MARGIN_PX / float(dpi)


def parse_overlays(text: str | None) -> set[str]:
    """Overlay names from ``--overlays`` (``all``, ``none`` or a comma list)."""
    from game.render.ui import DEFAULT_OVERLAYS, OVERLAYS

    if text is None:
        return set(DEFAULT_OVERLAYS)
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["all"]:
        return set(OVERLAYS)
    if names == ["none"]:
        return {"grid"}
    bad = [n for n in names if n not in OVERLAYS]
    if bad:
        raise click.BadParameter(
            f"unknown overlay {bad[0]!r}; choose from {', '.join(OVERLAYS)} (or all / none)",
            param_hint="--overlays",
        )
    return set(names)


def advance(session: Session, steps: int, until: str | None) -> int:
    """Let the AI players take ``steps`` decisions, then play on until a ``until`` decision is
    pending; returns the decisions taken.

    Raises:
        click.ClickException: no such decision came up (the match ended, a human's decision
            came up or :data:`MAX_UNTIL_STEPS` more decisions were taken).
    """
    before = session.applied
    session.play(steps=steps)
    if until is not None:

        def waiting(s: Session) -> bool:
            d = s.match.pending
            return d is not None and d.kind == until

        session.play(steps=MAX_UNTIL_STEPS, until=waiting)
        if not waiting(session):
            raise click.ClickException(
                f"no {until} decision came up within {session.applied - before} AI decisions "
                f"(seed {session.match.seed}); try another --seed"
            )
    return session.applied - before


#: Options a still picture takes and an animation does not.
STILL_ONLY = ("out", "from_id", "target", "steps", "until", "true_scale", "dpi")
#: Options a recorded battle fixes: refused with a log.
FIXED_BY_LOG = ("ruleset", "seed", "red", "blue")


def is_log(path: Path) -> bool:
    """Whether SCENARIO names a recorded battle (a ``.jsonl`` event log)."""
    return path.suffix.lower() == ".jsonl"


def _given(ctx: click.Context, name: str) -> bool:
    return ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)


def _flag(name: str) -> str:
    return {"from_id": "--from"}.get(name, "--" + name.replace("_", "-"))


@click.command("render")
@click.argument("scenario", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "out",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Picture to write: .png, .jpg or .bmp.",
)
@click.option(
    "--animate",
    "animate_to",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Animate the whole battle instead: a .gif (or .mp4), a frame per command.",
)
@click.option(
    "--fps",
    type=FiniteRange(0.1, 30.0),
    default=1.0,
    show_default=True,
    help="Frames per second of --animate.",
)
@click.option(
    "--max-frames",
    type=click.IntRange(2, 100_000),
    default=240,
    show_default=True,
    help="Most frames --animate draws (later commands are played without a frame).",
)
@click.option("--ruleset", default=None, help="Ruleset to use instead of the scenario's.")
@click.option(
    "--from", "from_id", default=None, type=UNIT_ID, help="Unit whose point of view the overlays show."
)
@click.option("--target", default=None, type=UNIT_ID, help="Enemy to inspect (sight line, silhouette, odds).")
@click.option("--overlays", default=None, help="Comma-separated overlays, 'all' or 'none'.")
@click.option("--size", default=DEFAULT_SIZE, show_default=True, help="Picture size WIDTHxHEIGHT.")
@click.option("--seed", default=0, show_default=True, type=SEED, help="Match seed (dice and AI).")
@click.option(
    "--steps", default=0, show_default=True, type=click.IntRange(0, 100_000), help="AI decisions first."
)
@click.option("--until", type=click.Choice(DECISION_KINDS), default=None, help="Play on until this decision.")
@click.option(
    "--red",
    default=None,
    type=POLICY,
    help="AI policy (or FILE.py:FUNCTION) of the first side for --steps/--until [default: the scenario's].",
)
@click.option(
    "--blue", default=None, type=POLICY, help="AI policy of the second side [default: the scenario's]."
)
@click.option("--true-scale", is_flag=True, help="One table inch = one printed inch (with --dpi).")
@click.option(
    "--dpi",
    type=click.IntRange(10, 200),
    default=100,
    show_default=True,
    help="Pixels per inch for --true-scale.",
)
@click.pass_context
def render(
    ctx: click.Context,
    scenario: Path,
    out: Path | None,
    animate_to: Path | None,
    fps: float,
    max_frames: int,
    ruleset: str | None,
    from_id: str | None,
    target: str | None,
    overlays: str | None,
    size: str,
    seed: int,
    steps: int,
    until: str | None,
    red: str | None,
    blue: str | None,
    true_scale: bool,
    dpi: int,
) -> None:
    """Draw SCENARIO as the window shows it, to a picture file (PNG, JPEG or BMP by its extension),
    or animate a whole battle (SCENARIO or a recorded LOG.jsonl) with --animate."""
    from game.render.png import init_headless

    if (out is None) == (animate_to is None):
        raise click.UsageError("give one of --out (a picture) and --animate (the whole battle)")
    if animate_to is not None:
        wrong = next((n for n in STILL_ONLY if _given(ctx, n)), None)
        if wrong is not None:
            raise click.BadParameter("does not apply to --animate", param_hint=_flag(wrong))
        if is_log(scenario):
            fixed = next((n for n in FIXED_BY_LOG if _given(ctx, n)), None)
            if fixed is not None:
                raise click.BadParameter(
                    f"{scenario} is a recorded battle: its {fixed} comes from the log",
                    param_hint=_flag(fixed),
                )
        _animate(
            scenario,
            animate_to,
            fps,
            max_frames,
            parse_size(size),
            parse_overlays(overlays),
            ruleset,
            seed,
            red,
            blue,
        )
        return
    assert out is not None
    fmt = picture_format(out)
    if true_scale and fmt != "png":
        raise click.BadParameter(
            f"{out}: --true-scale writes its dpi into the picture, which only a .png carries",
            param_hint="--out",
        )
    dims = parse_size(size)
    shown = parse_overlays(overlays)
    init_headless()
    from game.ai import policy_names
    from game.core.errors import UnknownName
    from game.render.png import draw_frame, write_png
    from game.render.renderer import Renderer
    from game.render.ui import UiState
    from game.scenario import load_scenario
    from game.tools.session import Session, Setup

    spec = load_scenario(scenario, ruleset, policies=policy_names())
    controllers = dict(spec.controllers)
    for side, name in zip(spec.sides[:2], (red, blue)):
        if name is not None:
            controllers[side] = name
    setup = Setup(ruleset=ruleset, seed=seed, controllers=controllers)
    with Session.start(spec, setup, players=controllers) as session:
        ids = [u.id for u in spec.units]
        for name, uid in (("--from", from_id), ("--target", target)):
            if uid is not None and uid not in ids:
                raise UnknownName(f"{name}: no unit {uid!r} in {scenario}; units are {', '.join(ids)}")
        advance(session, steps, until)
        ui = UiState(overlays=shown, selected=from_id, target=target)
        if true_scale:
            dims = true_scale_size(spec.width, spec.height, dpi)
        renderer = Renderer(session.view, dims)
        if true_scale:
            pin_true_scale(renderer, dpi)
        surface = draw_frame(renderer, ui, humans=spec.sides, controllers=dict(session.match.controllers))
        try:
            write_png(surface, out, dpi=dpi if true_scale else None, fmt=fmt)
        except OSError as e:
            raise click.ClickException(f"cannot write {out}: {e.strerror or e}") from None
    scale = f", {dpi} dpi: 1 table inch = 1 printed inch" if true_scale else ""
    click.echo(f"wrote {out} ({dims[0]} x {dims[1]}{scale})")


def _animate(
    source: Path,
    out: Path,
    fps: float,
    max_frames: int,
    dims: tuple[int, int],
    shown: set[str],
    ruleset: str | None,
    seed: int,
    red: str | None,
    blue: str | None,
) -> None:
    """``--animate``: the battle of a log, or one played now on a scenario, to ``out``."""
    from game.render.animate import animate, animation_format, require_writer
    from game.render.png import init_headless

    require_writer(animation_format(out))  # a missing writer says so before any battle is played
    init_headless()
    if is_log(source):
        from game.tools.replay import load

        events, spec = load(source, None)
    else:
        spec, events = _play(source, ruleset, seed, red, blue)
    try:
        done = animate(spec, events, out, fps=fps, max_frames=max_frames, size=dims, overlays=shown)
    except OSError as e:
        raise click.ClickException(f"cannot write {out}: {e.strerror or e}") from None
    if done.drawn_commands < done.commands:
        click.echo(
            f"note: frames for the first {done.drawn_commands} of {done.commands} commands "
            f"(--max-frames {max_frames}); the last frame shows the end",
            err=True,
        )
    w, h = done.size
    click.echo(f"wrote {out} ({done.frames} frames, {w} x {h}, {round(done.bytes / 1024)} KB)")


def _play(
    scenario: Path, ruleset: str | None, seed: int, red: str | None, blue: str | None
) -> tuple[ScenarioSpec, list[dict[str, Any]]]:
    """Play the battle on ``scenario`` with its AI controllers (``--red`` / ``--blue`` replacing
    them); returns its spec and event log."""
    from tqdm import tqdm

    from game.ai import policy_names
    from game.scenario import load_scenario
    from game.tools.session import Session, Setup

    spec = load_scenario(scenario, ruleset, policies=policy_names())
    controllers = dict(spec.controllers)
    for side, name in zip(spec.sides[:2], (red, blue)):
        if name is not None:
            controllers[side] = name
    with (
        Session.start(
            spec, Setup(ruleset=ruleset, seed=seed, controllers=controllers), players=controllers
        ) as session,
        tqdm(desc="playing", unit="command", file=sys.stderr) as bar,
    ):
        session.play(after=lambda _: bar.update())
        return spec, list(session.match.log.events)
