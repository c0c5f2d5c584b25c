"""A Dagster component: tablegate assets declared in a defs.yaml, one per schema file."""

import os
from dataclasses import dataclass, field
from typing import Any

import dagster as dg

# Arguments that name files: relative ones are relative to the component's folder.
_PATHS = ("schema", "input", "out", "db")


@dataclass
class TablegateAssetsComponent(dg.Component, dg.Resolvable):
    """tablegate assets from schema files, declared in a component's ``defs.yaml``::

        type: tablegate_dagster.TablegateAssetsComponent
        attributes:
          assets:
            - name: orders
              schema: orders.yaml
              input: landing/orders/*.parquet
              out: warehouse/orders.parquet
              quarantine: true

    Each entry takes ``tablegate_asset``'s arguments; ``schema``, ``input``, ``out`` and ``db``
    are relative to the component's folder. ``executable`` applies to every asset.
    """

    assets: list[dict[str, Any]] = field(default_factory=list)
    executable: str | None = None

    def build_defs(self, context: dg.ComponentLoadContext) -> dg.Definitions:
        from . import tablegate_asset

        folder = str(context.path)
        built = []
        for entry in self.assets:
            args = dict(entry)
            for name in _PATHS:
                if isinstance(args.get(name), str):
                    args[name] = os.path.join(folder, args[name])
            args.setdefault("executable", self.executable)
            built.append(tablegate_asset(**args))
        return dg.Definitions(assets=built)
