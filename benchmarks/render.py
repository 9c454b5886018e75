"""Benchmark: one frame of the window with every overlay on, 64x64" map, 40 units, headless.

Run: ``.venv/bin/python benchmarks/render.py [--frames N] [--size WxH] [--seed S] [--ruleset R]
[--scenario FILE]``. ``--scenario`` draws a shipped scenario instead of the random map (e.g.
``scenarios/village-battle.yaml``, 40 a side); the last line then names it.
The map has ~200 random obstacles (low and high walls, rotated boxes) and 20 units a side;
the frame is drawn with ``SDL_VIDEODRIVER=dummy`` onto a window-sized surface by the same
:class:`game.render.renderer.Renderer` the window uses, with the first red unit selected, an
enemy targeted (sight line, silhouette, odds), a path preview and the threat map. Reported:
the threat map's full computation (once per match change), the exact move reach, the first
frame after a match
change (derived data recomputed), hover frames (the cursor moves to another enemy every frame:
its arcs, silhouette, sight line, fan and odds are drawn over the cached board), a frame whose
board is redrawn (every overlay and unit drawn again), a frame after a pan (cached layers
moved), a steady frame and a frame after a zoom (static layer redrawn too). The last line, the
number held to the 8 ms budget, is the hover frame:
``render 64x64/40 units: <ms> ms/frame with all overlays``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Callable

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame
import shapely

from components.specs import ScenarioSpec, UnitSpec
from components.terrain import ObstacleSpec
from game.engine.match import Match
from game.engine.view import MatchView
from game.render.inspect import path_preview
from game.render.renderer import Renderer
from game.render.ui import OVERLAYS, UiState

SIDE = 64.0
N_OBSTACLES, PER_SIDE = 200, 20


def make_spec(rng: np.random.Generator, ruleset: str) -> ScenarioSpec:
    """A 64x64 map with ~200 obstacles and 20 units a side in free spots of their thirds."""
    obstacles: list[ObstacleSpec] = []
    for k in range(N_OBSTACLES):
        cx, cy = rng.uniform(2, SIDE - 2, 2)
        hw, hh = rng.uniform(0.2, 1.6), rng.uniform(0.2, 0.6)
        ang = rng.uniform(0, math.pi)
        local = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        pts = local @ rot.T + [cx, cy]
        height = 0.5 if k % 3 else 2.0
        obstacles.append(ObstacleSpec(f"o{k}", tuple((float(x), float(y)) for x, y in pts), height))
    blocked = shapely.union_all([shapely.Polygon(o.polygon) for o in obstacles]).buffer(0.6)
    units: list[UnitSpec] = []
    taken: list[tuple[float, float]] = []
    for side, (x0, x1) in (("red", (1.0, 20.0)), ("blue", (44.0, 63.0))):
        n = 0
        while n < PER_SIDE:
            p = (float(rng.uniform(x0, x1)), float(rng.uniform(1.0, SIDE - 1.0)))
            if blocked.contains(shapely.Point(p)) or any(math.dist(p, q) < 1.2 for q in taken):
                continue
            taken.append(p)
            n += 1
            units.append(UnitSpec(f"{side}-{n}", side, p, facing=0.0 if side == "red" else 180.0))
    return ScenarioSpec(
        name="render benchmark",
        ruleset=ruleset,
        width=SIDE,
        height=SIDE,
        obstacles=tuple(obstacles),
        units=tuple(units),
        sides=("red", "blue"),
        sha256="0" * 64,
    )


def timed(fn: Callable[[], object], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000.0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--size", default="1280x800")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ruleset", default=None, help="default: ap-pool, or the scenario's own")
    ap.add_argument("--scenario", default=None, help="a scenario file instead of the random map")
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))

    pygame.init()
    screen = pygame.display.set_mode((w, h))
    t0 = time.perf_counter()
    if args.scenario:
        from game.core.errors import SkirmishError
        from game.scenario import load_scenario

        try:
            spec = load_scenario(args.scenario, ruleset=args.ruleset)
        except (SkirmishError, OSError) as e:
            print(f"render.py: --scenario {args.scenario}: {str(e).splitlines()[0]}", file=sys.stderr)
            raise SystemExit(2) from None
        label = f"{os.path.splitext(os.path.basename(args.scenario))[0]}/{len(spec.units)} units"
    else:
        spec = make_spec(np.random.default_rng(args.seed), args.ruleset or "ap-pool")
        label = "64x64/40 units"
    match = Match(spec, seed=args.seed)
    print(f"match built in {time.perf_counter() - t0:.2f} s")
    view = MatchView(match)
    renderer = Renderer(view, (w, h))
    viewer = match.pending.unit if match.pending else "red-1"
    enemies = view.enemies(viewer)
    target = min(enemies, key=lambda e: view.distance(viewer, e))
    ui = UiState(overlays=set(OVERLAYS), selected=viewer, target=target)
    me = view.unit(viewer).pos
    ui.hover = (me[0] + 3.0, me[1] + 1.0)
    ui.preview = path_preview(
        view, match.pending, ui.hover, lambda length: match.rules.move_ap_cost(match, viewer, length)
    )

    tm = renderer.scene.threat(viewer)
    t0 = time.perf_counter()
    tm.advance(None)
    threat_ms = (time.perf_counter() - t0) * 1000.0
    print(f"threat map: {tm.nx}x{tm.ny} cells x {len(enemies)} enemies: {threat_ms:.0f} ms (once per change)")

    t0 = time.perf_counter()
    renderer.scene.regions(match.pending, exact_reach=True)
    renderer.scene.finish_regions(match.pending)
    reach_ms = (time.perf_counter() - t0) * 1000.0
    print(f"exact move reach (NavMesh.reachable, background thread in the window): {reach_ms:.0f} ms")

    def draw() -> None:
        renderer.draw(screen, ui, {"red", "blue"}, threat_budget=None)

    first = timed(draw, 1)[0]
    print(f"first frame (derived data computed): {first:.1f} ms")
    # the cursor going from enemy to enemy: the target's arcs, silhouette, fan, sight line and
    # odds change every frame over the cached board; every overlay is on
    near = sorted(enemies, key=lambda e: view.distance(viewer, e))[:2]
    for e in near:
        ui.target = e
        draw()

    def retarget() -> None:
        ui.target = near[0] if ui.target == near[1] else near[1]
        draw()

    hover = timed(retarget, args.frames)
    print(
        f"hover frames (new target each frame): mean {statistics.fmean(hover):.2f} ms, "
        f"p95 {np.percentile(hover, 95):.2f} ms"
    )

    def rebuild() -> None:
        ui.toggle("move")  # any change of the board's inputs (match, viewer, overlays) redraws it
        draw()

    before = renderer.board_redraws
    boards = timed(rebuild, 40)
    assert renderer.board_redraws == before + 40
    print(
        f"frame with a board redraw (every overlay and unit drawn again): {statistics.fmean(boards):.2f} ms"
    )

    def after_pan() -> None:
        renderer.camera.pan(1, 0)
        draw()

    redraws = renderer.static.redraws
    pans = timed(after_pan, 50)
    print(f"frame after a pan (layers moved, not redrawn): {statistics.median(pans):.2f} ms median")
    steady = timed(draw, args.frames)
    assert renderer.static.redraws == redraws, "the static layer was redrawn without a zoom change"
    print(f"steady frames (cursor moving, nothing else): mean {statistics.fmean(steady):.2f} ms")

    def zoom() -> None:
        renderer.camera.zoom_at(400, 400, 1.01)
        draw()

    zooms = timed(zoom, 20)
    print(f"frame after a zoom (static layer and board redrawn): {statistics.median(zooms):.2f} ms median")
    mean = statistics.fmean(hover)
    match.close()
    print(f"render {label}: {mean:.2f} ms/frame with all overlays")


if __name__ == "__main__":
    main()
