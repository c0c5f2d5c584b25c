-- 1. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT "day", "week_start", "month_start", "opens", "created", "created_ms", "created_ns", "created_local", "created_monthly", "created_weekly", "took", rowid AS __tg_rid FROM "main"."input"
)
SELECT
  __tg_src."day", __tg_src."week_start", __tg_src."month_start", __tg_src."opens", __tg_src."created", __tg_src."created_ms", __tg_src."created_ns", __tg_src."created_local", __tg_src."created_monthly", __tg_src."created_weekly", __tg_src."took", __tg_src.__tg_rid,
  COALESCE("day" IS NOT NULL, TRUE) AS "day|nullability",
  COALESCE("day" >= DATE '2020-01-01', TRUE) AS "day|min",
  COALESCE("day" < DATE '2030-01-01', TRUE) AS "day|max_exclusive",
  COALESCE("week_start" IS NOT NULL, TRUE) AS "week_start|nullability",
  COALESCE(("week_start" - DATE '1970-01-05') % 7 = 0, TRUE) AS "week_start|resolution",
  COALESCE((day("month_start") = 1 AND (year("month_start") * 12 + month("month_start") - 1) % 3 = 0), TRUE) AS "month_start|resolution",
  COALESCE("opens" IS NOT NULL, TRUE) AS "opens|nullability",
  COALESCE("opens" >= TIME '06:00:00', TRUE) AS "opens|min",
  COALESCE("opens" <= TIME '22:30:00', TRUE) AS "opens|max",
  COALESCE(epoch_us("opens") % 900000000 = 0, TRUE) AS "opens|resolution",
  COALESCE("created" IS NOT NULL, TRUE) AS "created|nullability",
  COALESCE("created" >= TIMESTAMP '2020-03-01 12:00:00', TRUE) AS "created|min",
  COALESCE(epoch_us("created") % 1000000 = 0, TRUE) AS "created|resolution",
  COALESCE("created_ms" IS NOT NULL, TRUE) AS "created_ms|nullability",
  COALESCE("created_ms" <= TIMESTAMP_MS '2099-12-31 00:00:00', TRUE) AS "created_ms|max",
  COALESCE(epoch_ms("created_ms") % 86400000 = 0, TRUE) AS "created_ms|resolution",
  COALESCE("created_ns" IS NOT NULL, TRUE) AS "created_ns|nullability",
  COALESCE("created_ns" > TIMESTAMP_NS '1970-01-01 00:00:00', TRUE) AS "created_ns|min_exclusive",
  COALESCE(epoch_ns("created_ns") % 500000000 = 0, TRUE) AS "created_ns|resolution",
  COALESCE("created_local" IS NOT NULL, TRUE) AS "created_local|nullability",
  COALESCE("created_local" >= TIMESTAMPTZ '2020-03-01 11:00:00+00', TRUE) AS "created_local|min",
  COALESCE((epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) % 3600000000 = 0 OR make_timestamp(epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) - ((epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) - 0) % 3600000000 + 3600000000) % 3600000000) > (("created_local" - INTERVAL 1 MICROSECOND) AT TIME ZONE 'Europe/Berlin')), TRUE) AS "created_local|resolution",
  COALESCE("created_monthly" IS NOT NULL, TRUE) AS "created_monthly|nullability",
  COALESCE((day("created_monthly") = 1 AND "created_monthly" = date_trunc('day', "created_monthly") AND (year("created_monthly") * 12 + month("created_monthly") - 1) % 1 = 0), TRUE) AS "created_monthly|resolution",
  COALESCE("created_weekly" IS NOT NULL, TRUE) AS "created_weekly|nullability",
  COALESCE((epoch_ns("created_weekly") - 345600000000000) % 1209600000000000 = 0, TRUE) AS "created_weekly|resolution",
  COALESCE("took" IS NOT NULL, TRUE) AS "took|nullability",
  COALESCE("took" >= to_microseconds(0), TRUE) AS "took|min",
  COALESCE("took" <= to_microseconds(100800000000), TRUE) AS "took|max",
  COALESCE(epoch_us("took") % 1000 = 0, TRUE) AS "took|resolution"
FROM __tg_src
WHERE (NOT ("day" IS NOT NULL))
   OR (NOT ("day" >= DATE '2020-01-01'))
   OR (NOT ("day" < DATE '2030-01-01'))
   OR (NOT ("week_start" IS NOT NULL))
   OR (NOT (("week_start" - DATE '1970-01-05') % 7 = 0))
   OR (NOT ((day("month_start") = 1 AND (year("month_start") * 12 + month("month_start") - 1) % 3 = 0)))
   OR (NOT ("opens" IS NOT NULL))
   OR (NOT ("opens" >= TIME '06:00:00'))
   OR (NOT ("opens" <= TIME '22:30:00'))
   OR (NOT (epoch_us("opens") % 900000000 = 0))
   OR (NOT ("created" IS NOT NULL))
   OR (NOT ("created" >= TIMESTAMP '2020-03-01 12:00:00'))
   OR (NOT (epoch_us("created") % 1000000 = 0))
   OR (NOT ("created_ms" IS NOT NULL))
   OR (NOT ("created_ms" <= TIMESTAMP_MS '2099-12-31 00:00:00'))
   OR (NOT (epoch_ms("created_ms") % 86400000 = 0))
   OR (NOT ("created_ns" IS NOT NULL))
   OR (NOT ("created_ns" > TIMESTAMP_NS '1970-01-01 00:00:00'))
   OR (NOT (epoch_ns("created_ns") % 500000000 = 0))
   OR (NOT ("created_local" IS NOT NULL))
   OR (NOT ("created_local" >= TIMESTAMPTZ '2020-03-01 11:00:00+00'))
   OR (NOT ((epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) % 3600000000 = 0 OR make_timestamp(epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) - ((epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) - 0) % 3600000000 + 3600000000) % 3600000000) > (("created_local" - INTERVAL 1 MICROSECOND) AT TIME ZONE 'Europe/Berlin'))))
   OR (NOT ("created_monthly" IS NOT NULL))
   OR (NOT ((day("created_monthly") = 1 AND "created_monthly" = date_trunc('day', "created_monthly") AND (year("created_monthly") * 12 + month("created_monthly") - 1) % 1 = 0)))
   OR (NOT ("created_weekly" IS NOT NULL))
   OR (NOT ((epoch_ns("created_weekly") - 345600000000000) % 1209600000000000 = 0))
   OR (NOT ("took" IS NOT NULL))
   OR (NOT ("took" >= to_microseconds(0)))
   OR (NOT ("took" <= to_microseconds(100800000000)))
   OR (NOT (epoch_us("took") % 1000 = 0));

-- 2. count failures: read the counts
SELECT coalesce(count_if(NOT ("day|nullability" AND "day|min" AND "day|max_exclusive" AND "week_start|nullability" AND "week_start|resolution" AND "month_start|resolution" AND "opens|nullability" AND "opens|min" AND "opens|max" AND "opens|resolution" AND "created|nullability" AND "created|min" AND "created|resolution" AND "created_ms|nullability" AND "created_ms|max" AND "created_ms|resolution" AND "created_ns|nullability" AND "created_ns|min_exclusive" AND "created_ns|resolution" AND "created_local|nullability" AND "created_local|min" AND "created_local|resolution" AND "created_monthly|nullability" AND "created_monthly|resolution" AND "created_weekly|nullability" AND "created_weekly|resolution" AND "took|nullability" AND "took|min" AND "took|max" AND "took|resolution")), 0), count(*) FROM "__tg_failed_1";

-- 3. count failures per rule (1 to 30): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "day|nullability"), 0), coalesce(count_if(NOT "day|min"), 0), coalesce(count_if(NOT "day|max_exclusive"), 0), coalesce(count_if(NOT "week_start|nullability"), 0), coalesce(count_if(NOT "week_start|resolution"), 0), coalesce(count_if(NOT "month_start|resolution"), 0), coalesce(count_if(NOT "opens|nullability"), 0), coalesce(count_if(NOT "opens|min"), 0), coalesce(count_if(NOT "opens|max"), 0), coalesce(count_if(NOT "opens|resolution"), 0), coalesce(count_if(NOT "created|nullability"), 0), coalesce(count_if(NOT "created|min"), 0), coalesce(count_if(NOT "created|resolution"), 0), coalesce(count_if(NOT "created_ms|nullability"), 0), coalesce(count_if(NOT "created_ms|max"), 0), coalesce(count_if(NOT "created_ms|resolution"), 0), coalesce(count_if(NOT "created_ns|nullability"), 0), coalesce(count_if(NOT "created_ns|min_exclusive"), 0), coalesce(count_if(NOT "created_ns|resolution"), 0), coalesce(count_if(NOT "created_local|nullability"), 0), coalesce(count_if(NOT "created_local|min"), 0), coalesce(count_if(NOT "created_local|resolution"), 0), coalesce(count_if(NOT "created_monthly|nullability"), 0), coalesce(count_if(NOT "created_monthly|resolution"), 0), coalesce(count_if(NOT "created_weekly|nullability"), 0), coalesce(count_if(NOT "created_weekly|resolution"), 0), coalesce(count_if(NOT "took|nullability"), 0), coalesce(count_if(NOT "took|min"), 0), coalesce(count_if(NOT "took|max"), 0), coalesce(count_if(NOT "took|resolution"), 0) FROM "__tg_failed_1";

-- 4. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "day|nullability" THEN 1 END, CASE WHEN NOT "day|min" THEN 2 END, CASE WHEN NOT "day|max_exclusive" THEN 3 END, CASE WHEN NOT "week_start|nullability" THEN 4 END, CASE WHEN NOT "week_start|resolution" THEN 5 END, CASE WHEN NOT "month_start|resolution" THEN 6 END, CASE WHEN NOT "opens|nullability" THEN 7 END, CASE WHEN NOT "opens|min" THEN 8 END, CASE WHEN NOT "opens|max" THEN 9 END, CASE WHEN NOT "opens|resolution" THEN 10 END, CASE WHEN NOT "created|nullability" THEN 11 END, CASE WHEN NOT "created|min" THEN 12 END, CASE WHEN NOT "created|resolution" THEN 13 END, CASE WHEN NOT "created_ms|nullability" THEN 14 END, CASE WHEN NOT "created_ms|max" THEN 15 END, CASE WHEN NOT "created_ms|resolution" THEN 16 END, CASE WHEN NOT "created_ns|nullability" THEN 17 END, CASE WHEN NOT "created_ns|min_exclusive" THEN 18 END, CASE WHEN NOT "created_ns|resolution" THEN 19 END, CASE WHEN NOT "created_local|nullability" THEN 20 END, CASE WHEN NOT "created_local|min" THEN 21 END, CASE WHEN NOT "created_local|resolution" THEN 22 END, CASE WHEN NOT "created_monthly|nullability" THEN 23 END, CASE WHEN NOT "created_monthly|resolution" THEN 24 END, CASE WHEN NOT "created_weekly|nullability" THEN 25 END, CASE WHEN NOT "created_weekly|resolution" THEN 26 END, CASE WHEN NOT "took|nullability" THEN 27 END, CASE WHEN NOT "took|min" THEN 28 END, CASE WHEN NOT "took|max" THEN 29 END, CASE WHEN NOT "took|resolution" THEN 30 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 5. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("day" := "day", "week_start" := "week_start", "month_start" := "month_start", "opens" := "opens", "created" := "created", "created_ms" := "created_ms", "created_ns" := "created_ns", "created_local" := "created_local", "created_monthly" := "created_monthly", "created_weekly" := "created_weekly", "took" := "took")) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 6. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "day|nullability" THEN {'k': 1, 'v': coalesce(CAST(to_json("day") AS VARCHAR), 'null')} END, CASE WHEN NOT "day|min" THEN {'k': 2, 'v': coalesce(CAST(to_json("day") AS VARCHAR), 'null')} END, CASE WHEN NOT "day|max_exclusive" THEN {'k': 3, 'v': coalesce(CAST(to_json("day") AS VARCHAR), 'null')} END, CASE WHEN NOT "week_start|nullability" THEN {'k': 4, 'v': coalesce(CAST(to_json("week_start") AS VARCHAR), 'null')} END, CASE WHEN NOT "week_start|resolution" THEN {'k': 5, 'v': coalesce(CAST(to_json("week_start") AS VARCHAR), 'null')} END, CASE WHEN NOT "month_start|resolution" THEN {'k': 6, 'v': coalesce(CAST(to_json("month_start") AS VARCHAR), 'null')} END, CASE WHEN NOT "opens|nullability" THEN {'k': 7, 'v': coalesce(CAST(to_json("opens") AS VARCHAR), 'null')} END, CASE WHEN NOT "opens|min" THEN {'k': 8, 'v': coalesce(CAST(to_json("opens") AS VARCHAR), 'null')} END, CASE WHEN NOT "opens|max" THEN {'k': 9, 'v': coalesce(CAST(to_json("opens") AS VARCHAR), 'null')} END, CASE WHEN NOT "opens|resolution" THEN {'k': 10, 'v': coalesce(CAST(to_json("opens") AS VARCHAR), 'null')} END, CASE WHEN NOT "created|nullability" THEN {'k': 11, 'v': coalesce(CAST(to_json("created") AS VARCHAR), 'null')} END, CASE WHEN NOT "created|min" THEN {'k': 12, 'v': coalesce(CAST(to_json("created") AS VARCHAR), 'null')} END, CASE WHEN NOT "created|resolution" THEN {'k': 13, 'v': coalesce(CAST(to_json("created") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_ms|nullability" THEN {'k': 14, 'v': coalesce(CAST(to_json("created_ms") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_ms|max" THEN {'k': 15, 'v': coalesce(CAST(to_json("created_ms") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_ms|resolution" THEN {'k': 16, 'v': coalesce(CAST(to_json("created_ms") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_ns|nullability" THEN {'k': 17, 'v': coalesce(CAST(to_json("created_ns") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_ns|min_exclusive" THEN {'k': 18, 'v': coalesce(CAST(to_json("created_ns") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_ns|resolution" THEN {'k': 19, 'v': coalesce(CAST(to_json("created_ns") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_local|nullability" THEN {'k': 20, 'v': coalesce(CAST(to_json("created_local") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_local|min" THEN {'k': 21, 'v': coalesce(CAST(to_json("created_local") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_local|resolution" THEN {'k': 22, 'v': coalesce(CAST(to_json("created_local") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_monthly|nullability" THEN {'k': 23, 'v': coalesce(CAST(to_json("created_monthly") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_monthly|resolution" THEN {'k': 24, 'v': coalesce(CAST(to_json("created_monthly") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_weekly|nullability" THEN {'k': 25, 'v': coalesce(CAST(to_json("created_weekly") AS VARCHAR), 'null')} END, CASE WHEN NOT "created_weekly|resolution" THEN {'k': 26, 'v': coalesce(CAST(to_json("created_weekly") AS VARCHAR), 'null')} END, CASE WHEN NOT "took|nullability" THEN {'k': 27, 'v': coalesce(CAST(to_json("took") AS VARCHAR), 'null')} END, CASE WHEN NOT "took|min" THEN {'k': 28, 'v': coalesce(CAST(to_json("took") AS VARCHAR), 'null')} END, CASE WHEN NOT "took|max" THEN {'k': 29, 'v': coalesce(CAST(to_json("took") AS VARCHAR), 'null')} END, CASE WHEN NOT "took|resolution" THEN {'k': 30, 'v': coalesce(CAST(to_json("took") AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 7. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "created|min" THEN 'dy_rule__created__min' END, CASE WHEN NOT "created|nullability" THEN 'dy_rule__created__nullability' END, CASE WHEN NOT "created|resolution" THEN 'dy_rule__created__resolution' END, CASE WHEN NOT "created_local|min" THEN 'dy_rule__created_local__min' END, CASE WHEN NOT "created_local|nullability" THEN 'dy_rule__created_local__nullability' END, CASE WHEN NOT "created_local|resolution" THEN 'dy_rule__created_local__resolution' END, CASE WHEN NOT "created_monthly|nullability" THEN 'dy_rule__created_monthly__nullability' END, CASE WHEN NOT "created_monthly|resolution" THEN 'dy_rule__created_monthly__resolution' END, CASE WHEN NOT "created_ms|max" THEN 'dy_rule__created_ms__max' END, CASE WHEN NOT "created_ms|nullability" THEN 'dy_rule__created_ms__nullability' END, CASE WHEN NOT "created_ms|resolution" THEN 'dy_rule__created_ms__resolution' END, CASE WHEN NOT "created_ns|min_exclusive" THEN 'dy_rule__created_ns__min_exclusive' END, CASE WHEN NOT "created_ns|nullability" THEN 'dy_rule__created_ns__nullability' END, CASE WHEN NOT "created_ns|resolution" THEN 'dy_rule__created_ns__resolution' END, CASE WHEN NOT "created_weekly|nullability" THEN 'dy_rule__created_weekly__nullability' END, CASE WHEN NOT "created_weekly|resolution" THEN 'dy_rule__created_weekly__resolution' END, CASE WHEN NOT "day|max_exclusive" THEN 'dy_rule__day__max_exclusive' END, CASE WHEN NOT "day|min" THEN 'dy_rule__day__min' END, CASE WHEN NOT "day|nullability" THEN 'dy_rule__day__nullability' END, CASE WHEN NOT "month_start|resolution" THEN 'dy_rule__month_start__resolution' END, CASE WHEN NOT "opens|max" THEN 'dy_rule__opens__max' END, CASE WHEN NOT "opens|min" THEN 'dy_rule__opens__min' END, CASE WHEN NOT "opens|nullability" THEN 'dy_rule__opens__nullability' END, CASE WHEN NOT "opens|resolution" THEN 'dy_rule__opens__resolution' END, CASE WHEN NOT "took|max" THEN 'dy_rule__took__max' END, CASE WHEN NOT "took|min" THEN 'dy_rule__took__min' END, CASE WHEN NOT "took|nullability" THEN 'dy_rule__took__nullability' END, CASE WHEN NOT "took|resolution" THEN 'dy_rule__took__resolution' END, CASE WHEN NOT "week_start|nullability" THEN 'dy_rule__week_start__nullability' END, CASE WHEN NOT "week_start|resolution" THEN 'dy_rule__week_start__resolution' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("day|nullability" AND "day|min" AND "day|max_exclusive" AND "week_start|nullability" AND "week_start|resolution" AND "month_start|resolution" AND "opens|nullability" AND "opens|min" AND "opens|max" AND "opens|resolution" AND "created|nullability" AND "created|min" AND "created|resolution" AND "created_ms|nullability" AND "created_ms|max" AND "created_ms|resolution" AND "created_ns|nullability" AND "created_ns|min_exclusive" AND "created_ns|resolution" AND "created_local|nullability" AND "created_local|min" AND "created_local|resolution" AND "created_monthly|nullability" AND "created_monthly|resolution" AND "created_weekly|nullability" AND "created_weekly|resolution" AND "took|nullability" AND "took|min" AND "took|max" AND "took|resolution") GROUP BY ALL ORDER BY n DESC, rules;

-- 8. sample invalid rows: read the invalid rows' sample; when some row is invalid
SELECT CAST(to_json(struct_pack("day" := "day", "week_start" := "week_start", "month_start" := "month_start", "opens" := "opens", "created" := "created", "created_ms" := "created_ms", "created_ns" := "created_ns", "created_local" := "created_local", "created_monthly" := "created_monthly", "created_weekly" := "created_weekly", "took" := "took")) AS VARCHAR) FROM "__tg_failed_1" WHERE NOT ("day|nullability" AND "day|min" AND "day|max_exclusive" AND "week_start|nullability" AND "week_start|resolution" AND "month_start|resolution" AND "opens|nullability" AND "opens|min" AND "opens|max" AND "opens|resolution" AND "created|nullability" AND "created|min" AND "created|resolution" AND "created_ms|nullability" AND "created_ms|max" AND "created_ms|resolution" AND "created_ns|nullability" AND "created_ns|min_exclusive" AND "created_ns|resolution" AND "created_local|nullability" AND "created_local|min" AND "created_local|resolution" AND "created_monthly|nullability" AND "created_monthly|resolution" AND "created_weekly|nullability" AND "created_weekly|resolution" AND "took|nullability" AND "took|min" AND "took|max" AND "took|resolution") ORDER BY __tg_rid LIMIT 3;

-- 9. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("day|nullability" AND "day|min" AND "day|max_exclusive" AND "week_start|nullability" AND "week_start|resolution" AND "month_start|resolution" AND "opens|nullability" AND "opens|min" AND "opens|max" AND "opens|resolution" AND "created|nullability" AND "created|min" AND "created|resolution" AND "created_ms|nullability" AND "created_ms|max" AND "created_ms|resolution" AND "created_ns|nullability" AND "created_ns|min_exclusive" AND "created_ns|resolution" AND "created_local|nullability" AND "created_local|min" AND "created_local|resolution" AND "created_monthly|nullability" AND "created_monthly|resolution" AND "created_weekly|nullability" AND "created_weekly|resolution" AND "took|nullability" AND "took|min" AND "took|max" AND "took|resolution")) GROUP BY block;

-- 10. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 11. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 12. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 13. sample valid rows: read the valid rows' sample; when no row is invalid, some row is valid
SELECT CAST(to_json(struct_pack("day" := "day", "week_start" := "week_start", "month_start" := "month_start", "opens" := "opens", "created" := "created", "created_ms" := "created_ms", "created_ns" := "created_ns", "created_local" := "created_local", "created_monthly" := "created_monthly", "created_weekly" := "created_weekly", "took" := "took")) AS VARCHAR) FROM (SELECT s."day", s."week_start", s."month_start", s."opens", s."created", s."created_ms", s."created_ns", s."created_local", s."created_monthly", s."created_weekly", s."took" FROM (SELECT "day", "week_start", "month_start", "opens", "created", "created_ms", "created_ns", "created_local", "created_monthly", "created_weekly", "took", rowid AS __tg_rid FROM "main"."input") AS s LIMIT 3);

-- 14. sample valid rows: read the valid rows' sample; when some row is invalid, some row is valid
SELECT CAST(to_json(struct_pack("day" := "day", "week_start" := "week_start", "month_start" := "month_start", "opens" := "opens", "created" := "created", "created_ms" := "created_ms", "created_ns" := "created_ns", "created_local" := "created_local", "created_monthly" := "created_monthly", "created_weekly" := "created_weekly", "took" := "took")) AS VARCHAR) FROM (SELECT s."day", s."week_start", s."month_start", s."opens", s."created", s."created_ms", s."created_ns", s."created_local", s."created_monthly", s."created_weekly", s."took" FROM (SELECT "day", "week_start", "month_start", "opens", "created", "created_ms", "created_ns", "created_local", "created_monthly", "created_weekly", "took", rowid AS __tg_rid FROM "main"."input") AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END) LIMIT 3);

-- 15. begin the write: write; when the outputs are written
BEGIN TRANSACTION;

-- 16. create the output's schema: write; when the outputs are written
CREATE SCHEMA IF NOT EXISTS "__tg_db1_0"."clean";

-- 17. find the older quarantine: write (read the quarantine's count); when the outputs are written, no invalid rows are written
SELECT count(*) FROM duckdb_tables() WHERE database_name = '__tg_db1_0' AND lower(schema_name) = lower('clean') AND lower(table_name) = lower('orders_quarantine');

-- 18. drop the quarantine kept before: write; when the outputs are written, no invalid rows are written, an older quarantine is there
DROP TABLE IF EXISTS "__tg_db1_0"."clean"."orders_quarantine_prev";

-- 19. keep the older quarantine: write; when the outputs are written, no invalid rows are written, an older quarantine is there
ALTER TABLE "__tg_db1_0"."clean"."orders_quarantine" RENAME TO "orders_quarantine_prev";

-- 20. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders" AS SELECT s."day", s."week_start", s."month_start", s."opens", s."created", s."created_ms", s."created_ns", s."created_local", s."created_monthly", s."created_weekly", s."took" FROM (SELECT "day", "week_start", "month_start", "opens", "created", "created_ms", "created_ns", "created_local", "created_monthly", "created_weekly", "took", rowid AS __tg_rid FROM "main"."input") AS s;

-- 21. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders" AS SELECT s."day", s."week_start", s."month_start", s."opens", s."created", s."created_ms", s."created_ns", s."created_local", s."created_monthly", s."created_weekly", s."took" FROM (SELECT "day", "week_start", "month_start", "opens", "created", "created_ms", "created_ns", "created_local", "created_monthly", "created_weekly", "took", rowid AS __tg_rid FROM "main"."input") AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END);

-- 22. write the invalid rows: write (the invalid rows); when the invalid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders_quarantine" AS SELECT "day", "week_start", "month_start", "opens", "created", "created_ms", "created_ns", "created_local", "created_monthly", "created_weekly", "took", CASE WHEN "day|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__day__nullability", CASE WHEN "day|min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__day__min", CASE WHEN "day|max_exclusive" THEN 'valid' ELSE 'invalid' END AS "dy_rule__day__max_exclusive", CASE WHEN "week_start|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__week_start__nullability", CASE WHEN "week_start|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__week_start__resolution", CASE WHEN "month_start|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__month_start__resolution", CASE WHEN "opens|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__opens__nullability", CASE WHEN "opens|min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__opens__min", CASE WHEN "opens|max" THEN 'valid' ELSE 'invalid' END AS "dy_rule__opens__max", CASE WHEN "opens|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__opens__resolution", CASE WHEN "created|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created__nullability", CASE WHEN "created|min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created__min", CASE WHEN "created|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created__resolution", CASE WHEN "created_ms|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_ms__nullability", CASE WHEN "created_ms|max" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_ms__max", CASE WHEN "created_ms|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_ms__resolution", CASE WHEN "created_ns|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_ns__nullability", CASE WHEN "created_ns|min_exclusive" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_ns__min_exclusive", CASE WHEN "created_ns|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_ns__resolution", CASE WHEN "created_local|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_local__nullability", CASE WHEN "created_local|min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_local__min", CASE WHEN "created_local|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_local__resolution", CASE WHEN "created_monthly|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_monthly__nullability", CASE WHEN "created_monthly|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_monthly__resolution", CASE WHEN "created_weekly|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_weekly__nullability", CASE WHEN "created_weekly|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__created_weekly__resolution", CASE WHEN "took|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__took__nullability", CASE WHEN "took|min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__took__min", CASE WHEN "took|max" THEN 'valid' ELSE 'invalid' END AS "dy_rule__took__max", CASE WHEN "took|resolution" THEN 'valid' ELSE 'invalid' END AS "dy_rule__took__resolution" FROM "__tg_failed_1" WHERE NOT ("day|nullability" AND "day|min" AND "day|max_exclusive" AND "week_start|nullability" AND "week_start|resolution" AND "month_start|resolution" AND "opens|nullability" AND "opens|min" AND "opens|max" AND "opens|resolution" AND "created|nullability" AND "created|min" AND "created|resolution" AND "created_ms|nullability" AND "created_ms|max" AND "created_ms|resolution" AND "created_ns|nullability" AND "created_ns|min_exclusive" AND "created_ns|resolution" AND "created_local|nullability" AND "created_local|min" AND "created_local|resolution" AND "created_monthly|nullability" AND "created_monthly|resolution" AND "created_weekly|nullability" AND "created_weekly|resolution" AND "took|nullability" AND "took|min" AND "took|max" AND "took|resolution") ORDER BY __tg_rid;

-- 23. remove the older quarantine: write; when no invalid rows are written
DROP TABLE IF EXISTS "__tg_db1_0"."clean"."orders_quarantine";

-- 24. commit the write: write (commit); when the outputs are written
COMMIT;

-- 25. undo the write: write (only when it fails); when the outputs are written
ROLLBACK;

-- 26. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 27. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 28. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 29. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 30. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
