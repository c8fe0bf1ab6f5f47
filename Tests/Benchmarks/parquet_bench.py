"""Ferry's Parquet export side by side with DuckDB's COPY … TO … (FORMAT parquet), in one run, in turns.

    python parquet_bench.py FERRY STORE CSV [--runs N] [--work DIR]

FERRY is a release `ferry` (timed through GNU time, /usr/bin/time, for its peak RSS), STORE a Ferry store holding the `products` entity loaded from CSV (`ferry import CSV
--entity products --key sku`); DuckDB loads the same CSV into a database of its own first. Each run times
`ferry export --entity products --output f.parquet` (ZSTD, with its manifest) as a process, wall clock, and
DuckDB's `COPY products TO 'd.parquet' (FORMAT parquet, COMPRESSION zstd)` inside Python, wall clock, once with
one thread and once with DuckDB's default (every core); then the same `COPY` (every core) as a process of its own,
which starts Python, loads duckdb and opens a copy of the database, as compare.sh times DuckDB's other tasks
(duck.py) and as Ferry's figure is taken. The in-process figures are the strict ones: they leave out what DuckDB's
process pays before the `COPY` and Ferry's does not avoid. Prints medians, the ratios, both files' sizes and Ferry's
peak RSS. Run it with the Python of `make test`'s virtual environment (.venv-test/bin/python), which has duckdb.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

import duckdb

# The whole-process run: a read-only connection to its own copy of the database (DuckDB lets one process at a time
# open a database file for writing, and this script holds the original open).
PROCESS_COPY = """
import sys, duckdb
database = duckdb.connect(sys.argv[1], read_only=True)
database.execute(f"COPY products TO '{sys.argv[2]}' (FORMAT parquet, COMPRESSION zstd)")
database.close()
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ferry")
    parser.add_argument("store")
    parser.add_argument("csv")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--work", default=".")
    arguments = parser.parse_args()
    work = arguments.work
    database = duckdb.connect(os.path.join(work, "duck.db"))
    database.execute("DROP TABLE IF EXISTS products")
    database.execute(f"CREATE TABLE products AS SELECT * FROM read_csv('{arguments.csv}')")
    rows = database.execute("SELECT count(*) FROM products").fetchone()[0]
    database.execute("CHECKPOINT")
    process_database = os.path.join(work, "duck-process.db")
    shutil.copyfile(os.path.join(work, "duck.db"), process_database)
    ferry_output = os.path.join(work, "f.parquet")
    duck_output = os.path.join(work, "d.parquet")
    process_output = os.path.join(work, "d-process.parquet")
    cores = os.cpu_count()
    process_name = f"duckdb {cores} thr, process"
    timings = {"ferry": [], "duckdb 1 thread": [], f"duckdb {cores} threads": [], process_name: []}
    peak = 0
    for _ in range(arguments.runs + 1):  # the first round warms the caches and is dropped
        start = time.perf_counter()
        # GNU time reports the peak RSS of ferry itself (a child's rusage would count Python's pages at fork).
        finished = subprocess.run(
            ["/usr/bin/time", "-f", "%M", arguments.ferry, "export", "--quiet", "--store", arguments.store,
             "--entity", "products", "--output", ferry_output],
            check=True, capture_output=True, text=True)
        timings["ferry"].append(time.perf_counter() - start)
        peak = max(peak, int(finished.stderr.strip().splitlines()[-1]) / 1024)
        for threads, name in ((1, "duckdb 1 thread"), (cores, f"duckdb {cores} threads")):
            database.execute(f"SET threads TO {threads}")
            start = time.perf_counter()
            database.execute(f"COPY products TO '{duck_output}' (FORMAT parquet, COMPRESSION zstd)")
            timings[name].append(time.perf_counter() - start)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", PROCESS_COPY, process_database, process_output], check=True)
        timings[process_name].append(time.perf_counter() - start)
    ferry_size = os.path.getsize(ferry_output)
    duck_size = os.path.getsize(duck_output)
    ferry_median = statistics.median(timings["ferry"][1:])
    print(f"{rows} rows, {arguments.runs} runs each (medians), ZSTD")
    for name, values in timings.items():
        median = statistics.median(values[1:])
        print(f"{name:22} {median:7.2f} s   ferry/this {ferry_median / median:5.2f}")
    print(f"file sizes: ferry {ferry_size / 1e6:.1f} MB, duckdb {duck_size / 1e6:.1f} MB, "
          f"ratio {ferry_size / duck_size:.3f}")
    print(f"ferry peak RSS {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
