"""Seeded random differential test of collections: tablegate against dataframely's Collection.filter.

Each case is a random collection of 2 to 4 members sharing a primary key of one or two columns
(a member's own key is the common one or a superset of it), some members optional (and then
sometimes absent), ignored in filters (with a key of their own) or propagating their row
failures; filters one_to_one and one_to_at_least_one between members; member rules (bounds,
lengths, nullability, the primary key, a schema-level SQL rule). Rows draw their keys from a
small pool, so keys repeat within and across members, and some keys are NULL. dataframely
3.1.2 filters the polars frames with a dynamically built Collection; tablegate (the built CLI)
validates the same rows written as Parquet, one file per member, with the collection file. Per
member, both must keep the same rows (by a row id column) and count the same failures per rule
and per filter.

    python3 tests/differential/collection_diff.py --seed 7 --cases 200 [--budget 300] [--tablegate BIN] [--out DIR]

Exit status 1 when a disagreement was found; each is printed and, with --out, saved with its
case (the collection file, the schemas and the rows) so that it can be replayed.
"""

import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import typing

import dataframely as dy
import polars as pl

# Member names: plain, and a SQL reserved word.
MEMBER_NAMES = ["orders", "items", "select", "rechnungsposition"]
STRINGS = ["", "a", "ab", "abc", "é", "日本語", "a b", "zz", "ß", "x1"]
KEY2 = ["a", "b", "é"]
# SQL filter conditions and their polars equivalents. A NULL condition keeps the key, as
# tablegate's SQL filters (and custom rules) count NULL as satisfied: the dataframely filter
# below fills NULL with True.
SQL_FILTERS = [
    ("count(*) <= 2", lambda: pl.len() <= 2),
    ("max(v) >= 1", lambda: pl.col("v").max() >= 1),
    ("count(s) = count(*)", lambda: pl.col("s").count() == pl.len()),
    # SQL's sum of only NULLs is NULL, polars' is 0.
    ("sum(v) > 0", lambda: pl.when(pl.col("v").count() > 0).then(pl.col("v").sum()) > 0),
]


def maybe(r, p=0.5):
    return r.random() < p


class Member:
    """One member: its flags, its schema (as a tablegate declaration and a dataframely schema)
    and its rows."""

    def __init__(self, r, name, common, ignored):
        self.name = name
        self.ignored = ignored
        self.optional = maybe(r, 0.25)
        self.propagate = maybe(r, 0.35)
        self.present = True
        # A member ignored in filters has a key of its own; the others the common key, and some a
        # superset of it (several rows per common key).
        if ignored:
            self.pk = r.choice([["pid"], []])
        else:
            self.pk = list(common) + (["sub"] if maybe(r, 0.5) else [])
        self.cols = [("rid", "Int64", {})]
        for k in common:
            if not ignored:
                self.cols.append((k, "Int64" if k == "k" else "String", {}))
        if "pid" in self.pk:
            self.cols.append(("pid", "Int64", {}))
        if "sub" in self.pk:
            self.cols.append(("sub", "Int16", {}))
        # Value columns with rules.
        v = {}
        if maybe(r, 0.6):
            v["nullable"] = True
        if maybe(r, 0.5):
            v["min"] = r.randint(-3, 1)
        if maybe(r, 0.5):
            v["max"] = r.randint(2, 5)
        self.cols.append(("v", "Int64", v))
        s = {}
        if maybe(r, 0.6):
            s["nullable"] = True
        if maybe(r, 0.4):
            s["max_length"] = r.randint(2, 9)
        if maybe(r, 0.2):
            s["regex"] = r.choice(["^[a-z]*$", "^[^z]", "b$"])
        self.cols.append(("s", "String", s))
        # A schema-level rule, or none.
        self.rule = r.choice([None, None, None, "even", "short"])

    def decl(self):
        cols = []
        for name, typ, args in self.cols:
            d = {"name": name, "type": typ}
            d.update(args)
            if name in self.pk:
                d["primary_key"] = True
            cols.append(d)
        out = {"schema": f"S_{self.name}", "columns": cols}
        if self.rule == "even":
            out["rules"] = [{"name": "v_even", "sql": "v IS NULL OR v % 2 = 0"}]
        elif self.rule == "short":
            out["rules"] = [{"name": "s_short", "sql": "s IS NULL OR length(s) <= v"}]
        return out

    def dy_schema(self):
        attrs = {}
        for name, typ, args in self.cols:
            kw = dict(args)
            if name in self.pk:
                kw["primary_key"] = True
            attrs[name] = {"Int64": dy.Int64, "Int16": dy.Int16, "String": dy.String}[typ](**kw)
        if self.rule == "even":
            attrs["v_even"] = dy.rule()(lambda cls: pl.col("v").is_null() | (pl.col("v") % 2 == 0))
        elif self.rule == "short":
            # NULL where v is NULL and s is not: dataframely counts a NULL rule result as valid,
            # as tablegate does.
            attrs["s_short"] = dy.rule()(lambda cls: pl.col("s").is_null() | (pl.col("s").str.len_chars() <= pl.col("v")))
        return type(f"S_{self.name}", (dy.Schema,), attrs)

    def dtype(self, typ):
        return {"Int64": pl.Int64, "Int16": pl.Int16, "String": pl.String}[typ]

    def frame(self):
        data = {c: [row[c] for row in self.rows] for c, _, _ in self.cols}
        return pl.DataFrame(data, schema={c: self.dtype(t) for c, t, _ in self.cols})


class Case:
    def __init__(self, seed):
        r = random.Random(seed)
        self.seed = seed
        self.common = ["k"] + (["k2"] if maybe(r, 0.25) else [])
        n = r.randint(2, 4)
        names = r.sample(MEMBER_NAMES, n)
        ignored = [maybe(r, 0.15) for _ in names]
        # At least two members take part in filters.
        while sum(not i for i in ignored) < 2:
            ignored[r.randrange(n)] = False
        self.members = [Member(r, name, self.common, ig) for name, ig in zip(names, ignored)]
        active = [m for m in self.members if not m.ignored]
        # The common key dataframely derives: every such member may have "sub" too.
        self.key = sorted(set.intersection(*(set(m.pk) for m in active)))
        self.filters = []
        for i in range(r.choice([0, 1, 1, 2, 2, 3])):
            kind = r.choice(["one_to_one", "one_to_at_least_one", "one_to_one", "one_to_at_least_one", "sql"])
            if kind == "sql":
                # A condition over each key's valid rows of one member.
                self.filters.append((f"f{i}_sql", kind, r.choice(active).name, r.randrange(len(SQL_FILTERS))))
                continue
            a, b = r.sample(active, 2)
            self.filters.append((f"f{i}_{kind}", kind, a.name, b.name))
        referenced = {m for _, kind, a, b in self.filters for m in ((a,) if kind == "sql" else (a, b))}
        for m in self.members:
            # An optional member is absent sometimes; never one a filter names (dataframely's
            # filter would read None).
            if m.optional and m.name not in referenced and maybe(r, 0.5):
                m.present = False
        # Rows: keys from a small pool, so they repeat within and across members.
        pool = r.randint(4, 14)
        order = r.sample(range(pool), pool)  # the members mostly share their keys
        for m in self.members:
            rows = []
            fresh = [k for k in reversed(order) if not maybe(r, 0.15)]
            for i in range(r.randint(0, 9)):
                if rows and maybe(r, 0.06):
                    row = dict(r.choice(rows))  # a whole duplicate (but its own rid)
                elif rows and "sub" in m.pk and maybe(r, 0.25):
                    row = dict(rows[-1], sub=r.choice([rows[-1]["sub"] + 1, rows[-1]["sub"] + 1, 0]))  # the same common key again
                else:
                    k = fresh.pop() if fresh and maybe(r, 0.9) else r.randrange(pool)
                    row = {"k": None if maybe(r, 0.04) else k,
                           "k2": None if maybe(r, 0.03) else r.choice(KEY2[:1] if maybe(r, 0.8) else KEY2),
                           "sub": 0,
                           "pid": None if maybe(r, 0.05) else r.randrange(pool * 4),
                           "v": None if maybe(r, 0.15) else r.randint(-1, 4),
                           "s": None if maybe(r, 0.15) else r.choice(STRINGS)}
                row["rid"] = i
                rows.append(row)
            m.rows = rows

    def propagating(self):
        return [m for m in self.members if m.propagate and not m.ignored and m.present]

    def dy_collection(self):
        ann, ns = {}, {}
        for m in self.members:
            t = dy.LazyFrame[m.dy_schema()]
            if m.optional:
                t = typing.Optional[t]
            # An absent propagating member propagates nothing; dataframely 3.1.2 would raise a
            # KeyError in filter (it looks the absent member's failures up), so it is told so.
            propagate = m.propagate and m.present
            if m.ignored or propagate:
                t = typing.Annotated[t, dy.CollectionMember(ignored_in_filters=m.ignored, propagate_row_failures=propagate)]
            ann[m.name] = t
        for name, kind, a, b in self.filters:
            if kind == "sql":
                cond = SQL_FILTERS[b][1]
                ns[name] = dy.filter()(lambda self, a=a, cond=cond, on=self.key: getattr(self, a).group_by(on).agg(cond().alias("__ok")).filter(pl.col("__ok").fill_null(True)).select(on))
                continue
            fn = dy.functional.require_relationship_one_to_one if kind == "one_to_one" else dy.functional.require_relationship_one_to_at_least_one
            ns[name] = dy.filter()(lambda self, fn=fn, a=a, b=b, on=self.key: fn(getattr(self, a), getattr(self, b), on=on))
        ns["__annotations__"] = ann
        return type("C", (dy.Collection,), ns)

    def collection_decl(self):
        members = {}
        for m in self.members:
            opts = {"schema": f"{m.name}.json"}
            if m.optional:
                opts["optional"] = True
            if m.ignored:
                opts["ignored_in_filters"] = True
            if m.propagate:
                opts["propagate_row_failures"] = True
            members[m.name] = opts if len(opts) > 1 else opts["schema"]
        out = {"collection": "C", "members": members}
        if self.filters:
            out["filters"] = [{"name": name, "sql": SQL_FILTERS[b][0], "member": a} if kind == "sql" else {"name": name, kind: [a, b]}
                              for name, kind, a, b in self.filters]
        return out

    def describe(self):
        return {"seed": self.seed, "collection": self.collection_decl(),
                "schemas": {m.name: m.decl() for m in self.members},
                "absent": [m.name for m in self.members if not m.present],
                "rows": {m.name: m.rows for m in self.members if m.present}}


def dataframely_verdict(case):
    """Per present member: the kept rids and the failure count per rule (member rules by
    dataframely's names, filters by name, propagation as <member>|failure_propagation)."""
    C = case.dy_collection()
    data = {m.name: m.frame() for m in case.members if m.present}
    result, failures = C.filter(data, cast=False)
    out = {}
    for m in case.members:
        if not m.present:
            continue
        kept = set(getattr(result, m.name).collect()["rid"].to_list())
        info = failures[m.name]
        counts = info.counts()
        out[m.name] = (kept, counts)
    return out


def write_case(case, d):
    """The collection file, the member schemas and the inputs; returns the input paths."""
    with open(os.path.join(d, "collection.json"), "w") as f:
        json.dump(case.collection_decl(), f, indent=1)
    inputs = {}
    for m in case.members:
        with open(os.path.join(d, f"{m.name}.json"), "w") as f:
            json.dump(m.decl(), f, indent=1)
        if m.present:
            p = os.path.join(d, "in", f"{m.name}.parquet")
            os.makedirs(os.path.dirname(p), exist_ok=True)
            m.frame().write_parquet(p)
            inputs[m.name] = p
    return inputs


def tablegate_verdict(binary, case, d):
    """Per present member: the kept rids (its output) and the failure count per rule, from the
    CLI's JSON report; or None and the reason tablegate refused."""
    inputs = write_case(case, d)
    outdir = os.path.join(d, "out")
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    # --row-sample lists every valid row (the cases are small): the kept rows even when a
    # member's outcome (no valid rows) stops the collection from writing.
    args = [binary, "validate", "--collection", os.path.join(d, "collection.json"), "--format", "json", "--quarantine",
            "--samples", "0", "--row-sample", "100000"]
    for name, path in inputs.items():
        args += ["--input", f"{name}={path}", "--out", f"{name}={os.path.join(outdir, name + '.parquet')}"]
    res = subprocess.run(args, capture_output=True, text=True, timeout=120)
    try:
        rep = json.loads(res.stdout)
    except json.JSONDecodeError:
        return None, f"no report (exit {res.returncode}): {res.stderr.strip()[:400]}"
    members = rep.get("members")
    if members is None:
        return None, f"no members in the report (exit {res.returncode}): {json.dumps(rep)[:400]}"
    out = {}
    for name in inputs:
        mrep = members.get(name) if isinstance(members, dict) else next((x for x in members if x.get("name") == name), None)
        if mrep is None:
            return None, f"no report for member {name}"
        counts = {}
        for c in mrep.get("checks", []):
            meta = c.get("metadata", {})
            rule = meta.get("dataframely/rule")
            n = meta.get("dataframely/failed_row_count", 0)
            if not rule:
                continue
            if n:
                counts[rule] = n
        kept = {row["rid"] for row in mrep.get("valid_sample", [])}
        if len(kept) != mrep["rows"]["valid"]:
            return None, f"member {name}: {mrep['rows']['valid']} valid rows but {len(kept)} in valid_sample"
        path = os.path.join(outdir, name + ".parquet")
        if rep.get("written"):
            # What was written is what the report lists.
            written = set(pl.read_parquet(path)["rid"].to_list())
            if written != kept:
                counts["(written rows differ from valid_sample)"] = len(written ^ kept)
        out[name] = (kept, counts)
    return out, None


def compare(case, binary, d):
    """Disagreements as (member, what, tablegate, dataframely); or None and the refusal."""
    theirs = dataframely_verdict(case)
    ours, err = tablegate_verdict(binary, case, d)
    if ours is None:
        return None, err
    diffs = []
    for name, (kept, counts) in theirs.items():
        okept, ocounts = ours[name]
        if okept != kept:
            diffs.append((name, "kept rows", sorted(okept), sorted(kept)))
        for rule in sorted(set(counts) | set(ocounts)):
            if counts.get(rule, 0) != ocounts.get(rule, 0):
                diffs.append((name, rule, ocounts.get(rule, 0), counts.get(rule, 0)))
    return diffs, None


def shrink(case, binary, d, budget=80):
    """The fewest rows (greedy, one at a time over every member) that still disagree."""
    for m in case.members:
        i = len(m.rows) - 1
        while i >= 0 and budget > 0:
            keep = m.rows
            m.rows = keep[:i] + keep[i + 1:]
            budget -= 1
            try:
                diffs, _ = compare(case, binary, d)
            except Exception:
                diffs = None
            if not diffs:
                m.rows = keep
            i -= 1
    return case


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--budget", type=float, default=0, help="stop starting cases after this many seconds (0: no limit)")
    ap.add_argument("--tablegate", help="the tablegate binary (default: go build ./cmd/tablegate)")
    ap.add_argument("--out", help="folder for the shrunk disagreements (JSON)")
    ap.add_argument("--only", help="run only these case numbers (comma-separated k of seed*1000003+k)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="tg-cdiff-")
    binary = args.tablegate
    if not binary:
        binary = os.path.join(work, "tablegate")
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        subprocess.run(["go", "build", "-o", binary, "./cmd/tablegate"], cwd=root, check=True)
    start = time.time()
    stats = collections.Counter()
    refusals = collections.Counter()
    found = []
    done = 0
    only = {int(k) for k in args.only.split(",")} if args.only else None
    for k in range(args.cases):
        if only is not None and k not in only:
            continue
        if args.budget and time.time() - start > args.budget:
            break
        done += 1
        seed = args.seed * 1_000_003 + k
        case = Case(seed)
        d = os.path.join(work, "case")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        try:
            diffs, err = compare(case, binary, d)
        except Exception as e:  # noqa: BLE001 - dataframely refused the collection
            refusals[f"dataframely: {type(e).__name__}: {str(e).splitlines()[0][:100]}"] += 1
            continue
        if diffs is None:
            refusals[f"tablegate: {err.splitlines()[0][:160]}"] += 1
            continue
        stats["cases"] += 1
        stats["members"] += sum(m.present for m in case.members)
        stats["filters"] += len(case.filters)
        stats["propagating"] += len(case.propagating())
        stats["ignored"] += sum(m.ignored for m in case.members)
        stats["absent"] += sum(not m.present for m in case.members)
        if not diffs:
            continue
        shrink(case, binary, d)
        diffs, _ = compare(case, binary, d)
        item = {"diffs": [{"member": m, "what": w, "tablegate": a, "dataframely": b} for m, w, a, b in diffs or []], **case.describe()}
        found.append(item)
        for m, w, a, b in diffs or []:
            print(f"DISAGREE seed={seed} member={m} {w}: tablegate {a}, dataframely {b}", file=sys.stderr)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, f"collection-{seed}.json"), "w") as f:
                json.dump(item, f, indent=1, default=str)
    took = time.time() - start
    print(f"{done} cases (seed {args.seed}) in {took:.0f} s: {stats['cases']} compared, {stats['members']} members "
          f"({stats['ignored']} ignored in filters, {stats['propagating']} propagating), {stats['absent']} optional members absent, "
          f"{stats['filters']} filters; {len(found)} disagree.")
    if refusals:
        print("Not compared: " + "; ".join(f"{k} ({v})" for k, v in refusals.most_common()))
    sys.exit(1 if found or not stats["cases"] else 0)


if __name__ == "__main__":
    main()
