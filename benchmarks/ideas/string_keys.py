"""Measures, in raw DuckDB SQL, ideas for validating on string keys, each as a ratio to the floor
(a plain COPY of the same columns) measured in the same process, interleaved, in rounds.

The baseline is what tablegate runs: a `TABLEGATE_TRACE=full` capture of a full validation on the
same data, replayed statement by statement (the output paths moved to the scratch folder). Each
idea replaces some of its statements by others and is timed over exactly the statements it
touches, against the baseline's same statements:

  a  both key aggregates in one GROUPING SETS scan, instead of one scan each
  b  the primary key grouped by hash(key) (UBIGINT) first; a hash seen twice is re-checked exactly
     by a second aggregate over the rows that carry it
  c  one decode: a narrow temp table (row id, the keys' hashes, each string rule's verdict) from one
     scan, and the key aggregates and the suspects from it, instead of a scan each
  d  the same data rewritten with a dictionary for every string column (or none): the key
     aggregates and the suspects on it

    TABLEGATE_TRACE=full tablegate validate --schema benchmarks/schemas/order15.yaml \
        --input strings.parquet --out /tmp/o.parquet --quarantine --samples 0 2> trace.txt
    nice -n -15 python3 benchmarks/ideas/string_keys.py --input strings.parquet --trace trace.txt \
        --pk order_no --group customer_code --work /tmp/ideas

It prints one line per measurement and a summary of medians (seconds and ratio to the floor).
"""

import argparse
import os
import re
import statistics
import time

import duckdb


def parse_trace(path):
    """The statements of a traced run, from its first key aggregate to its last DROP."""
    stmts = []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"tablegate trace:\s+\S+s\s+\S+s cpu  (.*)$", line.rstrip("\n"))
        if m:
            stmts.append(m.group(1))
    first = next(i for i, s in enumerate(stmts) if "__tg_keys" in s and s.startswith("CREATE"))
    # The thread settings just before the key aggregates belong to them.
    while first > 0 and stmts[first - 1].startswith(("SET threads", "SELECT CAST(current_setting('threads')")):
        first -= 1
    head = [s for s in stmts[:first] if s.startswith("SET SESSION perfect_ht_threshold")]
    return head[-1:] + stmts[first:]


def relocate(stmts, work):
    """Output COPYs write into the work folder instead of where the traced run wrote."""
    out = []
    for s in stmts:
        s = re.sub(r"TO '[^']*/\.([^/']*?)\.tablegate-[^']*-(table|quarantine)\.tmp'", lambda m: f"TO '{work}/{m.group(2)}.parquet'", s)
        out.append(s)
    return out


class Bench:
    def __init__(self, threads):
        self.threads = threads

    def conn(self):
        c = duckdb.connect()
        c.execute(f"SET threads = {self.threads}")
        return c

    def timed(self, c, stmts):
        """Wall and CPU seconds (the process's, every thread's) of running the statements."""
        t, cpu = time.perf_counter(), time.process_time()
        for s in stmts:
            c.execute(s)
        return time.perf_counter() - t, time.process_time() - cpu


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--input", required=True)
    p.add_argument("--trace", required=True)
    p.add_argument("--pk", required=True, help="the primary key column (one)")
    p.add_argument("--group", required=True, help="the group rule's key column")
    p.add_argument("--work", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", default="whole,baseline,a,b,c,d", help="which measurements")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    only = a.only.split(",")
    b = Bench(a.threads)
    trace = relocate(parse_trace(a.trace), a.work)
    src = re.search(r"read_parquet\('[^']*'[^)]*\)", trace[[i for i, s in enumerate(trace) if "__tg_keys" in s][0]]).group(0)
    scan = src
    copy = next(s for s in trace if s.startswith("COPY (SELECT s."))
    cols = re.match(r"COPY \(SELECT (.*?) FROM \(SELECT", copy).group(1).replace("s.", "")
    floor = [f"COPY (SELECT {cols} FROM {scan}) TO '{a.work}/floor.parquet' (FORMAT parquet)"]
    pk, grp = '"' + a.pk + '"', '"' + a.group + '"'

    def pick(pred):
        return [s for s in trace if pred(s)]

    is_key = lambda s: "__tg_keys" in s and s.startswith("CREATE")
    is_susp = lambda s: "__tg_suspects_" in s and s.startswith("CREATE")
    keys = [s for s in trace if is_key(s)]
    # Which key table is which: the one grouping by the primary key has count(*) > 1.
    pk_key = next(s for s in keys if f"GROUP BY {pk}" in s)
    grp_key = next(s for s in keys if f"GROUP BY {grp}" in s)
    pk_tab = re.search(r'TEMP TABLE (temp\.main\."[^"]+")', pk_key).group(1)
    grp_tab = re.search(r'TEMP TABLE (temp\.main\."[^"]+")', grp_key).group(1)
    pk_k = re.search(r'AS SELECT "[^"]+" AS (__tg_k\d+_0)', pk_key).group(1)
    grp_k = re.search(r'AS SELECT "[^"]+" AS (__tg_k\d+_0)', grp_key).group(1)
    grp_expr = re.search(r"HAVING (.*)$", grp_key).group(1)
    susp = pick(is_susp)[0]
    # tablegate runs the key aggregates with 3 threads, the rest with the engine's.
    setup3 = ["SET threads = 3"]
    setup = [s for s in trace[:trace.index(keys[0])] if s.startswith("SET SESSION")]

    # (a) one GROUPING SETS scan, split into the two key tables.
    gs = [
        f"CREATE OR REPLACE TEMP TABLE __gs AS SELECT {grp} AS g, {pk} AS k, GROUPING({grp}, {pk}) AS which, count(*) AS n FROM {scan} GROUP BY GROUPING SETS (({grp}), ({pk})) HAVING (GROUPING({grp}, {pk}) = 1 AND {grp_expr}) OR (GROUPING({grp}, {pk}) = 2 AND count(*) > 1)",
        f"CREATE OR REPLACE TEMP TABLE {grp_tab} AS SELECT g AS {grp_k}, TRUE AS __tg_m0 FROM __gs WHERE which = 1",
        f"CREATE OR REPLACE TEMP TABLE {pk_tab} AS SELECT k AS {pk_k}, TRUE AS __tg_m0 FROM __gs WHERE which = 2",
    ]
    # (b) the primary key by hash, the colliding or duplicate hashes re-checked exactly.
    hashed = [
        f"CREATE OR REPLACE TEMP TABLE __h AS SELECT hash({pk}) AS h FROM {scan} GROUP BY h HAVING count(*) > 1",
        f"CREATE OR REPLACE TEMP TABLE {pk_tab} AS SELECT {pk} AS {pk_k}, TRUE AS __tg_m0 FROM {scan} WHERE hash({pk}) IN (SELECT h FROM __h) GROUP BY {pk} HAVING count(*) > 1",
    ]
    hashed_only = hashed[:1]
    # The group key by hash, for a rule that merging groups can only make fail more (count(*) < n):
    # the failing hashes' groups re-checked exactly.
    hashed_grp = [
        f"CREATE OR REPLACE TEMP TABLE __hg AS SELECT hash({grp}) AS h FROM {scan} GROUP BY h HAVING {grp_expr}",
        f"CREATE OR REPLACE TEMP TABLE {grp_tab} AS SELECT {grp} AS {grp_k}, TRUE AS __tg_m0 FROM {scan} WHERE hash({grp}) IN (SELECT h FROM __hg) GROUP BY {grp} HAVING {grp_expr}",
    ]
    # (c) one decode of the key and string columns into a narrow table, aggregates from it.
    # The suspects' per-column filters: the UNION ALL's branches that are no semi join.
    filters = [part.split(" WHERE ", 1)[1] for part in susp.split(" AS SELECT ", 1)[1].split(" UNION ALL ") if " SEMI JOIN " not in part]
    filt = " OR ".join(filters) if filters else "FALSE"
    narrow = [
        f"CREATE OR REPLACE TEMP TABLE __n AS SELECT file_row_number AS rid, hash({pk}) AS hk, {grp} AS g, ({filt}) IS TRUE AS bad FROM {scan}",
        f"CREATE OR REPLACE TEMP TABLE __h AS SELECT hk FROM __n GROUP BY hk HAVING count(*) > 1",
        f"CREATE OR REPLACE TEMP TABLE {grp_tab} AS SELECT g AS {grp_k}, TRUE AS __tg_m0 FROM __n GROUP BY g HAVING {grp_expr}",
        f"CREATE OR REPLACE TEMP TABLE __s AS SELECT rid AS __tg_rid FROM __n WHERE bad OR hk IN (SELECT hk FROM __h) OR g IN (SELECT {grp_k} FROM {grp_tab})",
    ]
    # (d) the input with every string column dictionary-encoded, and with none.
    path = re.search(r"read_parquet\('([^']*)'", scan).group(1)
    dict_file, plain_file = f"{a.work}/dict.parquet", f"{a.work}/plain.parquet"
    if "d" in only:
        c = b.conn()
        if not os.path.exists(dict_file):
            c.execute(f"COPY (SELECT * FROM read_parquet('{path}')) TO '{dict_file}' (FORMAT parquet, STRING_DICTIONARY_PAGE_SIZE_LIMIT 16777216, DICTIONARY_SIZE_LIMIT 200000)")
        if not os.path.exists(plain_file):
            c.execute(f"COPY (SELECT * FROM read_parquet('{path}')) TO '{plain_file}' (FORMAT parquet, DICTIONARY_SIZE_LIMIT 0)")
        for f in (path, dict_file, plain_file):
            enc = c.execute(f"SELECT path_in_schema, bool_or(dictionary_page_offset IS NOT NULL) FROM parquet_metadata('{f}') WHERE path_in_schema IN ('{a.pk}', '{a.group}', 'email', 'status', 'uuid') GROUP BY ALL ORDER BY 1").fetchall()
            print(f"dictionary pages in {os.path.basename(f)}: {enc}")
        c.close()

    def on(f, stmts):
        return [s.replace(f"read_parquet('{path}'", f"read_parquet('{f}'") for s in stmts]

    cases = []  # (name, prepare statements (untimed), timed statements)
    if "whole" in only:
        cases.append(("baseline: whole run", [], trace))
    if "baseline" in only:
        cases.append(("baseline: both key aggregates", setup + setup3, keys))
        cases.append(("baseline: primary key aggregate", setup + setup3, [pk_key]))
        cases.append(("baseline: group key aggregate", setup + setup3, [grp_key]))
        cases.append(("baseline: keys + suspects", setup + setup3, keys + ["SET threads = 2", susp]))
    if "a" in only:
        cases.append(("a: GROUPING SETS", setup + setup3, gs))
    if "b" in only:
        cases.append(("b: primary key by hash, re-checked", setup + setup3, hashed))
        cases.append(("b: primary key by hash, no dups to re-check", setup + setup3, hashed_only))
        cases.append(("b: group key by hash, re-checked", setup + setup3, hashed_grp))
    if "c" in only:
        cases.append(("c: one decode (narrow table) + aggregates + suspects", setup + setup3, narrow))
    if "d" in only:
        for label, f in (("dictionary", dict_file), ("plain", plain_file)):
            cases.append((f"d: {label} input: floor", [], on(f, floor)))
            cases.append((f"d: {label} input: keys + suspects", setup + setup3, on(f, keys + ["SET threads = 2", susp])))

    results = {name: [] for name, _, _ in cases}
    for run in range(a.runs):
        order = cases if run % 2 == 0 else list(reversed(cases))
        # A floor opens and closes each round: a measurement's ratio is over their mean, so that
        # it shares the round's moment of a busy machine.
        c = b.conn()
        fl0 = b.timed(c, floor)
        c.close()
        got = []
        for name, prep, stmts in order:
            c = b.conn()  # fresh: no temp tables or caches from the last measurement
            for s in prep:
                c.execute(s)
            got.append((name, b.timed(c, stmts)))
            c.close()
        c = b.conn()
        fl1 = b.timed(c, floor)
        c.close()
        fl, flcpu = (fl0[0] + fl1[0]) / 2, (fl0[1] + fl1[1]) / 2
        print(f"run {run} floor {fl0[0]:.2f}s then {fl1[0]:.2f}s ({fl0[1]:.2f}, {fl1[1]:.2f} CPU s)", flush=True)
        for name, (t, cpu) in got:
            results[name].append((t, cpu, fl, flcpu))
            print(f"run {run} {name:55s} {t:7.2f}s {cpu:6.2f} CPU s  ratio {t / fl:5.2f} (CPU {cpu / flcpu:5.2f})", flush=True)
    print("\nmedians over runs; ratios are each run's time over the mean of its round's two floors:")
    for name, _, _ in cases:
        rs = results[name]
        wall = [t / fl for t, _, fl, _ in rs]
        cpu = [c / fc for _, c, _, fc in rs]
        print(f"{name:55s} {statistics.median(t for t, _, _, _ in rs):7.2f}s {statistics.median(c for _, c, _, _ in rs):6.2f} CPU s  "
              f"ratio {statistics.median(wall):5.2f} ({min(wall):.2f}-{max(wall):.2f})  CPU ratio {statistics.median(cpu):5.2f} ({min(cpu):.2f}-{max(cpu):.2f})")


if __name__ == "__main__":
    main()
