"""A collection (examples/shop, whose data breaks each kind of rule) as one multi-asset: an asset
per member with the member's checks, the collection's filters and references among them; written
all or nothing."""

import shutil

import dagster as dg
import polars as pl
from conftest import REPO

from tablegate_dagster import tablegate_collection_asset

MEMBERS = ["orders", "items", "invoices", "refunds", "products"]


def shop(tablegate, tmp_path, quarantine):
    src = tmp_path / "shop"
    shutil.copytree(REPO / "examples" / "shop", src)
    return tablegate_collection_asset(
        collection=str(src / "shop.yaml"),
        input_dir=str(src),
        out_dir=str(tmp_path / "out"),
        quarantine=quarantine,
        executable=tablegate,
        group_name="shop",
    )


@dg.asset
def item_products(items: pl.DataFrame, products: pl.DataFrame) -> int:
    """The kept items whose product is not among the kept products."""
    return items.filter(pl.col("product_id").is_not_null() & ~pl.col("product_id").is_in(products["product_id"].implode())).height


def evaluations(result):
    return {(e.asset_key.to_user_string(), e.check_name): e for e in result.get_asset_check_evaluations()}


def test_quarantined_shop_materializes_every_member(tablegate, tmp_path, instance):
    defs = shop(tablegate, tmp_path, quarantine=True)
    assert sorted(k.to_user_string() for k in defs.keys) == sorted(MEMBERS)
    result = dg.materialize([defs], instance=instance)
    assert result.success
    evals = evaluations(result)
    for member in MEMBERS:
        key = dg.AssetKey(member)
        mat = instance.get_latest_materialization_event(key).asset_materialization
        assert mat.metadata["dagster/row_count"].value == pl.read_parquet(tmp_path / "out" / f"{member}.parquet").height
        # Every declared check of the member is reported under its key, in the declared order.
        assert [n for (m, n) in evals if m == member] == [s.name for s in defs.check_specs if s.asset_key == key]
    item_product = evals[("items", "dy_rule__item_product")]
    assert item_product.passed is False
    assert item_product.metadata["dataframely/failed_row_count"].value == 1
    assert evals[("orders", "dy_rule__one_invoice")].passed is False
    assert evals[("refunds", "dy_rule__orders_have_items")].passed is True
    assert all(e.passed for (m, _), e in evals.items() if m == "products")
    # The written members load downstream like single tables; the kept items refer to products.
    loaded = dg.materialize([defs, item_products], selection=["item_products"], instance=instance)
    assert loaded.success
    assert loaded.output_for_node("item_products") == 0


def test_failing_shop_writes_no_member(tablegate, tmp_path, instance):
    result = dg.materialize([shop(tablegate, tmp_path, quarantine=False)], instance=instance, raise_on_error=False)
    assert not result.success
    description = result.get_step_failure_events()[0].step_failure_data.user_failure_data.description
    assert description.startswith("CollectionError: collection Shop: 4 of its members failed"), description
    evals = evaluations(result)
    assert evals[("items", "dy_rule__item_product")].passed is False
    assert evals[("products", "dy_rule__primary_key")].passed is True
    for member in MEMBERS:
        assert instance.get_latest_materialization_event(dg.AssetKey(member)) is None
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
