#!/usr/bin/env bash
# Migrations against the sqlite3 CLI on the same data (issue 19): adding an attribute (instant DDL) and a table
# rebuild (a widening integer -> double) done by `ferry migrate`, beside the CLI's
# `INSERT INTO new SELECT ... FROM old` plus the index builds, on a copy of the same store.
#
#   bash Tests/Benchmarks/migration.sh                 # 10M rows
#   ROWS=1000000 bash Tests/Benchmarks/migration.sh
#
# Environment: ROWS (default 10000000), FERRY (default .build/release/ferry, built when missing).
# Prints one line per case: seconds, and the peak resident memory of the ferry process (/usr/bin/time -v).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
ROWS=${ROWS:-10000000}
FERRY=${FERRY:-$ROOT/.build/release/ferry}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
log() { printf '[migration] %s\n' "$*" >&2; }

if [ ! -x "$FERRY" ]; then
  log "building ferry (release)"
  (cd "$ROOT" && swift build -c release --product ferry >&2)
fi

cat > "$WORK/v1.yml" <<'YML'
entities:
  Product:
    attributes:
      sku: { type: string, optional: false }
      name: string
      quantity: integer32
      price: double
    uniquenessConstraints: [[sku]]
    indexes: [[quantity]]
YML
sed 's/      price: double/      price: double\n      origin: string/' "$WORK/v1.yml" > "$WORK/v2.yml"
sed 's/      quantity: integer32/      quantity: double/' "$WORK/v2.yml" > "$WORK/v3.yml"

log "making a store of $ROWS rows"
sqlite3 "$WORK/seed.sqlite" >/dev/null <<SQL
PRAGMA journal_mode = OFF;
CREATE TABLE seed (sku TEXT, name TEXT, quantity INTEGER, price REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $ROWS)
INSERT INTO seed SELECT printf('SKU-%09d', i), 'product ' || i, i % 1000, (i % 10000) / 100.0 FROM n;
SQL
# An empty store with v1 (ferry import of one row), then the seed rows copied in with SQL.
printf 'sku,name,quantity,price\nSKU-X,x,1,1.0\n' > "$WORK/one.csv"
"$FERRY" import "$WORK/one.csv" --store "$WORK/store.sqlite" --model "$WORK/v1.yml" --entity Product --quiet
sqlite3 "$WORK/store.sqlite" >/dev/null <<SQL
DELETE FROM Product;
ATTACH '$WORK/seed.sqlite' AS seed;
INSERT INTO Product (_ent, sku, name, quantity, price) SELECT 1, sku, name, quantity, price FROM seed.seed;
SQL
rm "$WORK/seed.sqlite"
cp "$WORK/store.sqlite" "$WORK/cli.sqlite"

measure() {  # label, command...
  local label=$1; shift
  /usr/bin/time -v "$@" >/dev/null 2>"$WORK/err"
  local seconds rss
  seconds=$(grep 'Elapsed (wall clock)' "$WORK/err" | awk '{print $NF}')
  rss=$(grep 'Maximum resident set size' "$WORK/err" | awk '{print $NF}')
  printf '%-44s %10s  peak RSS %6d MB\n' "$label" "$seconds" "$((rss / 1024))"
}

measure "ferry migrate: add attribute ($ROWS rows)" "$FERRY" migrate --store "$WORK/store.sqlite" --model "$WORK/v2.yml" --quiet
measure "ferry migrate: rebuild, int -> double" "$FERRY" migrate --store "$WORK/store.sqlite" --model "$WORK/v3.yml" --quiet

sqlite3 "$WORK/cli.sqlite" 'ALTER TABLE Product ADD COLUMN origin TEXT' >/dev/null
cat > "$WORK/rebuild.sql" <<'SQL'
BEGIN;
CREATE TABLE new ("_pk" INTEGER PRIMARY KEY, "_ent" INTEGER NOT NULL, "_opt" INTEGER NOT NULL DEFAULT 1,
  "sku" TEXT, "name" TEXT, "quantity" REAL, "price" REAL, "origin" TEXT);
INSERT INTO new SELECT "_pk", "_ent", "_opt", "sku", "name", CAST("quantity" AS REAL), "price", "origin" FROM Product;
DROP TABLE Product;
ALTER TABLE new RENAME TO Product;
CREATE UNIQUE INDEX "Product_unique_sku" ON "Product" ("sku");
CREATE INDEX "Product_index_quantity" ON "Product" ("quantity");
COMMIT;
SQL
measure "sqlite3 CLI: INSERT INTO new SELECT + indexes" sqlite3 "$WORK/cli.sqlite" ".read $WORK/rebuild.sql"
