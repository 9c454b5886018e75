"""The shared vocabulary: commands, decisions, events, errors and the Battle protocol.

Pure values; imports only ``components``. Every other layer of ``game`` may use it.
"""
