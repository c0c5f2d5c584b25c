"""Validate ODCS contracts against the JSON schema of the standard's version they declare.

Usage: validate_odcs.py PACKAGE_DIR... -- CONTRACT...

Each PACKAGE_DIR holds an installed `open-data-contract-standard` (pip install --target), whose
open_data_contract_standard/schema.json is the JSON schema of one minor version of the standard
(3.0.4 ships v3.0.2's, which also admits v3.0.0 and v3.0.1; 3.1.2 ships v3.1.0's; 3.2.0 ships
v3.2.0's). A contract is validated against the schema of its apiVersion's minor version.

Prints one JSON object per contract on its own line:
{"file": ..., "apiVersion": ..., "schema": "v3.1.0", "errors": [{"path": "schema[0].properties[3]", "message": ...}]}
A contract whose version has no schema among the packages is reported with "schema": "" and an
error saying so; the exit status is 0 unless the arguments are wrong.
"""

import json
import os
import sys

import jsonschema
import yaml


class JSONLoader(yaml.SafeLoader):
    """Reads YAML as JSON sees it: a date or time stays a string (YAML 1.1 would make it a date,
    which no JSON schema admits)."""


JSONLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def minor(version):
    parts = str(version).lstrip("v").split(".")
    return ".".join(parts[:2])


def load_schemas(dirs):
    schemas = {}
    for d in dirs:
        path = os.path.join(d, "open_data_contract_standard", "schema.json")
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        version = schema["properties"]["apiVersion"]["default"]
        validator = jsonschema.validators.validator_for(schema)
        validator.check_schema(schema)
        schemas[minor(version)] = (version, validator(schema))
    return schemas


def contract_path(parts):
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += "[%d]" % p
        else:
            out += ("." if out else "") + str(p)
    return out


def validate(file, schemas):
    with open(file, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=JSONLoader)
    api = doc.get("apiVersion", "") if isinstance(doc, dict) else ""
    entry = schemas.get(minor(api))
    if entry is None:
        return {"file": file, "apiVersion": api, "schema": "",
                "errors": [{"path": "apiVersion", "message": "no JSON schema for %r among the packages" % api}]}
    version, validator = entry
    errors = sorted(validator.iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
    return {"file": file, "apiVersion": api, "schema": version,
            "errors": [{"path": contract_path(e.absolute_path), "message": e.message[:300]} for e in errors]}


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    i = argv.index("--")
    schemas = load_schemas(argv[:i])
    for file in argv[i + 1:]:
        print(json.dumps(validate(file, schemas), ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
