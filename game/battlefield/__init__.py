"""The live battlefield geometry of a match: a numpy mirror of the units over the static map,
answering sight, cover, path and region queries.
"""
