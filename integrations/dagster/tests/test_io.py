"""Downstream assets load the validated table through the integration's IO manager, as the
downstream parameter's annotation asks, from the table the upstream's latest materialization
recorded; and what a Dagster user sees on the asset: code version, Columns tab."""

import pathlib

import dagster as dg
import duckdb
import pandas as pd
import polars as pl
from test_e2e import ROWS, VALID, Run

from tablegate_dagster import TablegateIOManager, tablegate_asset

FIRST = "('a', 1.0, NULL), ('b', 2.5, 'ok')"
SECOND = "('c', 3.0, NULL)"


def orders(tablegate, schemas, out, **kwargs):
    return tablegate_asset(name="orders", schema=schemas["orders"], executable=tablegate, out=str(out), **kwargs)


@dg.asset
def as_polars(orders: pl.DataFrame) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"ids": ",".join(orders["id"].to_list()), "dtype": str(orders.schema["amount"])})


@dg.asset(ins={"orders": dg.AssetIn("orders")})
def as_others(
    context: dg.AssetExecutionContext, orders: pd.DataFrame
) -> dg.MaterializeResult:  # one annotation per asset: pandas here
    return dg.MaterializeResult(metadata={"ids": ",".join(orders["id"]), "rows": len(orders)})


@dg.asset(ins={"orders": dg.AssetIn("orders")})
def as_relation(orders: duckdb.DuckDBPyRelation) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"sum": float(orders.aggregate("sum(amount)").fetchall()[0][0])})


@dg.asset(ins={"orders": dg.AssetIn("orders")})
def as_path(orders: pathlib.Path) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"path": str(orders)})


@dg.asset(ins={"orders": dg.AssetIn("orders", metadata={"tablegate/load_as": "pandas"})})
def by_metadata(orders) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"kind": type(orders).__module__.split(".")[0]})


def meta(run, key, name):
    return run.materialized(key).metadata[name].value


def test_downstream_loads_the_table(tablegate, schemas, tmp_path, instance):
    out = tmp_path / "out" / "orders.parquet"
    run = Run(instance, orders(tablegate, schemas, out, query=ROWS.format(FIRST)), as_polars, as_others, as_relation, as_path, by_metadata)
    assert run.result.success
    assert meta(run, "as_polars", "ids") == "a,b"
    assert meta(run, "as_polars", "dtype") == "Float64"
    assert meta(run, "as_others", "ids") == "a,b"
    assert meta(run, "as_relation", "sum") == 3.5
    assert meta(run, "as_path", "path") == str(out)
    assert meta(run, "by_metadata", "kind") == "pandas"


def test_skipped_run_leaves_the_last_good_table(tablegate, schemas, tmp_path, instance):
    out = tmp_path / "out" / "orders.parquet"
    assert Run(instance, orders(tablegate, schemas, out, query=ROWS.format(FIRST))).result.success
    # A later run has no source data: it skips and writes nothing.
    skipping = orders(tablegate, schemas, out, input=str(tmp_path / "none" / "*.parquet"), skip_missing=True)
    run = Run(instance, skipping, as_polars)
    assert run.result.success and run.materialized("as_polars") is None, "Dagster skips the downstream asset"
    # The downstream asset, run on its own, loads the last table written.
    result = dg.materialize([skipping, as_polars], selection=[as_polars], instance=instance)
    assert result.success
    assert instance.get_latest_materialization_event(dg.AssetKey("as_polars")).asset_materialization.metadata["ids"].value == "a,b"
    # A run that aborts leaves it too; the next good run replaces it.
    bad = orders(tablegate, schemas, out, query=ROWS.format("('x', -1.0, NULL)"))
    assert not Run(instance, bad, as_polars).result.success
    run = Run(instance, orders(tablegate, schemas, out, query=ROWS.format(SECOND)), as_polars)
    assert meta(run, "as_polars", "ids") == "c"


def test_not_yet_materialized(tablegate, schemas, tmp_path, instance):
    source = dg.AssetSpec("orders")
    result = dg.materialize(
        [source, as_polars], instance=instance, raise_on_error=False, resources={"io_manager": TablegateIOManager()}
    )
    assert not result.success
    failure = result.get_step_failure_events()[0].step_failure_data
    assert "orders has no materialization" in failure.user_failure_data.description


def test_code_version_and_columns(tablegate, schemas, tmp_path, instance):
    asset = orders(tablegate, schemas, tmp_path / "o.parquet", query=ROWS.format(VALID))
    key = dg.AssetKey("orders")
    spec = next(iter(asset.specs))
    assert len(spec.code_version) == 16 and spec.code_version == spec.metadata["tablegate/schema_fingerprint"]
    columns = spec.metadata["dagster/column_schema"].columns
    assert [(c.name, c.type, c.constraints.nullable, c.constraints.unique) for c in columns] == [
        ("id", "String", False, True),
        ("amount", "Float64", False, False),
        ("note", "String", True, False),
    ]
    assert columns[1].description == "Rules: amount not null; amount >= 0; amount not infinite; amount not NaN."
    assert asset.code_versions_by_key[key] == spec.code_version


@dg.asset
def quarantined_ids(orders__error_rows: pl.DataFrame) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"ids": ",".join(sorted(orders__error_rows["id"].to_list()))})


def test_quarantine_as_an_asset(tablegate, schemas, tmp_path, instance):
    from test_e2e import INVALID, MIXED

    def asset(rows):
        return orders(
            tablegate, schemas, tmp_path / "out" / "orders.parquet", query=ROWS.format(rows),
            quarantine=True, quarantine_name="orders__error_rows", quarantine_asset=True, group_name="shop",
        )

    run = Run(instance, asset(MIXED), as_polars, quarantined_ids)
    assert run.result.success
    q = run.materialized("orders__error_rows")
    assert q.metadata["dagster/row_count"].value == 3
    assert q.metadata["tablegate/table_address"].value == str(tmp_path / "out" / "orders__error_rows.parquet")
    assert meta(run, "quarantined_ids", "ids") == "b,g,g"
    assert meta(run, "as_polars", "ids") == "a,c,f"
    assert run.evals["dy_rule__amount__min"].passed is False
    # No valid rows: the quarantine is written and materialized, the table is not, the step fails.
    fresh = dg.DagsterInstance.ephemeral()
    run = Run(fresh, asset(INVALID))
    assert not run.result.success
    assert run.materialized("orders__error_rows").metadata["dagster/row_count"].value == 2
    assert run.materialized("orders") is None
