"""Writes the timestamp Parquet files the casting tests read: every time unit each library
has, naive and zoned, as pandas, polars and pyarrow write them. Run it from this directory with
pandas, polars and pyarrow installed (python3 gen.py); the Go tests need no Python.

Each file has one row with a value to the nanosecond (where the unit keeps it) and one NULL row.
Columns are named <unit>_<zone>, zone being "naive", "utc" or "berlin"."""

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

WALL = "2024-03-31 01:30:15.123456789"  # the night Berlin's clocks jump, to the nanosecond
ZONES = {"naive": None, "utc": "UTC", "berlin": "Europe/Berlin"}


def pandas_file():
    frame = {}
    for unit in ["s", "ms", "us", "ns"]:
        for name, zone in ZONES.items():
            naive = pd.Series([pd.Timestamp(WALL), pd.NaT]).astype(f"datetime64[{unit}]")
            frame[f"{unit}_{name}"] = naive if zone is None else naive.dt.tz_localize("UTC").dt.tz_convert(zone)
    # What to_datetime(…, utc=True) gives on its own, whatever unit this pandas infers.
    frame["default_utc"] = pd.to_datetime([WALL, None], utc=True)
    pd.DataFrame(frame).to_parquet("pandas.parquet", index=False)


def polars_file():
    # From integers: a Python datetime stops at microseconds.
    base = pl.Series([1711848615123456789, None], dtype=pl.Int64).cast(pl.Datetime("ns"))
    cols = {}
    for unit in ["ms", "us", "ns"]:
        for name, zone in ZONES.items():
            s = base.cast(pl.Datetime(unit))
            if zone is not None:
                s = s.dt.replace_time_zone("UTC").dt.convert_time_zone(zone)
            cols[f"{unit}_{name}"] = s
    pl.DataFrame(cols).write_parquet("polars.parquet")


def pyarrow_file():
    ns = pa.array([1711848615123456789, None], pa.int64())
    cols = {}
    for unit, div in [("s", 10**9), ("ms", 10**6), ("us", 10**3), ("ns", 1)]:
        for name, zone in ZONES.items():
            vals = pa.array([None if v is None else v // div for v in ns.to_pylist()], pa.int64())
            cols[f"{unit}_{name}"] = vals.cast(pa.timestamp(unit, tz=zone))
    pq.write_table(pa.table(cols), "pyarrow.parquet")


if __name__ == "__main__":
    pandas_file()
    polars_file()
    pyarrow_file()
