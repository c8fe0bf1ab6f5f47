#!/usr/bin/env bash
# ferry publish side by side with psql, in one run (issue 23's figures):
#
#   1. the whole products entity (ROWS rows) into an empty table with its unique index on sku:
#      `ferry publish --mode upsert` vs `psql -c "\copy products FROM 'products.csv' CSV HEADER"`;
#   2. after importing products_update.csv (ROWS/2 rows: half update existing skus, half are new) into the store:
#      the incremental `ferry publish` vs a hand-written staging COPY of the same file plus INSERT … ON CONFLICT
#      in psql.
#
#   FERRY_BENCH_POSTGRES_URL=postgresql://user:pw@localhost/bench bash Tests/Benchmarks/publish-bench.sh
#   ROWS=200000 bash Tests/Benchmarks/publish-bench.sh     # starts a throwaway server when no URL is given
#
# Environment: ROWS (default 1000000), DATA (default Tests/Benchmarks/data/ROWS, made by ../shared/bench/gen_data.py),
# FERRY_BENCH_POSTGRES_URL (a database the script may drop and create tables in; default: a throwaway server started
# with Tests/postgres-server.sh, stopped at the end), SCRATCH (ferry's build folder, default .build).
# Peak RSS of ferry comes from /usr/bin/time when installed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SHARED=${SHARED:-$(cd "$ROOT/.." && pwd)/shared}
ROWS=${ROWS:-1000000}
DATA=${DATA:-$HERE/data/$ROWS}
SCRATCH=${SCRATCH:-$ROOT/.build}
WORK=$(mktemp -d)
STATE=$WORK/postgres.state
log() { printf '[publish-bench] %s\n' "$*" >&2; }
cleanup() {
  bash "$ROOT/Tests/postgres-server.sh" stop "$STATE" || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ ! -f "$DATA/products.csv" ]; then
  log "generating $ROWS rows into $DATA"
  mkdir -p "$DATA"
  python3 "$SHARED/bench/gen_data.py" --rows "$ROWS" --out "$DATA" --no-ndjson >&2
fi
URL=${FERRY_BENCH_POSTGRES_URL:-}
if [ -z "$URL" ]; then
  URL=$(bash "$ROOT/Tests/postgres-server.sh" start "$STATE")
  log "started a throwaway PostgreSQL server"
fi
swift build -c release --package-path "$ROOT" --scratch-path "$SCRATCH" --product ferry >&2
FERRY=$SCRATCH/release/ferry
PSQL="psql -X -q -v ON_ERROR_STOP=1 $URL"

# The store: the products imported with history, typed as the model below (the table psql fills has the same types).
cat > "$WORK/products.model.yml" <<'MODEL'
entities:
  Product:
    attributes:
      sku: { type: string, optional: false }
      name: string
      category: string
      price: decimal
      quantity: integer32
      weight: double
      active: boolean
      created_at: date
      description: string
      tags: string
    uniquenessConstraints: [[sku]]
MODEL
STORE=$WORK/products.sqlite
"$FERRY" import "$DATA/products.csv" --store "$STORE" --model "$WORK/products.model.yml" --entity Product \
  --key sku --history --quiet
TABLE_SQL="CREATE TABLE products (sku text NOT NULL, name text, category text, price numeric, quantity integer,
  weight double precision, active boolean, created_at timestamp with time zone, description text, tags text);
  CREATE UNIQUE INDEX products_sku_key ON products (sku);"

seconds() { python3 -c 'import sys, time; print(f"{time.time() - float(sys.argv[1]):.2f}")' "$1"; }
now() { python3 -c 'import time; print(time.time())'; }
timed_ferry() {  # peak RSS in KiB into $RSS when /usr/bin/time is there
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$WORK/rss" "$@"
    RSS=$(tail -1 "$WORK/rss")
  else
    "$@"
    RSS=""
  fi
}

printf '%-52s %10s %10s %7s %10s\n' task "ferry s" "psql s" ratio "ferry MiB"

# 1. Full publish into an empty table with its unique index.
$PSQL -c "DROP TABLE IF EXISTS products, ferry_publish_checkpoints; $TABLE_SQL"
start=$(now)
$PSQL -c "\copy products FROM '$DATA/products.csv' CSV HEADER"
psql_full=$(seconds "$start")
$PSQL -c "DROP TABLE products; $TABLE_SQL"
start=$(now)
timed_ferry "$FERRY" publish --store "$STORE" --entity Product --to "$URL" --table products --quiet
ferry_full=$(seconds "$start")
full_rss=$RSS
count=$($PSQL -t -A -c "SELECT count(*) FROM products")
[ "$count" = "$ROWS" ] || { log "products holds $count rows, expected $ROWS"; exit 1; }
printf '%-52s %10s %10s %7s %10s\n' "full publish, $ROWS rows (vs \\copy)" "$ferry_full" "$psql_full" \
  "$(python3 -c "print(f'{$ferry_full / $psql_full:.2f}x')")" "$([ -n "$full_rss" ] && echo $((full_rss / 1024)))"

# 2. Incremental publish after the update file, vs staging COPY + INSERT … ON CONFLICT by hand.
"$FERRY" import "$DATA/products_update.csv" --store "$STORE" --entity Product --key sku --merge-policy object-trump \
  --quiet
$PSQL -c "CREATE TABLE products_by_hand AS TABLE products; CREATE UNIQUE INDEX ON products_by_hand (sku);"
start=$(now)
$PSQL <<SQL
BEGIN;
CREATE TEMPORARY TABLE staging (LIKE products_by_hand) ON COMMIT DROP;
\copy staging FROM '$DATA/products_update.csv' CSV HEADER
INSERT INTO products_by_hand SELECT * FROM staging
ON CONFLICT (sku) DO UPDATE SET name = EXCLUDED.name, category = EXCLUDED.category, price = EXCLUDED.price,
  quantity = EXCLUDED.quantity, weight = EXCLUDED.weight, active = EXCLUDED.active,
  created_at = EXCLUDED.created_at, description = EXCLUDED.description, tags = EXCLUDED.tags
WHERE (products_by_hand.name, products_by_hand.category, products_by_hand.price, products_by_hand.quantity,
  products_by_hand.weight, products_by_hand.active, products_by_hand.created_at, products_by_hand.description,
  products_by_hand.tags) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.category, EXCLUDED.price, EXCLUDED.quantity,
  EXCLUDED.weight, EXCLUDED.active, EXCLUDED.created_at, EXCLUDED.description, EXCLUDED.tags);
COMMIT;
SQL
psql_incremental=$(seconds "$start")
start=$(now)
timed_ferry "$FERRY" publish --store "$STORE" --entity Product --to "$URL" --table products
ferry_incremental=$(seconds "$start")
incremental_rss=$RSS
printf '%-52s %10s %10s %7s %10s\n' "incremental publish after $((ROWS / 2)) upserts" "$ferry_incremental" \
  "$psql_incremental" "$(python3 -c "print(f'{$ferry_incremental / $psql_incremental:.2f}x')")" \
  "$([ -n "$incremental_rss" ] && echo $((incremental_rss / 1024)))"
differ=$($PSQL -t -A -c "SELECT count(*) FROM (TABLE products EXCEPT TABLE products_by_hand) d")
log "rows of ferry's table that differ from the hand-made one: $differ"
