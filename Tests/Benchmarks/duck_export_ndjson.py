"""DuckDB's NDJSON export, the peer of `ferry export --output OUT.ndjson` in compare.sh.

  duck_export_ndjson.py DB OUT.ndjson    COPY products TO OUT (FORMAT json): one object per line

../shared/bench/peers/duckdb/duck.py has the other DuckDB commands (CSV and NDJSON imports, CSV export).
"""
import sys

import duckdb


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    database, output = sys.argv[1:3]
    connection = duckdb.connect(database)
    connection.execute(f"COPY products TO '{output.replace(chr(39), chr(39) * 2)}' (FORMAT json)")
    connection.close()


if __name__ == "__main__":
    main()
