#!/usr/bin/env bash
# Ferry side by side with the C reference (../shared/bench/peers/limit-c), in one run, in turns.
#
#   bash Tests/Benchmarks/compare.sh            # 1M rows, then the 10M-row memory check
#   ROWS=200000 BIG=0 bash Tests/Benchmarks/compare.sh
#
# Environment: ROWS (default 1000000), RUNS (timed runs per case, default 5), WARMUP (untimed runs before them,
# default 1; 0 for the long 10M-row runs), BIG (1: also count a file 10x
# larger for the memory-scaling check; 0: skip), IMPORT (1: ferry import and export; 0: skip), STORE (1: also
# the store's library benchmarks; 0: skip),
# DATA (data folder, default Tests/Benchmarks/data/ROWS), C_CACHE_MB (the C reference's page cache for imports,
# default 64: ../shared/bench/run_baseline.sh measures the reference figures with --cache-mb 64),
# SHARED (default ../shared beside the package).
#
# Each case is timed with ../shared/bench/timeit.py --vs: Ferry (A) and the C reference (B) alternate, and
# the ratio is taken pair by pair, so machine noise hits both alike. "speed" is B/A: 1.0 means C speed.
# The sqlite3 CLI (export) and sqlite-utils (import and export, when installed) are logged as ratios.
# DuckDB (DUCK=1, the default) gets a table of its own, timed the same way against Ferry: its Python package comes
# from PyPI into the virtual environment `make test-readers` creates (.venv-test/), or from DUCK_PYTHON.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/.." && pwd)/shared}
ROWS=${ROWS:-1000000}
RUNS=${RUNS:-5}
WARMUP=${WARMUP:-1}
BIG=${BIG:-1}
DATA=${DATA:-$HERE/data/$ROWS}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
TIMER="python3 $SHARED/bench/timeit.py"

log() { printf '[compare] %s\n' "$*" >&2; }

if [ ! -f "$DATA/products.csv" ]; then
  log "generating $ROWS rows into $DATA"
  mkdir -p "$DATA"
  python3 "$SHARED/bench/gen_data.py" --rows "$ROWS" --out "$DATA" >&2
fi
CSV=$DATA/products.csv
ND=$DATA/products.ndjson

log "building the C reference (copied: shared/ is read-only) and ferry (release)"
cp -r "$SHARED/bench/peers/limit-c" "$WORK/limit-c"
make -s -C "$WORK/limit-c" >&2
LIMIT=$WORK/limit-c/limit
# Imports by the C reference run as its published figures were measured (run_baseline.sh: --cache-mb 64).
CI_OPTS="--cache-mb ${C_CACHE_MB:-64}"
swift build -c release --package-path "$ROOT" --product ferry >&2
FERRY=$ROOT/.build/release/ferry
BENCH=$HERE/.build/release/ferry-bench

# The two must agree on the record count before any timing counts.
for pair in "$CSV parse-csv" "$ND parse-ndjson"; do
  set -- $pair
  ours=$("$FERRY" count "$1")
  theirs=$("$LIMIT" "$2" "$1" 2>&1 | sed -n 's/.*: \([0-9]*\) rows.*/\1/p')
  [ "$ours" = "$theirs" ] || { log "record counts differ on $1: ferry $ours, C $theirs"; exit 1; }
done

printf '%-34s %10s %10s %9s %9s %8s %10s\n' task "ferry s" "C s" "ferry MB/s" "C MB/s" speed "ferry MiB"
row() {  # row TASK FILE FERRY-COMMAND C-COMMAND
  local task=$1 file=$2 ours=$3 theirs=$4 out
  # Split Ferry's command as a shell would (quotes kept), as timeit.py splits the --vs one.
  eval "set -- $ours"
  out=$($TIMER -n "$RUNS" --warmup "$WARMUP" --vs "$theirs" -- "$@")
  local a b ratio peak bytes
  a=$(awk '/^A wall s/ {print $5}' <<<"$out")
  b=$(awk '/^B wall s/ {print $5}' <<<"$out")
  ratio=$(awk '/^A\/B wall/ {print $4}' <<<"$out")
  peak=$(awk '/^A peak MiB/ {print $5}' <<<"$out")
  bytes=$(stat -c %s "$file")
  awk -v t="$task" -v a="$a" -v b="$b" -v r="$ratio" -v p="$peak" -v n="$bytes" 'BEGIN {
    printf "%-34s %10.3f %10.3f %9.0f %9.0f %7.2fx %10.1f\n", t, a, b, n/a/1e6, n/b/1e6, 1/r, p }'
}

# The C reference's upsert of the update file into a copy of the loaded store BASE, as a command for row.
c_upsert() {
  echo "sh -c 'cp $1 $WORK/cu.sqlite; rm -f $WORK/cu.sqlite-*; $LIMIT import-csv $WORK/cu.sqlite $UPD --mode upsert $CI_OPTS'"
}

row "count CSV ($ROWS rows)" "$CSV" "$FERRY count $CSV" "$LIMIT parse-csv $CSV"
row "count NDJSON ($ROWS rows)" "$ND" "$FERRY count $ND" "$LIMIT parse-ndjson $ND"

if [ "${IMPORT:-1}" = 1 ]; then
  # ferry import and export (issue 5), each run from an empty store (or a copy of a loaded one for upserts).
  UPD=$DATA/products_update.csv
  FI="$FERRY import --quiet --entity products --key sku"
  C_UNIQUE="sh -c 'rm -f $WORK/c.sqlite*; $LIMIT import-csv $WORK/c.sqlite $CSV --mode unique $CI_OPTS'"
  row "ferry import, batch" "$CSV" "sh -c 'rm -f $WORK/f.sqlite*; $FI --store $WORK/f.sqlite $CSV'" "$C_UNIQUE"
  row "ferry import, context" "$CSV" \
    "sh -c 'rm -f $WORK/f.sqlite*; $FI --mode context --store $WORK/f.sqlite $CSV'" "$C_UNIQUE"
  row "ferry import NDJSON, batch" "$ND" "sh -c 'rm -f $WORK/f.sqlite*; $FI --store $WORK/f.sqlite $ND'" \
    "sh -c 'rm -f $WORK/c.sqlite*; $LIMIT import-ndjson $WORK/c.sqlite $ND --mode unique $CI_OPTS'"
  $FI --store "$WORK/ibase.sqlite" "$CSV"
  "$LIMIT" import-csv "$WORK/icbase.sqlite" "$CSV" --mode unique $CI_OPTS >&2
  C_UPSERT_I=$(c_upsert "$WORK/icbase.sqlite")
  row "ferry import upsert (update file)" "$UPD" \
    "sh -c 'cp $WORK/ibase.sqlite $WORK/fu.sqlite; rm -f $WORK/fu.sqlite-* $WORK/fu.sqlite.lock; $FI --merge-policy object-trump --store $WORK/fu.sqlite $UPD'" \
    "$C_UPSERT_I"
  # The C reference never syncs (synchronous=OFF); ferry syncs at each checkpoint unless --sync off.
  row "ferry import, context, --sync off" "$CSV" \
    "sh -c 'rm -f $WORK/f.sqlite*; $FI --mode context --sync off --store $WORK/f.sqlite $CSV'" "$C_UNIQUE"
  row "ferry import upsert, --sync off" "$UPD" \
    "sh -c 'cp $WORK/ibase.sqlite $WORK/fu.sqlite; rm -f $WORK/fu.sqlite-* $WORK/fu.sqlite.lock; $FI --merge-policy object-trump --sync off --store $WORK/fu.sqlite $UPD'" \
    "$C_UPSERT_I"
  row "ferry export CSV" "$CSV" "$FERRY export --quiet --store $WORK/ibase.sqlite --entity products --output $WORK/out.csv" \
    "$LIMIT export $WORK/icbase.sqlite $WORK/cout.csv"
  log "$(cd "$WORK" && $TIMER -n "$RUNS" --warmup "$WARMUP" \
    --vs "sh $SHARED/bench/peers/sqlite3-cli/cli.sh export $WORK/icbase.sqlite $WORK/sout.csv" \
    -- "$FERRY" export --quiet --store "$WORK/ibase.sqlite" --entity products --output "$WORK/out.csv" \
    | awk '/^A\/B wall/ {print "ferry export / sqlite3 CLI export, wall ratio (median): " $4}')"
  # sqlite-utils (pip install sqlite-utils, or SU=PATH): one run each, as its import takes about a minute.
  SU=${SU:-$(command -v sqlite-utils || true)}
  if [ -n "$SU" ]; then
    SUSH="env SU=$SU sh $SHARED/bench/peers/sqlite-utils/su.sh"
    log "$($TIMER -n 1 --warmup 0 --vs "sh -c 'rm -f $WORK/s.sqlite*; $SUSH insert $WORK/s.sqlite $CSV'" \
      -- sh -c "rm -f $WORK/f.sqlite*; $FI --store $WORK/f.sqlite $CSV" \
      | awk '/^A\/B wall/ {print "ferry import / sqlite-utils insert, wall ratio (one run): " $4}')"
    log "$($TIMER -n 1 --warmup 0 --vs "$SUSH export $WORK/s.sqlite $WORK/suout.csv" \
      -- "$FERRY" export --quiet --store "$WORK/ibase.sqlite" --entity products --output "$WORK/out.csv" \
      | awk '/^A\/B wall/ {print "ferry export / sqlite-utils export, wall ratio (one run): " $4}')"
  else
    log "sqlite-utils not found (pip install sqlite-utils, or set SU): its comparison is skipped"
  fi
fi

if [ "${DUCK:-1}" = 1 ] && [ "${IMPORT:-1}" = 1 ]; then
  # DuckDB (issue 24): the data engineer's next tool. It uses both cores; its peak RSS is in the last column.
  DUCK_PYTHON=${DUCK_PYTHON:-$ROOT/.venv-test/bin/python}
  if [ ! -x "$DUCK_PYTHON" ] || ! "$DUCK_PYTHON" -c 'import duckdb' 2>/dev/null; then
    log "creating the virtual environment with DuckDB (make test-readers)"
    make -s -C "$ROOT" test-readers >&2
  fi
  DUCK="$DUCK_PYTHON $SHARED/bench/peers/duckdb/duck.py"
  "$DUCK_PYTHON" "$SHARED/bench/peers/duckdb/duck.py" import-csv-pk "$WORK/dbase.duckdb" "$CSV"
  echo
  printf '%-34s %10s %10s %9s %9s %8s %10s %10s\n' task "ferry s" "DuckDB s" "ferry MB/s" "Duck MB/s" speed \
    "ferry MiB" "Duck MiB"
  duckrow() {  # duckrow TASK FILE FERRY-COMMAND DUCKDB-COMMAND: speed is DuckDB's time / Ferry's
    local task=$1 file=$2 ours=$3 theirs=$4 out
    eval "set -- $ours"
    out=$($TIMER -n "$RUNS" --warmup "$WARMUP" --vs "$theirs" -- "$@")
    awk -v t="$task" -v n="$(stat -c %s "$file")" '
      /^A wall s/ {a = $5} /^B wall s/ {b = $5} /^A\/B wall/ {r = $4}
      /^A peak MiB/ {pa = $5} /^B peak MiB/ {pb = $5}
      END { printf "%-34s %10.3f %10.3f %9.0f %9.0f %7.2fx %10.1f %10.1f\n", t, a, b, n/a/1e6, n/b/1e6, 1/r, pa, pb }' \
      <<<"$out"
  }
  duckrow "import CSV, unique key" "$CSV" "sh -c 'rm -f $WORK/f.sqlite*; $FI --store $WORK/f.sqlite $CSV'" \
    "sh -c 'rm -f $WORK/d.duckdb*; $DUCK import-csv-pk $WORK/d.duckdb $CSV'"
  duckrow "import NDJSON" "$ND" "sh -c 'rm -f $WORK/f.sqlite*; $FI --store $WORK/f.sqlite $ND'" \
    "sh -c 'rm -f $WORK/d.duckdb*; $DUCK import-ndjson $WORK/d.duckdb $ND'"
  duckrow "export CSV" "$CSV" \
    "$FERRY export --quiet --store $WORK/ibase.sqlite --entity products --output $WORK/out.csv" \
    "$DUCK export $WORK/dbase.duckdb $WORK/dout.csv"
  duckrow "export NDJSON" "$ND" \
    "$FERRY export --quiet --store $WORK/ibase.sqlite --entity products --output $WORK/out.ndjson" \
    "$DUCK_PYTHON $HERE/duck_export_ndjson.py $WORK/dbase.duckdb $WORK/dout.ndjson"
  # Parquet export (issue 22): Ferry's ZSTD dataset beside DuckDB's COPY … (FORMAT parquet) with one thread and with
  # every core, and the two files' sizes.
  mkdir -p "$WORK/parquet"
  "$DUCK_PYTHON" "$HERE/parquet_bench.py" "$FERRY" "$WORK/ibase.sqlite" "$CSV" --runs "$RUNS" --work "$WORK/parquet" \
    | sed 's/^/[parquet] /' >&2
fi

if [ "${STORE:-1}" = 1 ]; then
  # The store's library benchmarks are a package of their own, built only for this section.
  swift build -c release --package-path "$HERE" >&2
  # The store (issues 3 and 4): each run starts from an empty store (or, for upserts, a copy of a loaded one).
  UPD=$DATA/products_update.csv
  C_UNIQUE="sh -c 'rm -f $WORK/c.sqlite*; $LIMIT import-csv $WORK/c.sqlite $CSV --mode unique $CI_OPTS'"
  row "context insert, unique sku" "$CSV" \
    "sh -c 'rm -f $WORK/f.sqlite*; $BENCH context-insert $CSV $WORK/f.sqlite'" "$C_UNIQUE"
  # Batch requests of positional rows two ways: packed rows sorted by key (the importer's path), and arrays of
  # values in file order.
  row "batch insert, unique sku, packed" "$CSV" \
    "sh -c 'rm -f $WORK/f.sqlite*; $BENCH batch-insert $CSV $WORK/f.sqlite --packed'" "$C_UNIQUE"
  row "batch insert, unique sku, values" "$CSV" \
    "sh -c 'rm -f $WORK/f.sqlite*; $BENCH batch-insert $CSV $WORK/f.sqlite'" "$C_UNIQUE"
  "$BENCH" batch-insert "$CSV" "$WORK/fbase.sqlite" >&2
  "$LIMIT" import-csv "$WORK/cbase.sqlite" "$CSV" --mode unique $CI_OPTS >&2
  C_UPSERT=$(c_upsert "$WORK/cbase.sqlite")
  for form in packed values; do
    flag=$([ "$form" = packed ] && echo --packed || true)
    row "upsert of the update file, $form" "$UPD" \
      "sh -c 'cp $WORK/fbase.sqlite $WORK/fu.sqlite; rm -f $WORK/fu.sqlite-*; $BENCH batch-upsert $UPD $WORK/fu.sqlite $flag'" \
      "$C_UPSERT"
  done
  for limit in $((ROWS / 10)) "$ROWS"; do
    for sort in "" "--sort sku"; do
      log "$("$BENCH" walk "$WORK/fbase.sqlite" --limit "$limit" --batch 1000 $sort)${sort:+ (sorted)}"
    done
  done
  "$BENCH" merge-batch-update "$WORK/merge.sqlite" --rows "$ROWS" --registered 1000 --repeat 5 >&2
fi

if [ "$BIG" = 1 ]; then
  BIGCSV=$WORK/products-10x.csv
  log "building a 10x file by concatenation for the memory-scaling check"
  { cat "$CSV"; for _ in 1 2 3 4 5 6 7 8 9; do tail -n +2 "$CSV"; done; } > "$BIGCSV"
  row "count CSV ($((ROWS * 10)) rows)" "$BIGCSV" "$FERRY count $BIGCSV" "$LIMIT parse-csv $BIGCSV"
  rm -f "$BIGCSV"
fi
