#!/usr/bin/env bash
# A binary attribute turned external and back (issue 19): `ferry migrate` moving ROWS values of SIZE bytes from rows
# into blob files, then back into rows, on a store made once and copied before each direction.
#
#   bash Tests/Benchmarks/blob-migration.sh                       # 10000 values of 136000 bytes (1.36 GB)
#   ROWS=20000 SIZE=140000 bash Tests/Benchmarks/blob-migration.sh
#   KEEP=/tmp/blobs bash Tests/Benchmarks/blob-migration.sh       # keep the stores (v1.sqlite at the inline model,
#                                                                 # v2.sqlite and its blob folder at the external one)
#   ROWS=1000000 EVERY=100 bash Tests/Benchmarks/blob-migration.sh  # sparse: 1M rows, every 100th holds a value,
#                                                                 # beside the sqlite3 CLI rebuilding the same table
#
# SIZE must be above `ferry migrate`'s external storage threshold (128 KiB) for the values to move.
# With EVERY=N only every Nth row holds a value (the others are NULL), and the sqlite3 CLI's plain rebuild of the
# same table (`INSERT INTO new SELECT ... FROM old`, DROP, RENAME and the index builds in one transaction, on a copy
# of the same store) is measured after the move into files, as the baseline of a table rebuild.
# Environment: ROWS, SIZE, EVERY (default 1), FERRY (default .build/release/ferry, built when missing), KEEP (a folder to keep the stores
# in, for paired runs with timeit.py). Prints one line per direction: wall time and the ferry process's peak RSS.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ROWS=${ROWS:-10000}
SIZE=${SIZE:-136000}
EVERY=${EVERY:-1}
FERRY=${FERRY:-$ROOT/.build/release/ferry}
if [ -n "${KEEP:-}" ]; then WORK=$KEEP; mkdir -p "$WORK"; else WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
log() { printf '[blob-migration] %s\n' "$*" >&2; }

if [ ! -x "$FERRY" ]; then
  log "building ferry (release)"
  (cd "$ROOT" && swift build -c release --product ferry >&2)
fi

cat > "$WORK/v1.yml" <<'YML'
entities:
  Product:
    attributes:
      sku: { type: string, optional: false }
      photo: binary
YML
sed 's/      photo: binary/      photo: { type: binary, allowsExternalStorage: true }/' "$WORK/v1.yml" > "$WORK/v2.yml"

log "making a store of $ROWS rows, every ${EVERY}th holding a value of $SIZE bytes"
rm -rf "$WORK"/v1.sqlite* "$WORK"/v2.sqlite* "$WORK"/s.sqlite*
printf 'sku\nSKU-X\n' > "$WORK/one.csv"
"$FERRY" import "$WORK/one.csv" --store "$WORK/v1.sqlite" --model "$WORK/v1.yml" --entity Product --quiet
sqlite3 "$WORK/v1.sqlite" >/dev/null <<SQL
DELETE FROM Product;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ROWS)
INSERT INTO Product (_ent, sku, photo)
  SELECT 1, printf('SKU-%07d', i), CASE WHEN i % $EVERY = 0 THEN randomblob($SIZE) END FROM n;
PRAGMA wal_checkpoint(TRUNCATE);
SQL

measure() {  # label, command...
  local label=$1; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$WORK/err"
  local seconds rss
  seconds=$(grep 'Elapsed (wall clock)' "$WORK/err" | awk '{print $NF}')
  rss=$(grep 'Maximum resident set size' "$WORK/err" | awk '{print $NF}')
  printf '%-44s %10s  peak RSS %6d MB\n' "$label" "$seconds" "$((rss / 1024))"
}

cp "$WORK/v1.sqlite" "$WORK/s.sqlite"
sync
measure "ferry migrate: into files ($((ROWS / EVERY)) x $SIZE B)" "$FERRY" migrate --store "$WORK/s.sqlite" --model "$WORK/v2.yml" --quiet
if [ "$EVERY" -gt 1 ]; then
  # The same table rebuilt by hand: its own DDL under another name, the copy, the swap, its indexes again.
  cp "$WORK/v1.sqlite" "$WORK/cli.sqlite"
  {
    echo 'BEGIN;'
    sqlite3 "$WORK/v1.sqlite" "SELECT replace(sql, '\"Product\"', '\"new\"') || ';' FROM sqlite_master WHERE type = 'table' AND name = 'Product'"
    echo 'INSERT INTO "new" SELECT * FROM "Product";'
    echo 'DROP TABLE "Product";'
    echo 'ALTER TABLE "new" RENAME TO "Product";'
    sqlite3 "$WORK/v1.sqlite" "SELECT sql || ';' FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Product' AND sql IS NOT NULL"
    echo 'COMMIT;'
  } > "$WORK/rebuild.sql"
  sync
  measure "sqlite3 CLI: INSERT INTO new SELECT + indexes" sqlite3 "$WORK/cli.sqlite" ".read $WORK/rebuild.sql"
  rm -f "$WORK"/cli.sqlite*
fi
sqlite3 "$WORK/s.sqlite" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
for f in "$WORK"/s.sqlite*; do mv "$f" "$WORK/v2${f#"$WORK"/s}"; done
cp "$WORK/v2.sqlite" "$WORK/s.sqlite"
cp -r "$WORK/v2.sqlite-blobs" "$WORK/s.sqlite-blobs"
sync
measure "ferry migrate: back into rows" "$FERRY" migrate --store "$WORK/s.sqlite" --model "$WORK/v1.yml" --quiet
rm -rf "$WORK"/s.sqlite*
