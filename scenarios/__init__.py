"""The scenarios shipped with skirmish, and ``profiles.yaml`` (the archetype stat blocks).

This folder is a *data package*: it holds no code, only YAML files, and it is installed as the
top-level package ``scenarios`` next to ``game`` so that a wheel (not only a checkout) carries
them. Programs find it through :mod:`game.core.shipped`, never by importing it: a ``scenarios/``
folder in the user's working directory must not be mistaken for it.
"""
