"""Random orders for bench15's 13 columns, written by polars: data the harness has not seen.

`tablegate sample` writes sequential keys, few distinct strings and DuckDB's row groups. This
writes what warehouse extracts look like instead: shuffled ids spaced by 7 (a 70M range for 10M
rows, so no perfect hash), 0.2% of them repeated, 2M distinct emails (Parquet stores them without
a dictionary), 5M distinct notes, polars' row groups of 123,457 rows, and about 3.3% of the rows
failing some rule of bench15. The same seed gives the same rows.

    python3 benchmarks/unseen/random_orders.py 10000000 random10m.parquet
    go run ./benchmarks/harness -input random10m.parquet -schema benchmarks/schemas/bench15.yaml
    python3 benchmarks/peers/dataframely_bench.py --rules 15 --input random10m.parquet --out dy
"""

import sys

import numpy as np
import polars as pl


def orders(n: int, seed: int = 42) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    ids = rng.permutation(n).astype(np.int64) * 7 + 11
    repeated = rng.random(n) < 0.002
    ids[repeated] = ids[rng.integers(0, n, repeated.sum())]

    amount = rng.gamma(2.0, 150.0, n)
    u = rng.random(n)
    amount[u < 0.002] = -1.0
    amount[(u >= 0.002) & (u < 0.003)] = np.nan
    amount[(u >= 0.003) & (u < 0.004)] = np.inf

    users = 2_000_000
    names = rng.choice(["ann", "bob", "cy", "dee", "eve", "fay", "gus"], users)
    tags = rng.choice(["x", "yy", "zed", "k"], users)
    people = np.char.add(np.char.add(names, "."), np.char.add(tags, np.arange(users).astype(str)))
    domains = np.array(["example.com", "mail.org", "corp.net", "shop.io", "bad_domain.c0m", "web.de"])
    emails = np.char.add(np.char.add(people[rng.integers(0, users, n)], "@"),
                         domains[rng.choice(6, n, p=[.4, .3, .15, .1, .005, .045])])

    status = np.array(["placed", "paid", "shipped", "cancelled", "lost"])[rng.choice(5, n, p=[.3, .3, .25, .145, .005])]
    country = np.array(["US", "DE", "FR", "GB", "JP", "BR", "IN", "USA"])[rng.choice(8, n, p=[.3, .15, .1, .1, .1, .1, .145, .005])]
    created = (np.datetime64("2020-01-01T00:00:00", "us")
               + rng.integers(-3600, 5 * 365 * 86400, n).astype("timedelta64[s]")).astype("datetime64[us]")

    def with_nulls(values, share):
        return pl.Series(values).set(pl.Series(rng.random(n) < share), None)

    return pl.DataFrame({
        "id": ids,
        "customer_id": with_nulls(rng.integers(1, 400_000, n), 0.01),
        "amount": amount,
        "quantity": rng.integers(0, 1001, n).astype(np.int32),
        "price": pl.Series(np.round(rng.uniform(0, 5000, n), 2)).cast(pl.Decimal(12, 2)),
        "status": status,
        "email": with_nulls(emails, 0.02),
        "country": country,
        "created_at": created,
        "shipped_on": created.astype("datetime64[D]") + rng.integers(0, 10, n).astype("timedelta64[D]"),
        "discount": rng.normal(0, 1, n),
        "note": with_nulls(np.char.add("note ", rng.integers(0, 5_000_000, n).astype(str)), 0.5),
        "gift": rng.random(n) < 0.1,
    })


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: random_orders.py ROWS OUT.parquet")
    orders(int(sys.argv[1])).write_parquet(sys.argv[2])
