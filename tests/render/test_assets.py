"""assets/: the bundled font, the colour theme as data and the token icons (issue 15)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from components.sight import Arc, CoverLevel
from components.spatial import Posture
from game.core.shipped import ASSETS_DIR
from game.render import colors
from game.render.theme import THEME_PATH, ThemeError, load_theme, theme
from game.render.tokens import TOKENS_PATH, TokensError, load_tokens, tokens


def test_the_shipped_theme_is_valid_and_is_what_the_palette_uses() -> None:
    t = load_theme()
    assert THEME_PATH == ASSETS_DIR / "theme.yaml"
    assert Path(t.font.file) == ASSETS_DIR / "fonts" / "DejaVuSans.ttf"
    assert t.background == colors.BACKGROUND and t.outline == colors.OUTLINE
    assert {"red": t.sides.named["red"], "blue": t.sides.named["blue"]} == colors.NAMED_SIDES
    assert colors.COVER_COLORS[CoverLevel.NEAR_TOTAL] == t.cover.near_total
    assert set(colors.COVER_COLORS) == set(CoverLevel) == set(colors.THREAT_COLORS)
    assert colors.ARC_COLORS[Arc.REAR] == t.arcs.rear and len(colors.ARC_COLORS[Arc.REAR]) == 4


def test_the_font_and_its_licence_ship_in_assets() -> None:
    font = ASSETS_DIR / "fonts" / "DejaVuSans.ttf"
    assert font.read_bytes()[:4] == b"\x00\x01\x00\x00"  # a TrueType font
    licence = (ASSETS_DIR / "fonts" / "LICENSE-DejaVu.txt").read_text()
    assert "Bitstream Vera" in licence and "Arev" in licence


def _bad(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "theme.yaml"
    path.write_text(text)
    with pytest.raises(ThemeError) as e:
        load_theme(path)
    return [str(p) for p in e.value.problems]


def test_a_broken_theme_is_refused_with_file_line_and_key(tmp_path: Path) -> None:
    good = THEME_PATH.read_text()
    (tmp_path / "fonts").mkdir()
    (tmp_path / "fonts" / "DejaVuSans.ttf").write_bytes(
        (ASSETS_DIR / "fonts" / "DejaVuSans.ttf").read_bytes()
    )
    # a colour out of range, on its line
    lines = good.replace("background: [24, 26, 30]", "background: [24, 26, 300]")
    (problem,) = _bad(tmp_path, lines)
    line_no = lines.splitlines().index("background: [24, 26, 300]") + 1
    assert problem.startswith(f"{tmp_path / 'theme.yaml'}:{line_no}: background.2: ")
    # a colour with the wrong number of channels, an unknown key, a missing key
    assert any("table" in p for p in _bad(tmp_path, good.replace("table: [62, 84, 58]", "table: [62, 84]")))
    assert any("colour_of_joy" in p for p in _bad(tmp_path, good + "colour_of_joy: [1, 2, 3]\n"))
    assert any("grid_major" in p for p in _bad(tmp_path, good.replace("grid_major: [96, 122, 90]\n", "")))
    # a font that is not there
    (missing,) = _bad(tmp_path, good.replace("fonts/DejaVuSans.ttf", "fonts/Nope.ttf"))
    assert "font.file: no font file" in missing


def test_every_posture_has_a_token_inside_its_box() -> None:
    icons = load_tokens()
    assert TOKENS_PATH == ASSETS_DIR / "tokens.yaml"
    assert set(icons) == {p.value for p in Posture}
    assert tokens() == icons


def test_a_broken_token_file_is_refused_with_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "tokens.yaml"
    path.write_text("standing:\n  - circle: [0, 0, 0.2]\n  - line: [[0, 0], [3, 0]]\n")
    with pytest.raises(TokensError) as e:
        load_tokens(path)
    assert any(str(p).startswith(f"{path}:3: standing.1") for p in e.value.problems)


def test_tokens_draw_in_the_base_and_letters_stay_for_unknown_postures(pg) -> None:
    from game.render.tokens import draw_token

    surf = pg.Surface((60, 60))
    surf.fill((255, 255, 255))
    assert draw_token(surf, "prone", (30, 30), 20, (0, 0, 0))
    img = np.transpose(pg.surfarray.array3d(surf), (1, 0, 2))
    dark = np.argwhere(img.sum(axis=2) == 0)
    assert len(dark) > 30
    # inside the icon box (half-side 20 px around the centre), and lying low: a prone figure
    assert dark[:, 0].min() >= 10 and dark[:, 0].max() <= 50 and dark[:, 1].min() >= 9
    assert dark[:, 0].mean() > 30  # below the centre
    assert not draw_token(surf, "levitating", (30, 30), 20, (0, 0, 0))


def test_text_uses_the_bundled_font(pg) -> None:
    from game.render.text import Text, pixel_size

    text = Text()
    assert pixel_size(18) == round(18 * theme().font.scale)
    # DejaVu Sans at that size: the same widths on every machine
    assert (
        text.width("red-m1 to blue-m2: 22.3 in", 18)
        == pg.font.Font(theme().font.file, pixel_size(18)).size("red-m1 to blue-m2: 22.3 in")[0]
    )
