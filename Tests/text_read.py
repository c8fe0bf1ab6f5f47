"""Reads a CSV, TSV, NDJSON or JSON export with Python's own modules and with DuckDB and prints what each saw as JSON.

Ferry's tests call it to check that the text files Ferry writes read back in tools that share no code with it:

    text_read.py csv FILE      {"python": [[cell, ...], ...], "duckdb": {...}}: csv.reader, and DuckDB's read_csv
    text_read.py tsv FILE      the same with tabs between fields
    text_read.py ndjson FILE   {"python": [{...}, ...], "duckdb": {...}}: json.loads per line, DuckDB's read_json
    text_read.py json FILE     {"python": [{...}, ...], "duckdb": {...}}: json.load of the array, DuckDB's read_json

Python's readings keep the rows as read, every value printed as text as parquet_read.py prints it (null stays
null; a JSON number as its digits, which Python reads exactly). DuckDB's readings are by column, with the types its
sniffer chose; timestamps print as microseconds since 1970, UUIDs as their text. DuckDB reads a quoted empty CSV
field as an empty string (`allow_quoted_nulls = false`) and an unquoted one as null, as Ferry writes them.
"""

import csv
import json
import sys

from parquet_read import plain


def read_python(kind, path):
    if kind in ("csv", "tsv"):
        with open(path, newline="", encoding="utf-8") as file:
            return [row for row in csv.reader(file, delimiter="\t" if kind == "tsv" else ",", strict=True)]
    with open(path, encoding="utf-8") as file:
        if kind == "ndjson":
            objects = [json.loads(line) for line in file if line.strip()]
        else:
            objects = json.load(file)
    return [{key: plain(value) for key, value in item.items()} for item in objects]


def read_duckdb(kind, path):
    import duckdb

    quoted_path = "'" + path.replace("'", "''") + "'"
    if kind == "csv":
        relation = f"read_csv({quoted_path}, header = true, allow_quoted_nulls = false)"
    elif kind == "tsv":
        relation = f"read_csv({quoted_path}, header = true, delim = '\\t', allow_quoted_nulls = false)"
    elif kind == "ndjson":
        relation = f"read_json({quoted_path}, format = 'newline_delimited')"
    else:
        relation = f"read_json({quoted_path}, format = 'array')"
    connection = duckdb.connect()
    described = connection.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
    selects = []
    for name, kind_name, *_ in described:
        column = '"' + name.replace('"', '""') + '"'
        if kind_name.startswith("TIMESTAMP"):
            column = f"epoch_us({column})"
        elif kind_name == "UUID":
            column = f"CAST({column} AS VARCHAR)"
        selects.append(column)
    rows = connection.execute(f"SELECT {', '.join(selects)} FROM {relation}").fetchall()
    return {
        "rows": len(rows),
        "columns": {name: [plain(row[index]) for row in rows] for index, (name, *_) in enumerate(described)},
        "types": {name: kind_name for name, kind_name, *_ in described},
    }


def main(arguments):
    if len(arguments) != 2 or arguments[0] not in ("csv", "tsv", "ndjson", "json"):
        print("usage: text_read.py csv|tsv|ndjson|json FILE", file=sys.stderr)
        return 64
    kind, path = arguments
    json.dump({"python": read_python(kind, path), "duckdb": read_duckdb(kind, path)}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
