#!/usr/bin/env bash
# Kill/resume trials of `ferry import` (release) on a larger file than `make test` uses: each trial starts an
# import, kills it with SIGKILL at a random moment of a run, checks what the store holds, resumes it and
# compares the end state with an uninterrupted run. For humans, not for `make test`.
#
#   bash Tests/Benchmarks/crash-trials.sh                  # 100 trials, 200,000 records, batch mode
#   TRIALS=20 MODE=context RECORDS=100000 bash Tests/Benchmarks/crash-trials.sh
#
# Environment: TRIALS (default 100), RECORDS (default 200000), CHUNK (default 2000), MODE (batch or context),
# SEED (default 1), FERRY (a ferry binary; default: build the release one), KEEP (1: keep the work folder).
#
# A trial passes when, after the kill: PRAGMA integrity_check is ok; the ledger's latest run is running (or
# succeeded, when the kill came too late) with a checkpoint on a chunk boundary; the rows are exactly
# counts.inserted of the ledger and read = inserted + updated + unchanged + rejected; the ledger holds
# counts.rejected rejects; and after --resume (exit 0) the rows, values and counts equal the reference's.
# Needs the sqlite3 command-line shell and awk.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
TRIALS=${TRIALS:-100}
RECORDS=${RECORDS:-200000}
CHUNK=${CHUNK:-2000}
MODE=${MODE:-batch}
SEED=${SEED:-1}
WORK=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
RANDOM=$SEED

log() { printf '[crash-trials] %s\n' "$*" >&2; }
command -v sqlite3 >/dev/null || { log "needs the sqlite3 shell (apt-get install sqlite3)"; exit 1; }

if [ -z "${FERRY:-}" ]; then
  log "building ferry (release)"
  (cd "$ROOT" && swift build -c release --product ferry >&2)
  FERRY=$ROOT/.build/release/ferry
fi

# The same rules as Tests/FerryCLITests/CrashTrialInput.swift: bad codes, negative quantities, repeated keys.
cd "$WORK"
cat >items.model.yml <<'EOF'
entities:
  Item:
    attributes:
      code: { type: string, optional: false, regex: "^IT-[0-9]{6,7}$" }
      name: { type: string, optional: false, minLength: 1 }
      qty: { type: integer32, min: 0 }
      price: { type: double, min: 0 }
    uniquenessConstraints: [[code]]
EOF
log "generating $RECORDS records"
awk -v n="$RECORDS" 'BEGIN {
  print "code,name,qty,price"
  for (i = 1; i <= n; i++) {
    code = sprintf("IT-%06d", i); name = (i % 13 == 0) ? sprintf("\"Item, \"\"%d\"\"\"", i) : "Item " i
    qty = (i % 89 == 0) ? -i : i % 1000
    if (i % 97 == 0) code = "IT-" i "x"
    if (i % 211 == 0) { code = key[i - 150]; name = "Repeat " i }
    key[i] = code
    printf "%s,%s,%d,%d.%d5\n", code, name, qty, i % 500, i % 10
  }
}' >items.csv

args() { # STORE
  echo import items.csv --store "$1" --model items.model.yml --entity Item --key code --chunk "$CHUNK" \
    --mode "$MODE" --rejects "$1.rejects.csv" --quiet
}
q() { sqlite3 -batch -noheader "$@"; }
state() { # STORE: a digest of the rows and the latest run's counts
  { q "$1" "SELECT code, name, qty, price FROM Item ORDER BY code"
    q "$1" "SELECT counts FROM ferry_runs ORDER BY id DESC LIMIT 1"; } | sha256sum | cut -c1-16
}

log "reference run ($MODE, chunk $CHUNK)"
started=$(date +%s.%N)
# shellcheck disable=SC2046
"$FERRY" $(args reference.sqlite)
duration=$(echo "$(date +%s.%N) - $started" | bc)
reference=$(state reference.sqlite)
log "reference: $(q reference.sqlite "SELECT counts FROM ferry_runs") in ${duration}s"

pass=0 fail=0 late=0 midrun=0
for trial in $(seq 1 "$TRIALS"); do
  store=trial.sqlite
  rm -f "$store" "$store"-wal "$store"-shm "$store".lock "$store".rejects.csv
  # From the launch on (store creation and the first chunk included), at a fraction of the measured run; here,
  # not inside $(…): a subshell's $RANDOM does not advance this one's.
  percent=$((RANDOM % 96))
  delay=$(echo "scale=3; $duration * $percent / 100" | bc)
  # shellcheck disable=SC2046
  "$FERRY" $(args "$store") &
  pid=$!
  sleep "$delay"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null && status=0 || status=$?
  problems=()
  integrity=$(q "$store" "PRAGMA integrity_check" 2>&1 || true)
  [ "$integrity" = ok ] || problems+=("integrity: $integrity")
  run=$(q -separator ' ' "$store" "SELECT status, ifnull(json_extract(checkpoint, '\$.records'), 0),
    ifnull(json_extract(counts, '\$.read'), 0), ifnull(json_extract(counts, '\$.inserted'), 0),
    ifnull(json_extract(counts, '\$.updated') + json_extract(counts, '\$.unchanged'), 0),
    ifnull(json_extract(counts, '\$.rejected'), 0), id FROM ferry_runs ORDER BY id DESC LIMIT 1" 2>/dev/null || true)
  resume=--resume
  if [ -z "$run" ]; then
    resume=""  # killed before the run was recorded: nothing to resume
  else
    read -r runStatus records read inserted others rejected id <<<"$run"
    rows=$(q "$store" "SELECT count(*) FROM Item")
    rejects=$(q "$store" "SELECT count(*) FROM ferry_rejects WHERE run = $id")
    if [ "$status" != 137 ]; then
      late=$((late + 1))
    elif [ "$records" -gt 0 ] && [ "$records" -lt "$RECORDS" ]; then
      midrun=$((midrun + 1))
    fi
    [ "$runStatus" = running ] || [ "$runStatus" = succeeded ] || problems+=("status $runStatus")
    [ "$runStatus" = succeeded ] && resume=skip
    [ $((records % CHUNK)) = 0 ] || [ "$records" = "$RECORDS" ] || problems+=("checkpoint $records mid-chunk")
    [ "$rows" = "$inserted" ] || problems+=("$rows rows but the ledger says $inserted inserted")
    [ "$read" = "$records" ] || problems+=("read $read, checkpoint $records")
    [ "$read" = $((inserted + others + rejected)) ] || problems+=("unbalanced: $run")
    [ "$rejects" = "$rejected" ] || problems+=("$rejects rejects in the ledger, counts say $rejected")
  fi
  if [ "$resume" != skip ]; then
    # shellcheck disable=SC2046
    "$FERRY" $(args "$store") $resume || problems+=("resume exited $?")
  fi
  [ "$(state "$store")" = "$reference" ] || problems+=("end state differs from the reference")
  cmp -s "$store.rejects.csv" reference.sqlite.rejects.csv || problems+=("the rejects file differs")
  [ "${VERBOSE:-0}" = 1 ] && log "trial $trial: kill after ${delay}s, exit $status, run: ${run:-none}"
  if [ ${#problems[@]} = 0 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    log "trial $trial (kill after ${delay}s, run: ${run:-none}): ${problems[*]}"
  fi
done
echo "crash trials ($MODE, $RECORDS records, chunk $CHUNK): $pass passed, $fail failed" \
  "($midrun killed between chunks, $late finished before their kill)"
[ "$fail" = 0 ]
