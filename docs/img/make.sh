#!/bin/sh
# Regenerate the pictures of docs/window.md by scripted, headless play of the real window:
#   sh docs/img/make.sh          (from the repository root; SKIRMISH=... to use another binary)
# Each picture is one `skirmish play --headless --script docs/img/NAME.txt --shots docs/img` run.
set -eu
SK=${SKIRMISH:-.venv/bin/skirmish}
IMG=docs/img
play() { script=$1; shift; $SK play "$@" --headless --script "$IMG/$script.txt" --shots "$IMG"; }
play cover scenarios/firing-line.yaml --red human
play hedgerows scenarios/hedgerows.yaml --red human --blue human
play threat scenarios/street.yaml --red human --blue human
play retreat scenarios/duel.yaml --ruleset gurps --red aggressive --blue human --seed 9
play dodge scenarios/duel.yaml --ruleset ap-pool --red aggressive --blue human --seed 5
$SK edit scenarios/firing-line.yaml --headless --script "$IMG/editor.txt" --shots "$IMG"
