"""The dagster CLI, as users run it: `dagster asset materialize` on a definitions file with a
tablegate asset and a downstream asset that loads its table, against a DAGSTER_HOME instance."""

import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg
import tablegate_dagster
from test_e2e import CHECKS, ROWS, VALID


def test_dagster_asset_materialize(tablegate, schemas, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    defs = tmp_path / "defs.py"
    defs.write_text(
        textwrap.dedent(
            f"""
            import dagster as dg
            import polars as pl
            from tablegate_dagster import tablegate_asset

            orders = tablegate_asset(
                name="orders", schema={schemas['orders']!r}, query={ROWS.format(VALID)!r},
                out={str(tmp_path / 'out' / 'orders.parquet')!r}, executable={tablegate!r},
            )

            @dg.asset
            def revenue(orders: pl.DataFrame) -> dg.MaterializeResult:
                return dg.MaterializeResult(metadata={{"revenue": float(orders["amount"].sum())}})

            defs = dg.Definitions(assets=[orders, revenue])
            """
        )
    )
    # The package under test, as this process imports it (installed, or PYTHONPATH=src).
    package_root = str(Path(tablegate_dagster.__file__).parent.parent)
    env = {"DAGSTER_HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONPATH": package_root}
    cmd = [sys.executable, "-m", "dagster", "asset", "materialize", "-f", str(defs), "--select", "orders,revenue"]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with dg.DagsterInstance.from_config(str(home)) as instance:
        orders = instance.get_latest_materialization_event(dg.AssetKey("orders")).asset_materialization
        assert orders.metadata["dagster/row_count"].value == 2
        revenue = instance.get_latest_materialization_event(dg.AssetKey("revenue")).asset_materialization
        assert revenue.metadata["revenue"].value == 3.5
        for name in CHECKS:
            record = instance.event_log_storage.get_asset_check_execution_history(
                dg.AssetCheckKey(dg.AssetKey("orders"), name), limit=1
            )[0]
            assert record.status.value == "SUCCEEDED", name
