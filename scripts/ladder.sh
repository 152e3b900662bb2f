#!/usr/bin/env bash
# The level ladder: every level against the level below it, in both games,
# each opening played with both colours (docs/engine.md, "Levels").
#
#   bash scripts/ladder.sh                 # 40 games per pair
#   GAMES=100 bash scripts/ladder.sh       # more games, narrower intervals
#
# Levels 1-6 play exactly as they do for people (their depth, noise and
# time per move), so the pairs up to 6-5 compare the levels as people meet
# them. Levels 7 and 8 (1 s and 6 s a move on 2 threads for people) would
# make the upper pairs take hours, so the pairs 7-6 and 8-7 are played by
# node limits in the ratio of the levels' thinking (time x threads:
# 0.5 : 2 : 12 for levels 6, 7 and 8; NODES6, NODES7, NODES8), one thread
# each, deterministic: these pairs measure what more thinking buys at the
# full-strength search, not how busy the machine is. The records go to
# target/ladder/.
set -euo pipefail
cd "$(dirname "$0")/.."

GAMES=${GAMES:-40}
NODES6=${NODES6:-150000}
NODES7=${NODES7:-600000}
NODES8=${NODES8:-3600000}
CONCURRENCY=${CONCURRENCY:-2}
# Salta games last 300-600 plies when both sides play to finish; a game
# still going after MAX_PLIES plies is adjudicated by the distance count.
MAX_PLIES=${MAX_PLIES:-1000}
GAMES_LIST=${LADDER_GAMES:-"salta focus"}
# The upper level of each pair to play (e.g. UPPER="6 7 8").
UPPER=${UPPER:-"2 3 4 5 6 7 8"}
# A name for this run's table, so that runs can go side by side.
RUN=${RUN:-ladder}

# MONTE: a binary to use instead of building one (e.g. a copy, so that
# rebuilding target/ during a long run does not change the engine mid-ladder).
if [ -n "${MONTE:-}" ]; then
    monte=$MONTE
else
    cargo build --release --locked -p monte-cli >&2
    monte=target/release/monte
fi
out=target/ladder
mkdir -p "$out"

# The engine setting of level $1 in a pair whose lower level is $2.
setting() {
    if [ "$2" -le 5 ]; then
        echo "level=$1"
        return
    fi
    case $1 in
        6) echo "level=6,nodes=$NODES6" ;;
        7) echo "level=7,nodes=$NODES7,threads=1" ;;
        8) echo "level=8,nodes=$NODES8,threads=1" ;;
    esac
}

table="$out/$RUN.md"
printf '| game | pair | games | W-D-L | score [95%%] | Elo [95%%] |\n|---|---|---|---|---|---|\n' >"$table"
for game in $GAMES_LIST; do
    for upper in $UPPER; do
        lower=$((upper - 1))
        e1=$(setting "$upper" "$lower")
        e2=$(setting "$lower" "$lower")
        log="$out/$game-L$upper-L$lower.txt"
        "$monte" match --game "$game" --engine1 "$e1" --engine2 "$e2" --games "$GAMES" \
            --concurrency "$CONCURRENCY" --max-plies "$MAX_PLIES" --seed "$upper" --records "$out/$game-L$upper-L$lower.records" \
            >"$log" 2>/dev/null
        tally=$(grep -E '^.* vs .*: games' "$log" | sed -E 's/.*games ([0-9]+) +wins ([0-9]+) +draws ([0-9]+) +losses ([0-9]+).*/\1 \2-\3-\4/')
        score=$(grep -E '^score' "$log" | sed -E 's/^score ([^]]*\]) +elo (.*)$/\1|\2/')
        printf '| %s | L%s vs L%s | %s | %s | %s | %s |\n' "$game" "$upper" "$lower" \
            "${tally%% *}" "${tally#* }" "${score%%|*}" "${score#*|}" | tee -a "$table"
    done
done
echo "table: $table"
