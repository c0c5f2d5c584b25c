"""Partitioned tablegate assets: each partition has its own table and quarantine (out with
{partition_key}), its checks recorded under its partition, its own loaded table downstream, and
one partition's failure leaves the others' tables alone; a single run over a range of partitions
(a backfill with BackfillPolicy.single_run()) validates each key of it in turn."""

import dagster as dg
import duckdb
import polars as pl
import pytest
from dagster._core.storage.tags import ASSET_PARTITION_RANGE_END_TAG, ASSET_PARTITION_RANGE_START_TAG
from test_e2e import ROWS

from tablegate_dagster import TablegateError, tablegate_asset, tablegate_multi_asset

DAYS = dg.StaticPartitionsDefinition(["2026-01-01", "2026-01-02", "it's"])
# One query for every partition: the key arrives as a SQL string literal.
QUERY = (
    "SELECT id::VARCHAR AS id, amount::DOUBLE AS amount, note::VARCHAR AS note FROM (VALUES "
    "('2026-01-01', 'a', 1.0, NULL), ('2026-01-01', 'b', -1.0, NULL), "
    "('2026-01-02', 'c', 2.0, NULL), ('2026-01-02', 'd', -2.0, NULL), ('2026-01-02', 'e', -3.0, NULL), "
    "('it''s', 'q', 7.0, NULL)"
    ") t(day, id, amount, note) WHERE day = {partition_key}"
)


def orders(tablegate, schemas, tmp_path, query=QUERY, **kwargs):
    kwargs.setdefault("out", str(tmp_path / "out" / "orders_{partition_key}.parquet"))
    return tablegate_asset(
        name="orders",
        schema=schemas["orders"],
        query=query,
        partitions_def=DAYS,
        executable=tablegate,
        **kwargs,
    )


@dg.asset(partitions_def=DAYS)
def ids(orders: pl.DataFrame) -> dg.MaterializeResult:
    return dg.MaterializeResult(metadata={"ids": ",".join(orders["id"].to_list())})


def materialize(instance, assets, partition):
    return dg.materialize(assets, instance=instance, partition_key=partition, raise_on_error=False)


def test_partitions_have_their_own_tables(tablegate, schemas, tmp_path, instance):
    asset = orders(tablegate, schemas, tmp_path, quarantine=True)
    for day in ("2026-01-01", "2026-01-02"):
        assert materialize(instance, [asset, ids], day).success
    out = tmp_path / "out"
    assert pl.read_parquet(out / "orders_2026-01-01.parquet")["id"].to_list() == ["a"]
    assert pl.read_parquet(out / "orders_2026-01-02.parquet")["id"].to_list() == ["c"]
    assert pl.read_parquet(out / "orders_quarantine_2026-01-01.parquet")["id"].to_list() == ["b"]
    assert sorted(pl.read_parquet(out / "orders_quarantine_2026-01-02.parquet")["id"].to_list()) == ["d", "e"]

    # Each partition's checks are recorded under it.
    records = instance.event_log_storage.get_asset_check_execution_history(
        dg.AssetCheckKey(dg.AssetKey("orders"), "dy_rule__amount__min"), limit=5
    )
    by_partition = {r.event.dagster_event.event_specific_data.partition: r.event.dagster_event.event_specific_data for r in records}
    assert set(by_partition) == {"2026-01-01", "2026-01-02"}
    assert by_partition["2026-01-02"].metadata["dataframely/failed_row_count"].value == 2
    assert by_partition["2026-01-01"].metadata["dataframely/failed_row_count"].value == 1

    # The downstream asset loads its own partition's table.
    def loaded(day):
        records = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("ids"), asset_partitions=[day]), limit=1
        ).records
        return records[0].asset_materialization.metadata["ids"].value

    assert (loaded("2026-01-01"), loaded("2026-01-02")) == ("a", "c")

    # A quote in the key is a literal in the query (not SQL), and a file name character.
    assert materialize(instance, [asset], "it's").success
    assert pl.read_parquet(out / "orders_it's.parquet")["id"].to_list() == ["q"]


def test_a_failing_partition_leaves_the_others(tablegate, schemas, tmp_path, instance):
    asset = orders(tablegate, schemas, tmp_path)  # no quarantine: an invalid row aborts
    out = tmp_path / "out"
    good = orders(tablegate, schemas, tmp_path, query=QUERY.replace("-1.0", "1.0"))
    assert materialize(instance, [good], "2026-01-01").success
    before = (out / "orders_2026-01-01.parquet").read_bytes()
    result = materialize(instance, [asset], "2026-01-02")
    assert not result.success
    assert not (out / "orders_2026-01-02.parquet").exists()
    assert (out / "orders_2026-01-01.parquet").read_bytes() == before
    assert materialize(instance, [asset, ids], "2026-01-01").success is False, "its own data now fails too"
    assert (out / "orders_2026-01-01.parquet").read_bytes() == before


def test_out_must_name_the_partition(tablegate, schemas, tmp_path):
    with pytest.raises(TablegateError, match=r"put \{partition_key\} in out"):
        orders(tablegate, schemas, tmp_path, out=str(tmp_path / "orders.parquet"))


def test_a_key_that_is_not_a_path_component(tablegate, schemas, tmp_path, instance):
    slashed = dg.StaticPartitionsDefinition(["a/../../escape"])
    asset = tablegate_asset(
        name="orders",
        schema=schemas["orders"],
        query=ROWS.format("('a', 1.0, NULL)"),
        out=str(tmp_path / "out" / "{partition_key}" / "orders.parquet"),
        partitions_def=slashed,
        executable=tablegate,
    )
    result = dg.materialize([asset], instance=instance, partition_key="a/../../escape", raise_on_error=False)
    assert not result.success
    assert "cannot go into a path" in result.get_step_failure_events()[0].step_failure_data.user_failure_data.description
    assert not (tmp_path / "escape").exists()


def range_run(instance, assets, first, last):
    """A single run over the partitions first..last, as a backfill with BackfillPolicy.single_run()
    launches it."""
    return dg.materialize(
        assets,
        instance=instance,
        tags={ASSET_PARTITION_RANGE_START_TAG: first, ASSET_PARTITION_RANGE_END_TAG: last},
        raise_on_error=False,
    )


def materializations(instance, key="orders"):
    records = instance.fetch_materializations(dg.AssetKey(key), limit=10).records
    return {r.partition_key: r.asset_materialization for r in records}


def test_a_range_runs_once_per_key(tablegate, schemas, tmp_path, instance):
    asset = orders(tablegate, schemas, tmp_path, quarantine=True, backfill_policy=dg.BackfillPolicy.single_run())
    result = range_run(instance, [asset], "2026-01-01", "it's")
    assert result.success
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == [
        "orders_2026-01-01.parquet",
        "orders_2026-01-02.parquet",
        "orders_it's.parquet",
        "orders_quarantine_2026-01-01.parquet",
        "orders_quarantine_2026-01-02.parquet",
    ], "one table per key, no {partition_key} file"
    mats = materializations(instance)
    assert {k: m.metadata["dagster/row_count"].value for k, m in mats.items()} == {"2026-01-01": 1, "2026-01-02": 1, "it's": 1}
    assert mats["2026-01-02"].metadata["tablegate/table_address"].value == str(out / "orders_2026-01-02.parquet")
    assert mats["2026-01-02"].tags["dagster/data_version"]

    # Each key's checks are recorded under it.
    records = instance.event_log_storage.get_asset_check_execution_history(
        dg.AssetCheckKey(dg.AssetKey("orders"), "dy_rule__amount__min"), limit=5
    )
    by_partition = {r.event.dagster_event.event_specific_data.partition: r.event.dagster_event.event_specific_data for r in records}
    assert set(by_partition) == {"2026-01-01", "2026-01-02", "it's"}
    assert by_partition["2026-01-02"].metadata["dataframely/failed_row_count"].value == 2

    # A downstream partition loads its own table.
    assert materialize(instance, [asset, ids], "2026-01-02").success


def test_a_range_with_missing_inputs(tablegate, schemas, tmp_path, instance):
    land = tmp_path / "land"
    land.mkdir()
    for day, rows in (("2026-01-01", "('a', 1.0, NULL)"), ("2026-01-02", "('c', 2.0, NULL), ('d', 3.0, NULL)")):
        duckdb.sql(ROWS.format(rows)).write_parquet(str(land / f"{day}.parquet"))

    def landed(out, **kwargs):
        return tablegate_asset(
            name="orders",
            schema=schemas["orders"],
            input=str(land / "{partition_key}.parquet"),
            out=str(tmp_path / out / "{partition_key}.parquet"),
            partitions_def=DAYS,
            backfill_policy=dg.BackfillPolicy.single_run(),
            executable=tablegate,
            **kwargs,
        )

    result = range_run(instance, [landed("out", skip_missing=True)], "2026-01-01", "it's")
    assert result.success, "the key whose input has not landed is skipped"
    mats = materializations(instance)
    assert {k: m.metadata["dagster/row_count"].value for k, m in mats.items()} == {"2026-01-01": 1, "2026-01-02": 2}
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["2026-01-01.parquet", "2026-01-02.parquet"]

    # Without skip_missing the range fails naming the key, after the others were written, and a
    # RetryPolicy may retry it (the input may land).
    result = range_run(instance, [landed("strict")], "2026-01-01", "it's")
    assert not result.success
    failure = result.get_step_failure_events()[0].step_failure_data.user_failure_data
    assert failure.description.startswith("1 of 3 partitions failed: partition \"it's\": InputError")
    assert sorted(p.name for p in (tmp_path / "strict").iterdir()) == ["2026-01-01.parquet", "2026-01-02.parquet"]


def test_a_multi_asset_range_runs_each_table_per_key(tablegate, schemas, tmp_path, instance):
    extract = tablegate_multi_asset(
        name="shop_extract",
        tables=[
            {"name": name, "schema": schemas["orders"], "query": QUERY, "quarantine": True, "out": str(tmp_path / name / "{partition_key}.parquet")}
            for name in ("orders", "returns")
        ],
        partitions_def=DAYS,
        backfill_policy=dg.BackfillPolicy.single_run(),
        executable=tablegate,
    )
    assert range_run(instance, [extract], "2026-01-01", "2026-01-02").success
    for name in ("orders", "returns"):
        assert sorted(materializations(instance, name)) == ["2026-01-01", "2026-01-02"]
        assert sorted(p.name for p in (tmp_path / name).iterdir()) == [
            "2026-01-01.parquet",
            "2026-01-02.parquet",
            f"{name}_quarantine_2026-01-01.parquet",
            f"{name}_quarantine_2026-01-02.parquet",
        ]
