"""Measures, in raw DuckDB SQL, two ways to find the failing rows and how the valid rows' filter
costs, each as CPU time against the floor (a plain COPY of the same columns) in the same process,
interleaved, in rounds.

The statements are tablegate's own program for the run (`tablegate explain`), replayed up to the
step that evaluates the rules; then each round times:

  floor        COPY of the 13 columns to Parquet
  one pass     the program's statement: every column of every row decoded, rules evaluated on the
               rows the suspects and the row filter keep
  ids + fetch  the rows the suspects and the row filter keep, reading only the row filter's
               columns, into an ordinal set; then every column of only those rows, by ordinal
               (the ordinal set's bitmaps, or a semi join DuckDB pushes into the scan as a filter)
  fetch floor  the same fetch for 1,000 ordinals (one every 10,007 rows): what the Parquet reader
               costs when almost nothing is kept
  valid rows   the program's COPY of the valid rows (the invalid ordinals' bitmaps), against the
               same COPY filtered by `__tg_rid % 43 <> 0` (about as many rows)

    tablegate explain --schema benchmarks/schemas/order15.yaml --input strings.parquet \
        --out /tmp/o.parquet --quarantine > program.sql
    nice -n -15 python3 benchmarks/ideas/failing_rows.py --program program.sql --work /tmp/ideas
"""

import argparse
import os
import re
import resource
import statistics
import time

import duckdb


def steps(path):
    """(what, SQL) of each step of an explained program."""
    out = []
    for m in re.finditer(r"^-- \d+\. (.*?): .*\n((?:.|\n)*?);\n(?=\n-- |\Z)", open(path, encoding="utf-8").read(), re.M):
        out.append((m.group(1), m.group(2)))
    return out


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--program", required=True)
    ap.add_argument("--work", default="/tmp/ideas")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--filter-columns", default='"order_no", "amount", "quantity", "created_at"',
                    help="the columns the row filter reads (order15's)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    prog = steps(args.program)
    at = next(i for i, (what, _) in enumerate(prog) if what == "evaluate the rules")
    failing = prog[at][1]
    con = duckdb.connect()
    for _, q in prog[:at]:
        con.execute(q)

    # The failing statement's source: SELECT * FROM (SELECT cols, rid FROM scan) AS __tg_s WHERE W.
    cte = next(line for line in failing.split("\n") if "AS __tg_s WHERE" in line)
    cols, scan, where = re.match(r"\s*SELECT \* FROM \(SELECT (.*), (\S+) AS __tg_rid FROM (.*?)\) AS __tg_s WHERE (.*)$", cte).group(1, 3, 4)
    rid = re.search(r"SELECT .*, (\S+) AS __tg_rid FROM", cte).group(1)
    src = f"(SELECT {{cols}}, {rid} AS __tg_rid FROM {scan}) AS __tg_s"
    ids = f"CREATE OR REPLACE TEMP TABLE ids AS SELECT __tg_rid FROM {src.format(cols=args.filter_columns)} WHERE {where}"
    # The suspects' bitmaps, re-pointed at the ordinal set of ids.
    blocks = ["CREATE OR REPLACE TEMP TABLE ids_blocks AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM ids GROUP BY block"]
    for _, q in prog[:at]:
        m = re.match(r"SET VARIABLE __tg_suspect_(\d+)_(\d+) = .* block = (\d+)\)$", q)
        if m:
            blocks.append(f"SET VARIABLE ids_{m.group(2)} = (SELECT bits FROM ids_blocks WHERE block = {m.group(3)})")
    tree = re.sub(r"__tg_suspect_\d+_", "ids_", where.split(" OR ((")[0])
    fetch_tree = failing.replace(cte, f"  SELECT * FROM {src.format(cols=cols)} WHERE {tree}")
    fetch_join = failing.replace(cte, f"  SELECT * FROM {src.format(cols=cols)} WHERE __tg_rid IN (SELECT __tg_rid FROM ids)")
    con.execute("CREATE TEMP TABLE sparse AS SELECT range * 10007 AS __tg_rid FROM range(1000)")
    fetch_floor = f"CREATE OR REPLACE TEMP TABLE fetched AS SELECT {cols} FROM {src.format(cols=cols)} WHERE __tg_rid IN (SELECT __tg_rid FROM sparse)"

    # The valid rows: after the failing rows, the invalid rows' bitmaps.
    con.execute(failing)
    for what, q in prog[at + 1:]:
        if what == "index the invalid rows":
            con.execute(q)
    valid = [q for what, q in prog if what == "write the valid rows"][-1]
    plain = [q for what, q in prog if what == "write the valid rows"][0]
    floor = f"COPY ({plain}) TO '{args.work}/floor.parquet'"
    valid_bitmaps = f"COPY ({valid}) TO '{args.work}/valid.parquet'"
    valid_mod = f"COPY ({plain} WHERE s.__tg_rid % 43 <> 0) TO '{args.work}/mod.parquet'"

    ideas = [("floor", [floor]), ("one pass", [failing]), ("ids", [ids] + blocks), ("fetch, bitmaps", [fetch_tree]),
             ("fetch, semi join", [fetch_join]), ("fetch floor", [fetch_floor]), ("valid rows", [valid_bitmaps]),
             ("valid, % 43", [valid_mod])]
    times = {name: [] for name, _ in ideas}
    for r in range(args.rounds):
        order = ideas if r % 2 == 0 else [ideas[0]] + ideas[:0:-1]
        for name, qs in order:
            c0, w0 = cpu(), time.time()
            for q in qs:
                con.execute(q)
            times[name].append((cpu() - c0, time.time() - w0))
            print(f"round {r} {name:18s} cpu {times[name][-1][0]:6.2f} s  wall {times[name][-1][1]:6.2f} s", flush=True)
    f = statistics.median(c for c, _ in times["floor"])
    print(f"\nmedian CPU s (/ floor {f:.2f} s)")
    for name, _ in ideas:
        cs = [c for c, _ in times[name]]
        print(f"{name:18s} {statistics.median(cs):6.2f}  {min(cs) / f:.2f}-{max(cs) / f:.2f}")


if __name__ == "__main__":
    main()
