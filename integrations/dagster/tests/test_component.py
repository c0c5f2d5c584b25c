"""The component: tablegate assets declared in a defs.yaml, loaded as a Dagster project loads
them, and materialized."""

import shutil

import dagster as dg
from dagster.components.testing import create_defs_folder_sandbox
from test_e2e import CHECKS, MIXED, ROWS

from tablegate_dagster import TablegateAssetsComponent


def test_component_declares_assets(tablegate, schemas, tmp_path, instance):
    with create_defs_folder_sandbox() as sandbox:
        defs_path = sandbox.defs_folder_path / "shop"
        defs_path.mkdir()
        shutil.copy(schemas["orders"], defs_path / "orders.yaml")
        (defs_path / "defs.yaml").write_text(
            "type: tablegate_dagster.TablegateAssetsComponent\n"
            "attributes:\n"
            f"  executable: {tablegate}\n"
            "  assets:\n"
            "    - name: orders\n"
            "      schema: orders.yaml\n"
            f"      query: \"{ROWS.format(MIXED)}\"\n"
            "      out: warehouse/orders.parquet\n"
            "      quarantine: true\n"
            "      group_name: shop\n"
        )
        with sandbox.load_component_and_build_defs(defs_path=defs_path) as (component, defs):
            assert isinstance(component, TablegateAssetsComponent)
            asset = defs.get_assets_def("orders")
            assert [k.name for k in asset.check_keys] and {k.name for k in asset.check_keys} == set(CHECKS)
            assert asset.group_names_by_key[dg.AssetKey("orders")] == "shop"
            result = dg.materialize([asset], instance=instance)
            assert result.success
            mat = instance.get_latest_materialization_event(dg.AssetKey("orders")).asset_materialization
            assert mat.metadata["tablegate/table_address"].value == str(defs_path / "warehouse" / "orders.parquet")
            assert (defs_path / "warehouse" / "orders_quarantine.parquet").exists()
