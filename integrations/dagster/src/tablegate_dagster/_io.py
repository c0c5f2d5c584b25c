"""Loading a tablegate asset's validated table into a downstream asset."""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
from typing import Any

import dagster as dg

#: The materialization metadata key of the table tablegate wrote.
TABLE_ADDRESS_KEY = "tablegate/table_address"
#: The metadata key of the quarantine's address, on the materialization and on every check.
ERROR_ROWS_ADDRESS_KEY = "dataframely/error_rows_address"
#: Input metadata that chooses how one input is loaded (overrides the IO manager's ``load_as``).
LOAD_AS_KEY = "tablegate/load_as"
LOAD_AS = ("polars", "polars_lazy", "pandas", "duckdb", "path")


class TablegateIOManager(dg.ConfigurableIOManager):
    """Hands a downstream asset the table a tablegate asset wrote.

    tablegate writes the table itself, so storing an output does nothing. Loading reads the
    table the upstream asset's latest materialization (of the partition) recorded: the table the
    run that just ran wrote, or, when that run skipped, the last one written. How it is loaded
    follows, first, the downstream parameter's annotation (``polars.DataFrame``,
    ``polars.LazyFrame``, ``pandas.DataFrame``, ``duckdb.DuckDBPyRelation``, ``str`` or
    ``pathlib.Path`` for the path), then the input's ``tablegate/load_as`` metadata, then
    ``load_as``: one of ``polars``, ``polars_lazy``, ``pandas``, ``duckdb``, ``path``.
    """

    load_as: str = "polars"

    def handle_output(self, context: dg.OutputContext, obj: Any) -> None:
        if obj is not None:
            raise dg.Failure(f"tablegate writes {context.asset_key.to_user_string()} itself; its asset returns no value")

    def load_input(self, context: dg.InputContext) -> Any:
        address = table_address(context.instance, context.asset_key, _partition(context))
        how = _load_as(context, self.load_as)
        if how == "path" and _annotation(context) is pathlib.Path:
            return pathlib.Path(address)
        return load_table(address, how)


def table_address(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str | None) -> str:
    """The address of the table the asset's latest materialization (of ``partition``) wrote."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition] if partition is not None else None),
        limit=1,
    ).records
    what = key.to_user_string() + (f" partition {partition!r}" if partition is not None else "")
    if not records:
        raise dg.Failure(f"{what} has no materialization: tablegate never wrote its table; materialize it first")
    mat = records[0].asset_materialization
    address = mat.metadata.get(TABLE_ADDRESS_KEY) if mat else None
    if address is None:
        raise dg.Failure(f"{what}'s latest materialization was not written by tablegate (no {TABLE_ADDRESS_KEY})")
    return str(address.value)


def load_table(address: str, how: str) -> Any:
    """The table at a tablegate table address (a Parquet path, or ``file.duckdb:[schema.]table``).

    A table with a ``Duration`` column (DuckDB's INTERVAL) reaches polars through DuckDB, each
    INTERVAL as a ``polars.Duration("us")`` of its microseconds (a month counts 30 days): polars
    cannot read Parquet's INTERVAL itself."""
    db, table = split_duckdb_address(address)
    if how == "path":
        return address
    if db is None and how == "pandas":
        import pandas as pd

        return pd.read_parquet(address)
    import duckdb

    rel = duckdb.connect().read_parquet(address) if db is None else duckdb.connect(db, read_only=True).table(table)
    if how == "duckdb":
        return rel
    if how == "pandas":
        return rel.df()
    if db is None and not any("INTERVAL" in str(t) for t in rel.types):
        import polars as pl

        return pl.read_parquet(address) if how == "polars" else pl.scan_parquet(address)
    return _polars_through_duckdb(rel, lazy=how == "polars_lazy")


def _polars_through_duckdb(rel: Any, *, lazy: bool) -> Any:
    """The relation as a polars frame, its INTERVAL columns as Duration("us") (DuckDB hands
    polars an Arrow interval, which polars refuses)."""
    import polars as pl

    def ident(c: str) -> str:
        return '"' + c.replace('"', '""') + '"'

    top = [c for c, t in zip(rel.columns, rel.types) if str(t) == "INTERVAL"]
    if top:
        rel = rel.select(", ".join(f"epoch_us({ident(c)}) AS {ident(c)}" if c in top else ident(c) for c in rel.columns))
    frame = rel.pl(lazy=True) if lazy else rel.pl()
    return frame.with_columns(pl.col(*top).cast(pl.Duration("us"))) if top else frame


#: The suffixes that mark a DuckDB database file in an address, as tablegate reads them.
_DB_SUFFIXES = (".duckdb:", ".ddb:", ".db:")
#: A URL (s3://…) or a catalog table (delta:ns.table): not a local path.
_NOT_A_PATH = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def split_duckdb_address(address: str) -> tuple[str | None, str]:
    """``warehouse.duckdb:orders`` → (``warehouse.duckdb``, ``orders``); a Parquet path → (None, path)."""
    for suffix in _DB_SUFFIXES:
        i = address.rfind(suffix)
        if i >= 0:
            name = address[i + len(suffix) :]
            return (address[: i + len(suffix) - 1], name) if name else (None, address)
    return None, address


def absolute_address(address: str, base: str) -> str:
    """A table address with its file made absolute against ``base`` (the folder tablegate ran
    in), so it names the same table from any process; URLs and catalog tables stay as they are."""
    if not address:
        return address
    db, table = split_duckdb_address(address)
    if db is not None:
        return os.path.abspath(os.path.join(base, db)) + ":" + table
    if _NOT_A_PATH.match(address):
        return address
    return os.path.abspath(os.path.join(base, address))


def data_version(address: str) -> str | None:
    """The written table's content as a Dagster data version: the SHA-256 of a Parquet file, the
    row count and a sum of row hashes of a DuckDB table (when the duckdb package is installed);
    ``None`` for anything else, or when the file cannot be read now (another process holds it):
    Dagster then derives one from the code version and inputs."""
    db, table = split_duckdb_address(address)
    if db is None:
        if not os.path.isfile(address):
            return None
        digest = hashlib.sha256()
        with open(address, "rb") as f:
            while chunk := f.read(1 << 20):
                digest.update(chunk)
        return digest.hexdigest()
    try:
        import duckdb
    except ImportError:
        return None
    try:
        with duckdb.connect(db, read_only=True) as con:
            rows, total = con.execute(f"SELECT count(*), sum(hash(t)) FROM {_qualified(table)} AS t").fetchone()
    except duckdb.Error:
        return None
    return hashlib.sha256(f"{rows}:{total}".encode()).hexdigest()


def _qualified(table: str) -> str:
    return ".".join('"' + part.replace('"', '""') + '"' for part in table.split(".", 1))


def _partition(context: dg.InputContext) -> str | None:
    if not context.has_asset_partitions:
        return None
    keys = context.asset_partition_keys
    if len(keys) != 1:
        raise dg.Failure(f"load one partition of {context.asset_key.to_user_string()} at a time (asked for {len(keys)})")
    return keys[0]


def _annotation(context: dg.InputContext) -> Any:
    return context.dagster_type.typing_type if context.dagster_type else Any


def _load_as(context: dg.InputContext, default: str) -> str:
    by_type = _by_annotation(_annotation(context))
    if by_type:
        return by_type
    how = (context.definition_metadata or {}).get(LOAD_AS_KEY, default)
    if how not in LOAD_AS:
        raise dg.Failure(f"{LOAD_AS_KEY}={how!r}: use one of {', '.join(LOAD_AS)}")
    return how


def _by_annotation(t: Any) -> str | None:
    if t in (str, pathlib.Path):
        return "path"
    module, name = getattr(t, "__module__", ""), getattr(t, "__name__", "")
    if module.startswith("polars"):
        return {"DataFrame": "polars", "LazyFrame": "polars_lazy"}.get(name)
    if module.startswith("pandas") and name == "DataFrame":
        return "pandas"
    if module.startswith("duckdb") and name == "DuckDBPyRelation":
        return "duckdb"
    return None
