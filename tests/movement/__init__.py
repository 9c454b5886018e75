"""Tests of game.movement (pure movement geometry)."""
