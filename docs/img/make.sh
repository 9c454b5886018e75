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
play planner scenarios/skirmish-5v5.yaml --red cautious --blue planner --seed 2
# Every ruleset as a player meets it: a turn and a defence (as hendrik), and a battle's end.
play play-gurps scenarios/duel.yaml --ruleset gurps --red aggressive --blue human --seed 1
play play-defence-dice scenarios/duel.yaml --ruleset defence-dice --red aggressive --blue human --seed 1
play play-cortex scenarios/duel.yaml --ruleset cortex --red aggressive --blue human --seed 1
play play-aff scenarios/duel.yaml --ruleset aff --red aggressive --blue human --seed 5
play play-ap-pool scenarios/duel.yaml --ruleset ap-pool --red aggressive --blue human --seed 3
for rs in gurps defence-dice cortex aff ap-pool; do
  play "end-$rs" scenarios/duel.yaml --ruleset "$rs" --red planner --blue aggressive --seed 1
done
$SK edit scenarios/firing-line.yaml --headless --script "$IMG/editor.txt" --shots "$IMG"
