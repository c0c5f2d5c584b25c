"""Seeded random differential test: tablegate against dataframely (the reference semantics).

Each case is a random schema (every dtype and rule family, nested types) and adversarial rows
(NULL, NaN, +-inf, -0.0, bounds and their neighbours, type extremes, multibyte strings, duplicate
NULLs and NaNs, DST instants). dataframely 3.1.2 validates the polars DataFrame; tablegate (the
built CLI, --format json) validates the same rows as a DuckDB table and as Parquet written by
polars, pyarrow and DuckDB with several row groups. For every rule both must fail the same rows,
and both must keep the same valid rows. A disagreement is shrunk to the fewest rows that still
show it and saved; only the differences listed in DOCUMENTED (docs/dataframely.md) are allowed.

    python3 tests/differential/diff.py --seed 1 --cases 300 [--tablegate BIN] [--table out.md]

Exit status 1 when an undocumented disagreement was found.
"""

import argparse
import collections
import datetime as dt
import decimal
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from zoneinfo import ZoneInfo

import dataframely as dy
import duckdb
import polars as pl
import pyarrow.parquet as pq

UTC = dt.timezone.utc
ZONE = "Europe/Berlin"
# Regex classes RE2 reads as ASCII and Rust's regex as Unicode (docs/dataframely.md).
RE2_CLASSES = ("\\s", "\\S", "\\d", "\\D", "\\w", "\\W", "\\b", "\\B")

INTS = {
    "Int8": (pl.Int8, dy.Int8, -(2**7), 2**7 - 1),
    "Int16": (pl.Int16, dy.Int16, -(2**15), 2**15 - 1),
    "Int32": (pl.Int32, dy.Int32, -(2**31), 2**31 - 1),
    "Int64": (pl.Int64, dy.Int64, -(2**63), 2**63 - 1),
    "UInt8": (pl.UInt8, dy.UInt8, 0, 2**8 - 1),
    "UInt16": (pl.UInt16, dy.UInt16, 0, 2**16 - 1),
    "UInt32": (pl.UInt32, dy.UInt32, 0, 2**32 - 1),
    "UInt64": (pl.UInt64, dy.UInt64, 0, 2**64 - 1),
}
FLOATS = {"Float32": (pl.Float32, dy.Float32), "Float64": (pl.Float64, dy.Float64)}
STRINGS = ["", "a", "ab", "abc", "A", "é", "日本語", "a b", " ", "\t", "\v", "\x85", "\u00a0", "x1", "٣", "a\nb", "zz", "ß"]
REGEXES = ["^a", "b$", "^[a-z]+$", "^.{2}$", "é", "^[^a]*$", "^(a|ab)$", "\\s", "^\\w+$", "\\d"]


class Col:
    """One column: its tablegate declaration (a dict), its dataframely column, its polars dtype
    and a generator of adversarial values."""

    def __init__(self, name, kind, decl, dycol, pltype, values, parquet=True):
        self.name, self.kind, self.decl, self.dycol, self.pltype = name, kind, decl, dycol, pltype
        self.values, self.parquet = values, parquet


def maybe(r, p=0.5):
    return r.random() < p


def scalar(r, name, kinds=None, inner=False):
    """A random scalar column (named name; inner columns of lists and arrays have no name)."""
    kind = r.choice(kinds or ["int", "float", "string", "bool", "date", "datetime", "zoned", "duration", "decimal"])
    nullable = maybe(r, 0.6)
    decl = {"nullable": nullable} if nullable else {}
    kw = {"nullable": nullable}
    if not inner and maybe(r, 0.15):
        decl["unique"] = kw["unique"] = True
    if kind == "int":
        tname = r.choice(list(INTS))
        pt, dyt, lo, hi = INTS[tname]
        pts = sorted(r.sample([lo, lo + 1, hi, hi - 1, 0, 1, max(lo, -1), r.randint(lo, hi), r.randint(lo, hi)], 2))
        bounds(r, decl, kw, pts[0], pts[1], lambda v: v, lambda v: v)
        if maybe(r, 0.2) and not any(k in decl for k in ("min", "max", "min_exclusive", "max_exclusive")):
            vals = sorted({r.choice(pts), r.randint(lo, hi), 0 if lo <= 0 else lo})
            decl["is_in"], kw["is_in"] = vals, vals

        def gen(r, pts=pts, lo=lo, hi=hi):
            p = r.choice(pts)
            return r.choice([lo, hi, p, min(p + 1, hi), max(p - 1, lo), 0 if lo <= 0 else lo, r.randint(lo, hi)])

        return Col(name, tname, dict(decl, type=tname), dyt(**kw), pt, gen)
    if kind == "float":
        tname = r.choice(list(FLOATS))
        pt, dyt = FLOATS[tname]
        pts = sorted(r.sample([0.0, -0.0, 1.5, -2.25, 1000.0, 0.1, 1e30, -1e30], 2))
        bounds(r, decl, kw, pts[0], pts[1], lambda v: v, lambda v: v)
        for k in ("allow_nan", "allow_inf"):
            if maybe(r, 0.4):
                decl[k] = kw[k] = True
        if decl.get("allow_nan") != decl.get("allow_inf") and maybe(r):
            decl["allow_inf"] = kw["allow_inf"] = decl["allow_nan"] = kw["allow_nan"] = True

        def gen(r, pts=pts, f32=tname == "Float32"):
            p = r.choice(pts)
            big = 3.0e38 if f32 else 1.7e308
            return r.choice([math.nan, math.inf, -math.inf, -0.0, 0.0, p, math.nextafter(p, math.inf), math.nextafter(p, -math.inf), big, -big, round(r.uniform(-5, 5), 2)])

        return Col(name, tname, dict(decl, type=tname), dyt(**kw), pt, gen)
    if kind == "string":
        lens = sorted(r.sample(range(0, 5), 2))
        if maybe(r, 0.4):
            decl["min_length"] = kw["min_length"] = lens[0]
        if maybe(r, 0.4):
            decl["max_length"] = kw["max_length"] = lens[1]
        if maybe(r, 0.4):
            decl["regex"] = kw["regex"] = r.choice(REGEXES)
        return Col(name, "String", dict(decl, type="String"), dy.String(**kw), pl.String, lambda r: r.choice(STRINGS))
    if kind == "bool":
        return Col(name, "Bool", dict(decl, type="Bool"), dy.Bool(**kw), pl.Boolean, lambda r: r.choice([True, False]))
    if kind == "date":
        base = dt.date(2020, 1, 1) + dt.timedelta(days=r.randint(-400, 400))
        pts = sorted([base, base + dt.timedelta(days=r.randint(0, 60))])
        bounds(r, decl, kw, pts[0], pts[1], lambda v: v.isoformat(), lambda v: v)
        if maybe(r, 0.3):
            decl["resolution"] = kw["resolution"] = r.choice(["1d", "1w", "1mo", "1q", "2d"])

        def gen(r, pts=pts):
            p = r.choice(pts)
            return r.choice([p, p + dt.timedelta(days=1), p - dt.timedelta(days=1), dt.date(1970, 1, 1), dt.date(1969, 12, 29), dt.date(2024, 2, 29), p.replace(day=1), dt.date(1, 1, 1), dt.date(9999, 12, 31)])

        return Col(name, "Date", dict(decl, type="Date"), dy.Date(**kw), pl.Date, gen)
    if kind in ("datetime", "zoned"):
        zoned = kind == "zoned"
        base = dt.datetime(2022, 3, 27, 1, 0) if maybe(r) else dt.datetime(2022, 10, 30, 0, 0)
        base += dt.timedelta(minutes=30 * r.randint(-4, 4))
        pts = sorted([base, base + dt.timedelta(minutes=r.choice([0, 30, 60, 90, 1440]))])
        if zoned:
            pts = [p.replace(tzinfo=UTC) for p in pts]
            fmt = lambda v: v.strftime("%Y-%m-%d %H:%M:%S+00:00")  # noqa: E731
        else:
            fmt = lambda v: v.strftime("%Y-%m-%d %H:%M:%S")  # noqa: E731
        bounds(r, decl, kw, pts[0], pts[1], fmt, (lambda v: v.astimezone(ZoneInfo(ZONE))) if zoned else (lambda v: v))
        if maybe(r, 0.4):
            decl["resolution"] = kw["resolution"] = r.choice(["1h", "30m", "1d", "1s", "2h", "1w", "1mo"])
        if zoned:
            decl["time_zone"] = kw["time_zone"] = ZONE

        def gen(r, pts=pts):
            p = r.choice(pts)
            return p + dt.timedelta(microseconds=r.choice([0, 0, 1, -1, 10**6, 30 * 60 * 10**6, 3600 * 10**6, -3600 * 10**6, 86400 * 10**6]))

        pt = pl.Datetime("us", ZONE if zoned else None)
        return Col(name, "Datetime(zoned)" if zoned else "Datetime", dict(decl, type="Datetime"), dy.Datetime(**kw), pt, gen)
    if kind == "duration":
        pts = sorted([dt.timedelta(minutes=r.randint(-120, 120)), dt.timedelta(minutes=r.randint(-120, 120))])
        bounds(r, decl, kw, pts[0], pts[1], duration_text, lambda v: v)
        if maybe(r, 0.3):
            decl["resolution"] = kw["resolution"] = r.choice(["1m", "1h", "1s", "15m"])

        def gen(r, pts=pts):
            p = r.choice(pts)
            return p + dt.timedelta(microseconds=r.choice([0, 1, -1, 60 * 10**6, -60 * 10**6, 3600 * 10**6]))

        return Col(name, "Duration", dict(decl, type="Duration"), dy.Duration(**kw), pl.Duration("us"), gen, parquet=False)
    # decimal
    prec, scale = r.choice([(10, 2), (5, 0), (4, 3), (18, 4)])
    q = decimal.Decimal(1).scaleb(-scale)
    top = decimal.Decimal(10) ** (prec - scale) - q
    pts = sorted([decimal.Decimal(r.randint(-100, 100)) * q * r.choice([1, 10]), decimal.Decimal(r.randint(-100, 100)) * q])
    pts = [max(min(p, top), -top) for p in pts]
    bounds(r, decl, kw, pts[0], pts[1], lambda v: str(v), lambda v: v)

    def gen(r, pts=pts, q=q, top=top):
        p = r.choice(pts)
        return r.choice([p, p + q, p - q, top, -top, decimal.Decimal(0)]).quantize(q) if abs(p) < top else p.quantize(q)

    return Col(name, f"Decimal({prec},{scale})", dict(decl, type="Decimal", precision=prec, scale=scale),
               dy.Decimal(prec, scale, **kw), pl.Decimal(prec, scale), lambda r: min(max(gen(r), -top), top))


def duration_text(v):
    us = int(v / dt.timedelta(microseconds=1))
    sign = "-" if us < 0 else ""
    us = abs(us)
    return f"{sign}{us}us" if us else "0s"


def bounds(r, decl, kw, lo, hi, text, value):
    """Adds some of min/min_exclusive and max/max_exclusive, lo <= hi."""
    if maybe(r, 0.5):
        k = r.choice(["min", "min_exclusive"])
        decl[k], kw[k] = text(lo), value(lo)
    if maybe(r, 0.5):
        k = r.choice(["max", "max_exclusive"])
        if k == "max_exclusive" and "min_exclusive" in kw and lo == hi:
            k = "max"
        decl[k], kw[k] = text(hi), value(hi)


def column(r, name, depth=0):
    shape = r.random()
    if depth == 0 and shape < 0.15:
        inner = scalar(r, "", ["int", "string", "float", "date"], inner=True)
        decl = {"type": "List", "inner": strip(inner.decl)}
        kw = {}
        if maybe(r, 0.3):
            decl["nullable"] = kw["nullable"] = True
        lens = sorted(r.sample(range(0, 4), 2))
        if maybe(r, 0.3):
            decl["min_length"] = kw["min_length"] = lens[0]
        if maybe(r, 0.3):
            decl["max_length"] = kw["max_length"] = lens[1]
        if maybe(r, 0.2):
            decl["inner"]["unique"] = True
            inner.dycol = rebuild(inner.dycol, unique=True)

        def gen(r, inner=inner):
            return [None if maybe(r, 0.15) else inner.values(r) for _ in range(r.randint(0, 4))]

        return Col(name, f"List({inner.kind})", dict(decl, name=name), dy.List(inner.dycol, **kw), pl.List(inner.pltype), gen, inner.parquet)
    if depth == 0 and shape < 0.27:
        fields = [scalar(r, f"f{i}") for i in range(r.randint(1, 2))]
        nullable = maybe(r, 0.5)
        decl = {"name": name, "type": "Struct", "fields": [dict(f.decl, name=f.name) for f in fields]}
        kw = {"nullable": nullable}
        if nullable:
            decl["nullable"] = True
        if maybe(r, 0.2):
            decl["unique"] = kw["unique"] = True
        st = pl.Struct({f.name: f.pltype for f in fields})

        def gen(r, fields=fields):
            return {f.name: (None if maybe(r, 0.2) else f.values(r)) for f in fields}

        kinds = ",".join(f.kind for f in fields)
        return Col(name, f"Struct({kinds})", decl, dy.Struct({f.name: f.dycol for f in fields}, **kw), st, gen,
                   all(f.parquet for f in fields))
    if depth == 0 and shape < 0.35:
        dims = r.choice([(3,), (2, 2)])
        if len(dims) == 1:
            inner = scalar(r, "", ["int", "string"], inner=True)
        else:
            # dataframely evaluates only nullability and checks on sub-arrays.
            inner = scalar(r, "", ["bool"], inner=True)
        decl = {"name": name, "type": "Array", "shape": list(dims), "inner": strip(inner.decl)}
        kw = {}
        if maybe(r, 0.4):
            decl["nullable"] = kw["nullable"] = True

        def gen(r, inner=inner, dims=dims):
            if len(dims) == 1:
                return [None if maybe(r, 0.15) else inner.values(r) for _ in range(dims[0])]
            return [None if maybe(r, 0.15) else [None if maybe(r, 0.15) else inner.values(r) for _ in range(dims[1])] for _ in range(dims[0])]

        return Col(name, f"Array({inner.kind},{len(dims)}d)", decl, dy.Array(inner.dycol, dims, **kw), pl.Array(inner.pltype, dims), gen, parquet=False)
    c = scalar(r, name)
    c.decl["name"] = name
    return c


def strip(decl):
    return {k: v for k, v in decl.items() if k != "name"}


def rebuild(col, **changes):
    """A copy of a dataframely column with changed arguments."""
    import copy

    c = copy.copy(col)
    for k, v in changes.items():
        setattr(c, k, v)
    return c


class Case:
    def __init__(self, seed, rows_hint):
        r = random.Random(seed)
        self.seed = seed
        self.cols = []
        for i in range(r.randint(1, 3)):
            for _ in range(20):
                try:
                    self.cols.append(column(r, f"c{i}"))
                    break
                except ValueError:
                    continue  # dataframely refuses the declaration (a bound off the grid, ...)
        self.pk = []
        if maybe(r, 0.15):
            scalars = [c for c in self.cols if c.decl["type"] not in ("List", "Array", "Struct") and not c.decl.get("nullable")]
            if scalars:
                self.pk = [r.choice(scalars).name]
        n = rows_hint if rows_hint else r.randint(3, 14)
        rows = []
        for i in range(n):
            if rows and maybe(r, 0.2):
                rows.append(dict(r.choice(rows)))  # duplicates: NULLs, NaNs, equal values
                continue
            row = {}
            for c in self.cols:
                row[c.name] = None if (maybe(r, 0.15)) else c.values(r)
            rows.append(row)
        self.rows = rows

    def schema_decl(self):
        cols = [{"name": "rid", "type": "Int64"}]
        for c in self.cols:
            d = dict(c.decl)
            if c.name in self.pk:
                d["primary_key"] = True
            cols.append(d)
        return {"schema": "Case", "columns": cols}

    def dy_schema(self):
        attrs = {"rid": dy.Int64()}
        for c in self.cols:
            col = c.dycol
            if c.name in self.pk:
                col = rebuild(col, primary_key=True)
            attrs[c.name] = col
        return type("Case", (dy.Schema,), attrs)

    def frame(self, rows):
        data = {"rid": [r["rid"] for r in rows]}
        schema = {"rid": pl.Int64}
        for c in self.cols:
            data[c.name] = [r[c.name] for r in rows]
            schema[c.name] = c.pltype
        return pl.DataFrame(data, schema=schema, strict=False)


def dataframely_verdict(case, df):
    """Per rule, the failing rids; and the valid rids."""
    S = case.dy_schema()
    valid, info = S.filter(df, cast=False)
    fails = {}
    bad = info._df if hasattr(info, "_df") else info.invalid()
    for rule in bad.columns:
        if "|" not in rule and rule != "primary_key":
            continue
        fails[rule] = set(bad.filter(~pl.col(rule).fill_null(True))["rid"].to_list())
    for rule in list(S._validation_rules(with_cast=False)) if hasattr(S, "_validation_rules") else []:
        fails.setdefault(rule, set())
    return fails, set(valid["rid"].to_list())


def dy_rules(case):
    S = case.dy_schema()
    names = set()
    for name, col in S.columns().items():
        for rule in col.validation_rules(pl.col(name)):
            names.add(f"{name}|{rule}")
    if case.pk:
        names.add("primary_key")
    return names


def tablegate_verdict(binary, schema_path, input_arg, n):
    out = subprocess.run([binary, "validate", "--schema", schema_path, "--input", input_arg, "--format", "json", "--samples", str(n + 1)],
                         capture_output=True, text=True, timeout=120)
    try:
        rep = json.loads(out.stdout)
    except json.JSONDecodeError:
        return None, f"no report: {out.stderr.strip()[:300]}"
    if rep.get("outcome") == "column_schema_mismatch" or rep.get("outcome") is None:
        return None, (rep.get("error") or {}).get("message", out.stderr.strip())[:300]
    fails = {}
    for c in rep["checks"]:
        rule = c["metadata"].get("dataframely/rule")
        if not rule:
            continue
        fails[rule] = {row["rid"] for row in c["metadata"].get("dataframely/failed_examples", [])}
    return (fails, rep["rows"]["valid"]), None


def write_inputs(case, df, d, kinds):
    """The inputs tablegate reads, by kind."""
    out = {}
    arrow = df.to_arrow()
    rg = max(1, len(df) // 3)
    if "duckdb" in kinds:
        path = os.path.join(d, "in.duckdb")
        if os.path.exists(path):
            os.remove(path)
        con = duckdb.connect(path)
        con.register("src", arrow)
        con.execute("CREATE TABLE t AS SELECT * FROM src")
        con.close()
        out["duckdb"] = path + ":t"
    parquet_ok = all(c.parquet for c in case.cols)
    if parquet_ok and "polars" in kinds:
        p = os.path.join(d, "polars.parquet")
        df.write_parquet(p, row_group_size=rg)
        out["polars"] = p
    if parquet_ok and "pyarrow" in kinds:
        p = os.path.join(d, "pyarrow.parquet")
        pq.write_table(arrow, p, row_group_size=rg)
        out["pyarrow"] = p
    if parquet_ok and "duckdb-parquet" in kinds:
        p = os.path.join(d, "duckdb.parquet")
        con = duckdb.connect()
        con.register("src", arrow)
        con.execute(f"COPY (SELECT * FROM src) TO '{p}' (FORMAT parquet, ROW_GROUP_SIZE 2048)")
        con.close()
        out["duckdb-parquet"] = p
    return out


def documented(case, rule):
    """Whether a disagreement on rule is a documented difference (docs/dataframely.md)."""
    col = rule.split("|")[0]
    for c in case.cols:
        if c.name != col:
            continue
        text = json.dumps(c.decl)
        if "regex" in rule and any(k.replace("\\", "\\\\") in text for k in RE2_CLASSES):
            return "RE2 classes"
    return None


def compare(case, rows, binary, d, kinds):
    """Disagreements as (input kind, rule, tablegate rids, dataframely rids), the rule instances
    compared, and the inputs tablegate refused."""
    df = case.frame(rows)
    theirs, their_valid = dataframely_verdict(case, df)
    schema_path = os.path.join(d, "schema.json")
    with open(schema_path, "w") as f:
        json.dump(case.schema_decl(), f)
    diffs, compared, refused = [], [], []
    rules = dy_rules(case) | {"rid|nullability"}
    for kind, arg in write_inputs(case, df, d, kinds).items():
        res, err = tablegate_verdict(binary, schema_path, arg, len(rows))
        if res is None:
            refused.append((kind, err))
            continue
        ours, valid_count = res
        for rule in sorted(rules | set(ours)):
            a, b = ours.get(rule), theirs.get(rule, set())
            if a is None:
                a = "missing"
            compared.append((kind, rule, a == b))
            if a != b:
                diffs.append((kind, rule, a, b))
        if valid_count != len(their_valid):
            diffs.append((kind, "(valid rows)", valid_count, len(their_valid)))
    return diffs, compared, refused


def shrink(case, binary, d, kind, rule, budget=60):
    """The fewest rows (greedy, one at a time) on which the disagreement on rule persists."""
    rows = list(case.rows)
    i = len(rows) - 1
    while i >= 0 and budget > 0:
        trial = rows[:i] + rows[i + 1:]
        budget -= 1
        if trial:
            diffs, _, _ = compare(case, trial, binary, d, {kind})
            if any(r == rule for _, r, _, _ in diffs):
                rows = trial
        i -= 1
    return rows


def family(rule):
    r = rule.split("|")[-1]
    while r.startswith("inner_"):
        r = r[len("inner_"):]
        # struct field rules: inner_<field>_<rule>
        for f in ("f0_", "f1_"):
            if r.startswith(f):
                r = r[len(f):]
    if r.startswith("check"):
        return "check"
    return r


def dtype_of(case, rule):
    """The rule's column's dtype, coarsely: Int8, Decimal, List, Struct, Array (2-d), ..."""
    if rule == "primary_key":
        kind = next(c.kind for c in case.cols if c.name == case.pk[0])
    else:
        col = rule.split("|")[0]
        kind = "Int64" if col == "rid" else next((c.kind for c in case.cols if c.name == col), "?")
    if kind.startswith("Array"):
        return "Array (2-d)" if kind.endswith("2d)") else "Array"
    return kind if kind == "Datetime(zoned)" else kind.split("(")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--tablegate", help="the tablegate binary (default: go build ./cmd/tablegate)")
    ap.add_argument("--inputs", default="duckdb,polars,pyarrow,duckdb-parquet")
    ap.add_argument("--large-every", type=int, default=25, help="every n-th case has 5000 rows (0: none)")
    ap.add_argument("--out", help="folder for the shrunk disagreements (JSON)")
    ap.add_argument("--table", help="write the agreement table (Markdown) here")
    args = ap.parse_args()
    kinds = set(args.inputs.split(","))
    work = tempfile.mkdtemp(prefix="tg-diff-")
    binary = args.tablegate
    if not binary:
        binary = os.path.join(work, "tablegate")
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        subprocess.run(["go", "build", "-o", binary, "./cmd/tablegate"], cwd=root, check=True)
    start = time.time()
    # per key: [agree, documented difference, instances]
    by_family = collections.defaultdict(lambda: [0, 0, 0])
    by_dtype = collections.defaultdict(lambda: [0, 0, 0])
    by_input = collections.defaultdict(lambda: [0, 0, 0])
    refusals = collections.Counter()
    found, allowed = [], collections.Counter()
    for k in range(args.cases):
        seed = args.seed * 1_000_003 + k
        large = args.large_every and k % args.large_every == args.large_every - 1
        case = Case(seed, 0)
        if large:
            base = case.rows
            case.rows = [dict(base[i % len(base)]) for i in range(5000)]
        for i, row in enumerate(case.rows):
            row["rid"] = i
        try:
            diffs, compared, refused = compare(case, case.rows, binary, work, kinds)
        except Exception as e:  # dataframely refused the schema: not a rule comparison
            refusals[f"dataframely: {type(e).__name__}: {str(e).splitlines()[0][:80]}"] += 1
            continue
        for kind, err in refused:
            refusals[f"tablegate {kind}: {err.rsplit('json:', 1)[-1].strip()[:90]}"] += 1
        for kind, rule, ok in compared:
            why = None if ok else documented(case, rule)
            for table, key in ((by_family, family(rule)), (by_dtype, dtype_of(case, rule)), (by_input, kind)):
                table[key][0] += ok
                table[key][1] += why is not None
                table[key][2] += 1
        for kind, rule, ours, theirs in diffs:
            why = documented(case, rule) if rule != "(valid rows)" else None
            if why:
                allowed[why] += 1
                continue
            if rule == "(valid rows)" and any(r != "(valid rows)" and kd == kind for kd, r, _, _ in diffs):
                continue  # follows from a rule's disagreement
            rows = case.rows if large else shrink(case, binary, work, kind, rule)
            item = {"seed": seed, "input": kind, "rule": rule, "tablegate": sorted(ours) if isinstance(ours, set) else ours,
                    "dataframely": sorted(theirs) if isinstance(theirs, set) else theirs, "schema": case.schema_decl(),
                    "rows": [{k: repr(v) for k, v in r.items()} for r in rows]}
            found.append(item)
            show = lambda v: v[:20] + ["..."] if isinstance(v, list) and len(v) > 20 else v  # noqa: E731
            print(f"DISAGREE seed={seed} input={kind} rule={rule}: tablegate {show(item['tablegate'])}, dataframely {show(item['dataframely'])};"
                  f" {len(rows)} rows after shrinking", file=sys.stderr)
            if args.out:
                os.makedirs(args.out, exist_ok=True)
                with open(os.path.join(args.out, f"case-{seed}-{kind}-{rule.replace('|', '_')}.json"), "w") as f:
                    json.dump(item, f, indent=1)
    took = time.time() - start
    lines = [f"{args.cases} cases (seed {args.seed}) in {took:.0f} s; inputs: {', '.join(sorted(kinds))}.", ""]
    for title, table in (("rule family", by_family), ("dtype", by_dtype), ("input", by_input)):
        lines += [f"| {title} | rule instances | agree | documented difference |", "| --- | ---: | ---: | ---: |"]
        for key in sorted(table):
            a, w, n = table[key]
            lines.append(f"| {key} | {n} | {100 * a / n:.2f}% | {100 * w / n:.2f}% |")
        lines.append("")
    a = sum(v[0] for v in by_family.values())
    w = sum(v[1] for v in by_family.values())
    n = sum(v[2] for v in by_family.values())
    lines.append(f"All: {a} of {n} rule instances agree ({100 * a / max(n, 1):.2f}%), {w} differ as documented ({dict(allowed) or 'none'}),"
                 f" {n - a - w} otherwise.")
    if refusals:
        lines.append("Not compared: " + "; ".join(f"{k} ({v})" for k, v in refusals.most_common()))
    print("\n".join(lines))
    if args.table:
        with open(args.table, "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"{n - a - w} rule instances disagree beyond the documented differences; {len(found)} disagreements saved", file=sys.stderr)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
