"""Reads a Parquet file (or a hive-partitioned dataset) with pyarrow, DuckDB, Spark, pandas or Polars and prints what
each saw as JSON.

Ferry's tests call it to check the files Ferry writes with readers that share no code with it:

    parquet_read.py FILE             {"pyarrow": {...}, "duckdb": {...}} for one file
    parquet_read.py --hive GLOB      {"duckdb": {...}} for a dataset read with hive_partitioning
    parquet_read.py --spark PATH...  {"spark": [{...}, ...]} for files or dataset folders, read by Apache Spark
                                     (parquet-java, on the JVM) in one session
    parquet_read.py --dataframes PATH...
                                     {"pandas": [...], "polars": [...]} for files or dataset folders: pandas
                                     (through pyarrow) and Polars (a Parquet reader of its own, in Rust), read as
                                     their users read them (see read_pandas and read_polars)

Every value is printed as text (null stays null), so that both readers agree when the file is right: integers
as digits, floats as Python's shortest round-trip text (`nan`, `inf`, `-0.0`), booleans as `true`/`false`,
timestamps as microseconds since 1970 (far dates do not fit Python's datetime), decimals as their exact text,
binaries as lowercase hex, UUIDs as their canonical text. Statistics are pyarrow's raw physical values, printed
the same way (byte arrays as hex).
"""

import decimal
import json
import sys
import uuid


def plain(value):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"unexpected value type {type(value)}")


def read_pyarrow(path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(path)
    table = parquet.read()
    columns = {}
    for name, column in zip(table.column_names, table.columns):
        kind = column.type
        if isinstance(kind, pa.ExtensionType):
            column = column.cast(kind.storage_type)
            values = [None if v is None else str(uuid.UUID(bytes=v)) for v in column.to_pylist()]
        elif pa.types.is_timestamp(kind):
            values = [plain(v) for v in column.cast(pa.int64()).to_pylist()]
        elif pa.types.is_fixed_size_binary(kind) and kind.byte_width == 16:
            values = [None if v is None else str(uuid.UUID(bytes=v)) for v in column.to_pylist()]
        else:
            values = [plain(v) for v in column.to_pylist()]
        columns[name] = values
    metadata = parquet.metadata
    schema = []
    for index in range(metadata.num_columns):
        element = metadata.schema.column(index)
        schema.append(
            {
                "name": element.name,
                "physical": element.physical_type,
                "logical": str(element.logical_type),
                "arrow": str(table.schema.field(element.name).type),
                "nullable": table.schema.field(element.name).nullable,
                "maxDefinitionLevel": element.max_definition_level,
            }
        )
    groups = []
    for group_index in range(metadata.num_row_groups):
        group = metadata.row_group(group_index)
        chunks = []
        for index in range(group.num_columns):
            chunk = group.column(index)
            stats = chunk.statistics
            chunks.append(
                {
                    "compression": chunk.compression,
                    "encodings": list(chunk.encodings),
                    "hasDictionaryPage": chunk.has_dictionary_page,
                    "nullCount": stats.null_count if stats is not None and stats.has_null_count else None,
                    "hasMinMax": bool(stats is not None and stats.has_min_max),
                    "min": plain(stats.min_raw) if stats is not None and stats.has_min_max else None,
                    "max": plain(stats.max_raw) if stats is not None and stats.has_min_max else None,
                }
            )
        groups.append({"rows": group.num_rows, "columns": chunks})
    return {
        "rows": metadata.num_rows,
        "columns": columns,
        "schema": schema,
        "rowGroups": groups,
        "createdBy": metadata.created_by,
    }


def read_duckdb(source, hive):
    import duckdb

    connection = duckdb.connect()
    relation = f"read_parquet('{source}', hive_partitioning = {'true' if hive else 'false'})"
    described = connection.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()
    selects = []
    types = {}
    for name, kind, *_ in described:
        quoted = '"' + name.replace('"', '""') + '"'
        types[name] = kind
        if kind.startswith("TIMESTAMP"):
            selects.append(f"epoch_us({quoted})")
        elif kind == "UUID":
            selects.append(f"CAST({quoted} AS VARCHAR)")
        else:
            selects.append(quoted)
    rows = connection.execute(f"SELECT {', '.join(selects)} FROM {relation}").fetchall()
    columns = {name: [plain(row[index]) for row in rows] for index, (name, *_) in enumerate(described)}
    return {"rows": len(rows), "columns": columns, "types": types}


def read_spark(paths):
    from pyspark.sql import SparkSession
    from pyspark.sql import functions
    from pyspark.sql import types

    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    readings = []
    try:
        for path in paths:
            frame = spark.read.parquet(path)
            selects = []
            for field in frame.schema.fields:
                column = functions.col("`" + field.name.replace("`", "``") + "`")
                if isinstance(field.dataType, types.TimestampType):
                    column = functions.unix_micros(column)
                selects.append(column.alias(field.name))
            rows = frame.select(*selects).collect()
            names = [field.name for field in frame.schema.fields]
            readings.append(
                {
                    "rows": len(rows),
                    "columns": {name: [plain(row[index]) for row in rows] for index, name in enumerate(names)},
                    "types": {field.name: field.dataType.simpleString() for field in frame.schema.fields},
                }
            )
    finally:
        spark.stop()
    return readings


def read_pandas(paths):
    """pandas' `read_parquet` with nullable dtypes, which keep integer columns with nulls exact (the default turns
    them into float64). A folder is read with string partition values: pandas' default, dictionary-typed ones,
    fails on a null partition ("Cannot yet unify dictionaries with nulls", pandas-dev/pandas#55400)."""
    import os

    import pandas
    import pyarrow.dataset

    readings = []
    for path in paths:
        options = {"dtype_backend": "numpy_nullable"}
        if os.path.isdir(path):
            options["partitioning"] = pyarrow.dataset.partitioning(flavor="hive")
        frame = pandas.read_parquet(path, **options)
        columns = {}
        for name in frame.columns:
            series = frame[name]
            missing = series.isna().tolist()
            if isinstance(series.dtype, pandas.DatetimeTZDtype):
                values = series.array.as_unit("us").asi8.tolist()
            else:
                values = series.tolist()
            columns[name] = [None if gap else plain(value) for gap, value in zip(missing, values)]
        readings.append(
            {
                "rows": len(frame),
                "columns": columns,
                "types": {name: str(kind) for name, kind in frame.dtypes.items()},
            }
        )
    return readings


def read_polars(paths):
    """Polars' `read_parquet`; a folder with hive partitioning."""
    import os

    import polars

    readings = []
    for path in paths:
        frame = polars.read_parquet(path, hive_partitioning=os.path.isdir(path))
        selects = [
            polars.col(name).dt.epoch("us") if isinstance(kind, polars.Datetime) else polars.col(name)
            for name, kind in frame.schema.items()
        ]
        values = frame.select(selects).to_dict(as_series=False)
        readings.append(
            {
                "rows": frame.height,
                "columns": {name: [plain(value) for value in column] for name, column in values.items()},
                "types": {name: str(kind) for name, kind in frame.schema.items()},
            }
        )
    return readings


def main(arguments):
    if len(arguments) == 2 and arguments[0] == "--hive":
        result = {"duckdb": read_duckdb(arguments[1], hive=True)}
    elif len(arguments) >= 2 and arguments[0] == "--spark":
        result = {"spark": read_spark(arguments[1:])}
    elif len(arguments) >= 2 and arguments[0] == "--dataframes":
        result = {"pandas": read_pandas(arguments[1:]), "polars": read_polars(arguments[1:])}
    elif len(arguments) == 1:
        result = {"pyarrow": read_pyarrow(arguments[0]), "duckdb": read_duckdb(arguments[0], hive=False)}
    else:
        print("usage: parquet_read.py FILE | --hive GLOB | --spark PATH... | --dataframes PATH...", file=sys.stderr)
        return 64
    json.dump(result, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
