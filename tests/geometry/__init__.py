"""Tests of the cover model (game.geometry)."""
