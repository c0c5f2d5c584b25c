"""Fixtures for the end-to-end tests: a tablegate binary built from this checkout (or
TABLEGATE_BIN), schemas, and an ephemeral Dagster instance per test."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import dagster as dg
import pytest

from tablegate_dagster import find_tablegate

REPO = Path(__file__).resolve().parents[3]

ORDERS_YAML = """\
schema: Orders
columns:
  - name: id
    type: String
    primary_key: true
  - name: amount
    type: Float64
    min: 0
  - name: note
    type: String
    nullable: true
    max_length: 5
    severity: warn
"""

SHOP_YAML = """\
schema: Shop
columns:
  - name: id
    type: Int64
  - name: tags
    type: List
    inner:
      type: String
      min_length: 2
  - name: address
    type: Struct
    fields:
      - name: city
        type: String
      - name: zip
        type: String
"""


@pytest.fixture(scope="session")
def tablegate(tmp_path_factory) -> str:
    if os.environ.get("TABLEGATE_BIN"):
        return os.environ["TABLEGATE_BIN"]
    if shutil.which("go") is None:
        # No Go: the binary the installed package carries (its platform wheel) or finds on PATH.
        return find_tablegate()
    binary = tmp_path_factory.mktemp("bin") / "tablegate"
    subprocess.run(["go", "build", "-o", str(binary), "./cmd/tablegate"], cwd=REPO, check=True)
    return str(binary)


@pytest.fixture
def schemas(tmp_path) -> dict[str, str]:
    (tmp_path / "orders.yaml").write_text(ORDERS_YAML)
    (tmp_path / "shop.yaml").write_text(SHOP_YAML)
    return {"orders": str(tmp_path / "orders.yaml"), "shop": str(tmp_path / "shop.yaml")}


@pytest.fixture
def instance():
    with dg.DagsterInstance.ephemeral() as inst:
        yield inst
