"""The systems' contracts: below the engine, one place for priorities, the components as their
one source, and the numpy mirror derived by the sight system alone."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import esper
import numpy as np
import pytest

import systems
from components.outcome import Outcome
from components.spatial import POSTURE_HEIGHT, Body, Facing, Position, Stance
from components.state import ActionPoints, Health
from game.ai import get_policy
from game.battlefield.arena import Arena
from game.core.commands import EndTurn, Face, Move
from game.engine.match import Match
from game.engine.view import MatchView
from game.scenario import load_scenario
from game.tools.session import Session

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = sorted((ROOT / "systems").glob("*.py"))

#: Packages the systems may not import (the engine and every layer above it).
ABOVE = ("game.engine", "game.ai", "game.tools", "game.render", "game.rl", "game.cli")


def _imports(path: Path) -> list[str]:
    """Every module ``path`` imports, TYPE_CHECKING blocks and function bodies included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
    return found


@pytest.mark.parametrize("path", SYSTEMS, ids=lambda p: p.name)
def test_systems_never_import_the_engine(path):
    bad = [m for m in _imports(path) if m.startswith(ABOVE)]
    assert bad == [], f"{path.name} imports {bad}"


def test_importing_the_systems_loads_no_engine():
    code = f"import sys, systems; print(sorted(m for m in sys.modules if m.startswith({ABOVE!r})))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_priorities_are_set_in_one_place(spec):
    for path in SYSTEMS:
        if path.name not in ("__init__.py", "store.py"):  # the store only passes them to esper
            assert "add_processor" not in path.read_text(), path.name
    m = Match(spec, seed=1)
    with m.activated():
        for kind, priority in systems.PRIORITIES.items():
            proc = esper.get_processor(kind)
            assert proc is not None and proc.priority == priority
    m.close()


def test_the_match_keeps_no_accessor_for_the_systems():
    gone = (
        "take_inbox flow_active start_flow answer_flow flow_decision next_in_order set_order "
        "begin_turn finish_turn turn_over count_turn_command clear_active end_match refill_ap"
    )
    assert [name for name in gone.split() if hasattr(Match, name)] == []


def test_the_turns_system_reads_the_components_in_esper(spec):
    """An AP component replaced behind the match's back (through esper) is the one the turns
    system reads: with no AP left the turn ends; at the next round it is refilled."""
    m = Match(spec, seed=4)
    uid = m.pending.unit
    with m.activated():
        esper.add_component(m.store.eid[uid], ActionPoints(0, 2))
    m.apply(Face(uid, 90.0))  # free: the turn would go on with the AP it had
    end = m.log.of_type("turn_end")[-1]
    assert end["unit"] == uid and end["ap_left"] == 0 and m.active != uid
    while m.round == 1:
        m.apply(EndTurn(m.pending.unit))
    with m.activated():
        assert esper.component_for_entity(m.store.eid[uid], ActionPoints) == ActionPoints(2, 2)
    m.close()


def test_the_outcome_is_a_component_of_the_battle_entity(spec):
    m = Match(spec, seed=21)
    Session(m).play()
    with m.activated():
        assert esper.get_component(Outcome) == [(m.store.battle_eid, m.outcome)]
    end = m.log.events[-1]
    assert end["type"] == "match_end" and end["reason"] == m.outcome.reason
    m.close()


def test_movement_writes_the_position_component(spec):
    m = Match(spec, seed=3)
    uid = m.pending.unit
    x, y = m.pos(uid)
    to = (x + (1.0 if x < 10 else -1.0), y + 1.0)
    m.apply(Move(uid, to))
    with m.activated():
        p = esper.component_for_entity(m.store.eid[uid], Position)
    assert (p.x, p.y) == to
    m.close()


def _mirror_is_derived(m: Match) -> None:
    arena = m.arena
    get = m.store.get
    for uid in m.units(alive=False):
        i = arena.index_of[uid]
        p = get(uid, Position)
        assert arena.xy[i].tolist() == [p.x, p.y], uid
        assert arena.height[i] == POSTURE_HEIGHT[get(uid, Stance).posture] * get(uid, Body).size, uid
        assert arena.facing[i] == get(uid, Facing).degrees, uid
        assert bool(arena.alive[i]) == (not get(uid, Health).out_of_action), uid


@pytest.mark.parametrize("ruleset", ["gurps", "ap-pool"])
def test_only_the_sight_system_writes_the_mirror_and_it_follows_the_components(ruleset, monkeypatch):
    writers: list[str] = []
    per_sync: list[int] = []
    for name in ("__init__", "update", "remove"):
        original = getattr(Arena, name)

        def spy(*args, _original=original, **kwargs):
            writers.append(sys._getframe(1).f_globals["__name__"])
            return _original(*args, **kwargs)

        monkeypatch.setattr(Arena, name, spy)
    sync = systems.SightSystem.sync

    def counted(self, host):
        before = len(writers)
        sync(self, host)
        per_sync.append(len(writers) - before)

    monkeypatch.setattr(systems.SightSystem, "sync", counted)
    spec = load_scenario(ROOT / "scenarios" / "skirmish-5v5.yaml", ruleset=ruleset)
    m = Match(spec, ruleset=ruleset, seed=7, controllers={s: "aggressive" for s in spec.sides})
    view = MatchView(m)
    policy = get_policy("aggressive")
    kinds: set[str] = set()
    for _ in range(400):
        if m.outcome is not None:
            break
        _mirror_is_derived(m)
        seen = len(m.log)
        m.apply(policy(view, m.pending, m.ai_rng))
        kinds |= {e["type"] for e in m.log.events[seen:]}
    _mirror_is_derived(m)
    m.close()
    assert {"move", "casualty"} <= kinds  # the battle moved units and took some out
    assert set(writers) == {"systems.sight"}
    # a sync touches only what changed: at most the units of the table, twice (a casualty's
    # last update, then its removal), and most syncs far less
    assert max(per_sync) <= 2 * len(spec.units) and np.median(per_sync) <= 2
