"""dataframely peer for the tablegate benchmark harness.

The same rule sets as benchmarks/schemas/bench{5,15,40}.yaml and the string-keyed
{order15,uuid15,pair15}.yaml, written as dataframely schemas (dataframely 3: group rules use
`over`; string membership is a check). It reads the schema's columns of the Parquet input, runs
`Schema.filter` without casting, and writes the valid rows and the failure info (the invalid rows
with their rule columns), as tablegate's full validation writes the table and the quarantine.

    python3 benchmarks/peers/dataframely_bench.py --rules 15 --input data.parquet --out outdir
    python3 benchmarks/peers/dataframely_bench.py --rules order15 --input strings.parquet --out outdir
"""

import argparse
import datetime as dt
import json
import os

import dataframely as dy
import polars as pl

STATUSES = ["placed", "paid", "shipped", "cancelled"]
EMAIL = r"^[a-z0-9.]+@[a-z]+\.[a-z]{2,3}$"


class Bench5(dy.Schema):
    id = dy.Int64(nullable=True)
    customer_id = dy.Int64(nullable=True)
    amount = dy.Float64(nullable=True, min=0.0, allow_inf=True, allow_nan=True)
    quantity = dy.Int32(nullable=True, max=1000)
    price = dy.Decimal(12, 2, nullable=True)
    status = dy.String(nullable=True, check={"is_in": lambda c: c.is_in(STATUSES)})
    email = dy.String(nullable=True, regex=EMAIL)
    country = dy.String(nullable=True, max_length=2)
    created_at = dy.Datetime(nullable=True)
    shipped_on = dy.Date(nullable=True)
    discount = dy.Float64(nullable=True, allow_inf=True, allow_nan=True)
    note = dy.String(nullable=True)
    gift = dy.Bool(nullable=True)


class Bench15(dy.Schema):
    id = dy.Int64(primary_key=True)
    customer_id = dy.Int64(nullable=True)
    amount = dy.Float64(min=0.0, max=100000.0)
    quantity = dy.Int32(nullable=True, min=1, max=1000)
    price = dy.Decimal(12, 2, nullable=True)
    status = dy.String(nullable=True, check={"is_in": lambda c: c.is_in(STATUSES)})
    email = dy.String(nullable=True, regex=EMAIL, max_length=254)
    country = dy.String(nullable=True, max_length=2)
    created_at = dy.Datetime(nullable=True, min=dt.datetime(2020, 1, 1))
    shipped_on = dy.Date(nullable=True)
    discount = dy.Float64(nullable=True, allow_inf=True, allow_nan=True)
    note = dy.String(nullable=True)
    gift = dy.Bool(nullable=True)

    @dy.rule()
    def customer_total_bounded(cls) -> pl.Expr:
        return (pl.len() < 1000).over("customer_id")


class Bench40(dy.Schema):
    id = dy.Int64(primary_key=True, min=0)
    customer_id = dy.Int64(min=0, max=999999)
    amount = dy.Float64(min=0.0, max=100000.0)
    quantity = dy.Int32(min=1, max=1000)
    price = dy.Decimal(12, 2, min=0)
    status = dy.String(check={"is_in": lambda c: c.is_in(STATUSES)})
    email = dy.String(regex=EMAIL, min_length=5, max_length=254, check={"lowercase": lambda c: c.str.to_lowercase() == c})
    country = dy.String(min_length=2, max_length=2, check={"lowercase": lambda c: c.str.to_lowercase() == c})
    created_at = dy.Datetime(min=dt.datetime(2020, 1, 1), max=dt.datetime(2035, 1, 1))
    shipped_on = dy.Date(nullable=True, min=dt.date(2020, 1, 1))
    discount = dy.Float64(nullable=True, min=0.0, max=1.0)
    note = dy.String(nullable=True, max_length=200)
    gift = dy.Bool()

    @dy.rule()
    def customer_total_bounded(cls) -> pl.Expr:
        return (pl.len() < 1000).over("customer_id")

    @dy.rule()
    def price_matches_amount(cls) -> pl.Expr:
        return pl.col("price").is_null() | (pl.col("amount") >= 0)

    @dy.rule()
    def discount_only_when_paid(cls) -> pl.Expr:
        return pl.col("discount").is_null() | (pl.col("status") != "cancelled") | (pl.col("discount") < 1)


class Order15(dy.Schema):
    order_no = dy.String(primary_key=True, regex=r"^ORD-\d{8}$")
    customer_code = dy.String(nullable=True)
    uuid = dy.String(nullable=True)
    amount = dy.Float64(min=0.0, max=100000.0)
    quantity = dy.Int32(nullable=True, min=1, max=1000)
    price = dy.Decimal(12, 2, nullable=True)
    status = dy.String(nullable=True, check={"is_in": lambda c: c.is_in(STATUSES)})
    email = dy.String(nullable=True, regex=EMAIL)
    country = dy.String(nullable=True, max_length=2)
    created_at = dy.Datetime(nullable=True, min=dt.datetime(2020, 1, 1))
    as_of = dy.Date(nullable=True)
    note = dy.String(nullable=True)
    gift = dy.Bool(nullable=True)

    @dy.rule()
    def customer_total_bounded(cls) -> pl.Expr:
        return (pl.len() < 1000).over("customer_code")


class Uuid15(dy.Schema):
    order_no = dy.String(nullable=True)
    customer_code = dy.String(nullable=True)
    uuid = dy.String(primary_key=True)
    amount = dy.Float64(min=0.0, max=100000.0)
    quantity = dy.Int32(nullable=True, min=1, max=1000)
    price = dy.Decimal(12, 2, nullable=True)
    status = dy.String(nullable=True, check={"is_in": lambda c: c.is_in(STATUSES)})
    email = dy.String(nullable=True, regex=EMAIL, max_length=254)
    country = dy.String(nullable=True, max_length=2)
    created_at = dy.Datetime(nullable=True, min=dt.datetime(2020, 1, 1))
    as_of = dy.Date(nullable=True)
    note = dy.String(nullable=True)
    gift = dy.Bool(nullable=True)

    @dy.rule()
    def customer_total_bounded(cls) -> pl.Expr:
        return (pl.len() < 1000).over("customer_code")


class Pair15(dy.Schema):
    account = dy.String(primary_key=True)
    as_of = dy.Date(primary_key=True)
    customer_code = dy.String(nullable=True)
    amount = dy.Float64(min=0.0, max=100000.0)
    quantity = dy.Int32(nullable=True, min=1, max=1000)
    price = dy.Decimal(12, 2, nullable=True)
    status = dy.String(nullable=True, check={"is_in": lambda c: c.is_in(STATUSES)})
    email = dy.String(nullable=True, regex=EMAIL)
    country = dy.String(nullable=True, max_length=2)
    created_at = dy.Datetime(nullable=True, min=dt.datetime(2020, 1, 1))
    order_no = dy.String(nullable=True)
    note = dy.String(nullable=True)
    gift = dy.Bool(nullable=True)

    @dy.rule()
    def customer_total_bounded(cls) -> pl.Expr:
        return (pl.len() < 1000).over("customer_code")


SCHEMAS = {"5": Bench5, "15": Bench15, "40": Bench40, "order15": Order15, "uuid15": Uuid15, "pair15": Pair15}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rules", choices=list(SCHEMAS), required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    schema = SCHEMAS[a.rules]
    # The schema's columns only: the string-keyed data has one more, which tablegate skips too.
    df = pl.read_parquet(a.input, columns=schema.column_names())
    valid, failure = schema.filter(df, cast=False)
    os.makedirs(a.out, exist_ok=True)
    valid.write_parquet(os.path.join(a.out, "dataframely_valid.parquet"))
    failure.write_parquet(os.path.join(a.out, "dataframely_failures.parquet"))
    print(json.dumps({"valid": len(valid), "invalid": len(failure), "counts": failure.counts()}))


if __name__ == "__main__":
    main()
