"""``python -m game`` runs the ``skirmish`` command line."""

from game.cli import main

if __name__ == "__main__":
    main()
