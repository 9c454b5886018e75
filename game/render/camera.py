"""World <-> screen transform of the map view: pan, zoom, fit.

Contract: pure arithmetic, no pygame. World units are inches with x east and y south
(DESIGN §1), which is also the screen's orientation, so the transform is a uniform scale
plus an offset: ``screen = viewport.topleft + (world - origin) * scale``. ``origin`` is the
world point at the viewport's top-left corner and ``scale`` is pixels per inch.
``screen_to_world(world_to_screen(p)) == p`` up to float rounding; ``zoom_at`` keeps the
world point under the cursor fixed. :meth:`Camera.key` changes exactly when the transform
or viewport changes (the static layer cache is keyed on it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: Zoom limits, pixels per inch.
MIN_SCALE = 2.0
MAX_SCALE = 200.0
#: Fraction of the viewport left as margin around the map by :meth:`Camera.fit`.
FIT_MARGIN = 0.04


@dataclass
class Camera:
    """The view of a ``world_w`` × ``world_h`` inch map inside a screen viewport.

    Attributes:
        world_w: map width, inches.
        world_h: map height, inches.
        viewport: (x, y, w, h) of the map area on the screen, pixels.
        scale: pixels per inch.
        origin_x: world x at the viewport's left edge.
        origin_y: world y at the viewport's top edge.
    """

    world_w: float
    world_h: float
    viewport: tuple[int, int, int, int]
    scale: float = 10.0
    origin_x: float = 0.0
    origin_y: float = 0.0

    @classmethod
    def fitted(cls, world_w: float, world_h: float, viewport: tuple[int, int, int, int]) -> Camera:
        """A camera showing the whole map centred in ``viewport``."""
        cam = cls(float(world_w), float(world_h), viewport)
        cam.fit()
        return cam

    # ------------------------------------------------------------- transforms
    def world_to_screen(self, x: float, y: float) -> tuple[float, float]:
        """Screen pixel coordinates (floats) of world point (x, y)."""
        vx, vy, _, _ = self.viewport
        return (vx + (x - self.origin_x) * self.scale, vy + (y - self.origin_y) * self.scale)

    def to_px(self, x: float, y: float) -> tuple[int, int]:
        """Like :meth:`world_to_screen`, rounded to whole pixels."""
        sx, sy = self.world_to_screen(x, y)
        return (round(sx), round(sy))

    def screen_to_world(self, sx: float, sy: float) -> tuple[float, float]:
        """World point under screen pixel (sx, sy)."""
        vx, vy, _, _ = self.viewport
        return (self.origin_x + (sx - vx) / self.scale, self.origin_y + (sy - vy) / self.scale)

    def points_to_screen(self, pts: NDArray[np.float64]) -> NDArray[np.float64]:
        """Vectorized :meth:`world_to_screen` for an (n, 2) array."""
        vx, vy, _, _ = self.viewport
        out = (np.asarray(pts, dtype=np.float64) - (self.origin_x, self.origin_y)) * self.scale
        out += (vx, vy)
        return out

    def length(self, inches: float) -> float:
        """A world length in pixels."""
        return inches * self.scale

    # ------------------------------------------------------------- queries
    def in_viewport(self, sx: float, sy: float) -> bool:
        """Whether a screen pixel lies inside the map viewport."""
        vx, vy, vw, vh = self.viewport
        return vx <= sx < vx + vw and vy <= sy < vy + vh

    def on_map(self, x: float, y: float) -> bool:
        """Whether a world point lies on the table."""
        return 0.0 <= x <= self.world_w and 0.0 <= y <= self.world_h

    def key(self) -> tuple[float, ...]:
        """A value that changes exactly when the transform or the viewport changes."""
        return (self.scale, self.origin_x, self.origin_y, *self.viewport)

    # ------------------------------------------------------------- changes
    def fit(self) -> None:
        """Zoom and centre so the whole map fits the viewport with a small margin."""
        _, _, vw, vh = self.viewport
        usable_w, usable_h = vw * (1 - 2 * FIT_MARGIN), vh * (1 - 2 * FIT_MARGIN)
        self.scale = _clamp(min(usable_w / self.world_w, usable_h / self.world_h), MIN_SCALE, MAX_SCALE)
        self.origin_x = self.world_w / 2 - vw / (2 * self.scale)
        self.origin_y = self.world_h / 2 - vh / (2 * self.scale)

    def set_viewport(self, viewport: tuple[int, int, int, int]) -> None:
        """Change the viewport (window resize), keeping the world point at its centre."""
        _, _, ow, oh = self.viewport
        cx = self.origin_x + ow / (2 * self.scale)
        cy = self.origin_y + oh / (2 * self.scale)
        self.viewport = viewport
        _, _, vw, vh = viewport
        self.origin_x = cx - vw / (2 * self.scale)
        self.origin_y = cy - vh / (2 * self.scale)

    def pan(self, dx_px: float, dy_px: float) -> None:
        """Move the view so the map slides by (dx_px, dy_px) pixels (drag direction)."""
        self.origin_x -= dx_px / self.scale
        self.origin_y -= dy_px / self.scale

    def zoom_at(self, sx: float, sy: float, factor: float) -> None:
        """Multiply the scale by ``factor`` (clamped), keeping the world point under (sx, sy) fixed."""
        wx, wy = self.screen_to_world(sx, sy)
        self.scale = _clamp(self.scale * factor, MIN_SCALE, MAX_SCALE)
        vx, vy, _, _ = self.viewport
        self.origin_x = wx - (sx - vx) / self.scale
        self.origin_y = wy - (sy - vy) / self.scale


def _clamp(v: float, lo: float, hi: float) -> float:
    return min(hi, max(lo, v))
