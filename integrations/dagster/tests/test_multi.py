"""Several tables of one extract as one multi-asset: each its own checks, materialization and
loaded table; one table's failure does not stop or touch the others."""

import dagster as dg
import polars as pl
from test_e2e import CHECKS, INVALID, ROWS, VALID

from tablegate_dagster import tablegate_multi_asset


@dg.asset
def both(orders: pl.DataFrame, returns: pl.DataFrame) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"rows": len(orders) + len(returns)})


def extract(tablegate, schemas, tmp_path, returns_rows):
    return tablegate_multi_asset(
        name="shop_extract",
        executable=tablegate,
        group_name="shop",
        tables=[
            {"name": "orders", "schema": schemas["orders"], "query": ROWS.format(VALID), "out": str(tmp_path / "orders.parquet")},
            {"name": "returns", "schema": schemas["orders"], "query": ROWS.format(returns_rows), "out": str(tmp_path / "returns.parquet"), "description": "Returned orders."},
        ],
    )


def test_tables_of_one_extract(tablegate, schemas, tmp_path, instance):
    assets = extract(tablegate, schemas, tmp_path, VALID)
    result = dg.materialize([assets, both], instance=instance)
    assert result.success
    for key in ("orders", "returns"):
        mat = instance.get_latest_materialization_event(dg.AssetKey(key)).asset_materialization
        assert mat.metadata["dagster/row_count"].value == 2
        evals = [e for e in result.get_asset_check_evaluations() if e.asset_key == dg.AssetKey(key)]
        assert [e.check_name for e in evals] == CHECKS
    assert instance.get_latest_materialization_event(dg.AssetKey("both")).asset_materialization.metadata["rows"].value == 4
    assert assets.specs_by_key[dg.AssetKey("returns")].description == "Returned orders."


def test_one_table_fails_the_other_materializes(tablegate, schemas, tmp_path, instance):
    result = dg.materialize([extract(tablegate, schemas, tmp_path, INVALID)], instance=instance, raise_on_error=False)
    assert not result.success
    description = result.get_step_failure_events()[0].step_failure_data.user_failure_data.description
    assert description.startswith("1 of the tables failed: returns: ValidationAbortError")
    assert instance.get_latest_materialization_event(dg.AssetKey("orders")) is not None
    assert instance.get_latest_materialization_event(dg.AssetKey("returns")) is None
    assert (tmp_path / "orders.parquet").exists() and not (tmp_path / "returns.parquet").exists()
    returns_min = [e for e in result.get_asset_check_evaluations() if e.asset_key == dg.AssetKey("returns") and e.check_name == "dy_rule__amount__min"]
    assert returns_min[0].passed is False


def test_subset(tablegate, schemas, tmp_path, instance):
    assets = extract(tablegate, schemas, tmp_path, VALID)
    result = dg.materialize([assets], selection=["returns"], instance=instance)
    assert result.success
    assert instance.get_latest_materialization_event(dg.AssetKey("orders")) is None
    assert instance.get_latest_materialization_event(dg.AssetKey("returns")) is not None
