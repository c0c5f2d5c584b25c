-- 1. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "id" AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM "main"."input" AS __tg_src
  GROUP BY "id"
  HAVING (count(*) > 1);

-- 2. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT "id", "amount", "note", "email", "ratio", rowid AS __tg_rid FROM "main"."input"
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys0_1"
)
SELECT
  __tg_src."id", __tg_src."amount", __tg_src."note", __tg_src."email", __tg_src."ratio", __tg_src.__tg_rid,
  COALESCE((round((amount * 100)) = (amount * 100)), TRUE) AS "amount_is_rounded",
  COALESCE(((note IS NULL) OR (amount > 0)), TRUE) AS "note_needs_amount",
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "primary_key",
  COALESCE("id" IS NOT NULL, TRUE) AS "id|nullability",
  COALESCE("amount" IS NOT NULL, TRUE) AS "amount|nullability",
  COALESCE("amount" >= CAST('0' AS DOUBLE), TRUE) AS "amount|min",
  COALESCE(NOT isinf("amount"), TRUE) AS "amount|inf",
  COALESCE(NOT isnan("amount"), TRUE) AS "amount|nan",
  COALESCE(strlen("note") <= 100, TRUE) AS "note|max_length",
  COALESCE("email" IS NOT NULL, TRUE) AS "email|nullability",
  COALESCE((lower(email) = email), TRUE) AS "email|check__lowercase",
  COALESCE(contains(email, '@'), TRUE) AS "email|check__has_at",
  COALESCE("ratio" IS NOT NULL, TRUE) AS "ratio|nullability",
  COALESCE((ratio >= 0), TRUE) AS "ratio|check__0",
  COALESCE((ratio != 0.5), TRUE) AS "ratio|check__1",
  COALESCE("ratio" <= CAST('1' AS FLOAT), TRUE) AS "ratio|max",
  COALESCE(NOT isnan("ratio"), TRUE) AS "ratio|nan"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
WHERE (NOT ((round((amount * 100)) = (amount * 100))))
   OR (NOT (((note IS NULL) OR (amount > 0))))
   OR NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR (NOT ("id" IS NOT NULL))
   OR (NOT ("amount" IS NOT NULL))
   OR (NOT ("amount" >= CAST('0' AS DOUBLE)))
   OR (NOT (NOT isinf("amount")))
   OR (NOT (NOT isnan("amount")))
   OR (NOT (strlen("note") <= 100))
   OR (NOT ("email" IS NOT NULL))
   OR (NOT ((lower(email) = email)))
   OR (NOT (contains(email, '@')))
   OR (NOT ("ratio" IS NOT NULL))
   OR (NOT ((ratio >= 0)))
   OR (NOT ((ratio != 0.5)))
   OR (NOT ("ratio" <= CAST('1' AS FLOAT)))
   OR (NOT (NOT isnan("ratio")));

-- 3. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 4. count failures: read the counts
SELECT coalesce(count_if(NOT ("note_needs_amount" AND "id|nullability" AND "amount|nullability" AND "amount|inf" AND "email|nullability" AND "ratio|nullability" AND "ratio|check__0" AND "ratio|max" AND "ratio|nan")), 0), count(*) FROM "__tg_failed_1";

-- 5. count failures per rule (1 to 17): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "amount_is_rounded"), 0), coalesce(count_if(NOT "note_needs_amount"), 0), coalesce(count_if(NOT "primary_key"), 0), coalesce(count_if(NOT "id|nullability"), 0), coalesce(count_if(NOT "amount|nullability"), 0), coalesce(count_if(NOT "amount|min"), 0), coalesce(count_if(NOT "amount|inf"), 0), coalesce(count_if(NOT "amount|nan"), 0), coalesce(count_if(NOT "note|max_length"), 0), coalesce(count_if(NOT "email|nullability"), 0), coalesce(count_if(NOT "email|check__lowercase"), 0), coalesce(count_if(NOT "email|check__has_at"), 0), coalesce(count_if(NOT "ratio|nullability"), 0), coalesce(count_if(NOT "ratio|check__0"), 0), coalesce(count_if(NOT "ratio|check__1"), 0), coalesce(count_if(NOT "ratio|max"), 0), coalesce(count_if(NOT "ratio|nan"), 0) FROM "__tg_failed_1";

-- 6. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "amount_is_rounded" THEN 1 END, CASE WHEN NOT "note_needs_amount" THEN 2 END, CASE WHEN NOT "primary_key" THEN 3 END, CASE WHEN NOT "id|nullability" THEN 4 END, CASE WHEN NOT "amount|nullability" THEN 5 END, CASE WHEN NOT "amount|min" THEN 6 END, CASE WHEN NOT "amount|inf" THEN 7 END, CASE WHEN NOT "amount|nan" THEN 8 END, CASE WHEN NOT "note|max_length" THEN 9 END, CASE WHEN NOT "email|nullability" THEN 10 END, CASE WHEN NOT "email|check__lowercase" THEN 11 END, CASE WHEN NOT "email|check__has_at" THEN 12 END, CASE WHEN NOT "ratio|nullability" THEN 13 END, CASE WHEN NOT "ratio|check__0" THEN 14 END, CASE WHEN NOT "ratio|check__1" THEN 15 END, CASE WHEN NOT "ratio|max" THEN 16 END, CASE WHEN NOT "ratio|nan" THEN 17 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 7. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("id" := "id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END, "ratio" := "ratio")) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 8. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "id|nullability" THEN {'k': 4, 'v': coalesce(CAST(to_json("id") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nullability" THEN {'k': 5, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|min" THEN {'k': 6, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|inf" THEN {'k': 7, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nan" THEN {'k': 8, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "note|max_length" THEN {'k': 9, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "email|nullability" THEN {'k': 10, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "email|check__lowercase" THEN {'k': 11, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "email|check__has_at" THEN {'k': 12, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "ratio|nullability" THEN {'k': 13, 'v': coalesce(CAST(to_json("ratio") AS VARCHAR), 'null')} END, CASE WHEN NOT "ratio|check__0" THEN {'k': 14, 'v': coalesce(CAST(to_json("ratio") AS VARCHAR), 'null')} END, CASE WHEN NOT "ratio|check__1" THEN {'k': 15, 'v': coalesce(CAST(to_json("ratio") AS VARCHAR), 'null')} END, CASE WHEN NOT "ratio|max" THEN {'k': 16, 'v': coalesce(CAST(to_json("ratio") AS VARCHAR), 'null')} END, CASE WHEN NOT "ratio|nan" THEN {'k': 17, 'v': coalesce(CAST(to_json("ratio") AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 9. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "amount|inf" THEN 'dy_rule__amount__inf' END, CASE WHEN NOT "amount|min" THEN 'dy_rule__amount__min' END, CASE WHEN NOT "amount|nan" THEN 'dy_rule__amount__nan' END, CASE WHEN NOT "amount|nullability" THEN 'dy_rule__amount__nullability' END, CASE WHEN NOT "amount_is_rounded" THEN 'dy_rule__amount_is_rounded' END, CASE WHEN NOT "email|check__has_at" THEN 'dy_rule__email__check__has_at' END, CASE WHEN NOT "email|check__lowercase" THEN 'dy_rule__email__check__lowercase' END, CASE WHEN NOT "email|nullability" THEN 'dy_rule__email__nullability' END, CASE WHEN NOT "id|nullability" THEN 'dy_rule__id__nullability' END, CASE WHEN NOT "note|max_length" THEN 'dy_rule__note__max_length' END, CASE WHEN NOT "note_needs_amount" THEN 'dy_rule__note_needs_amount' END, CASE WHEN NOT "primary_key" THEN 'dy_rule__primary_key' END, CASE WHEN NOT "ratio|check__0" THEN 'dy_rule__ratio__check__0' END, CASE WHEN NOT "ratio|check__1" THEN 'dy_rule__ratio__check__1' END, CASE WHEN NOT "ratio|max" THEN 'dy_rule__ratio__max' END, CASE WHEN NOT "ratio|nan" THEN 'dy_rule__ratio__nan' END, CASE WHEN NOT "ratio|nullability" THEN 'dy_rule__ratio__nullability' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("note_needs_amount" AND "id|nullability" AND "amount|nullability" AND "amount|inf" AND "email|nullability" AND "ratio|nullability" AND "ratio|check__0" AND "ratio|max" AND "ratio|nan") GROUP BY ALL ORDER BY n DESC, rules;

-- 10. sample invalid rows: read the invalid rows' sample; when some row is invalid
SELECT CAST(to_json(struct_pack("id" := "id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END, "ratio" := "ratio")) AS VARCHAR) FROM "__tg_failed_1" WHERE NOT ("note_needs_amount" AND "id|nullability" AND "amount|nullability" AND "amount|inf" AND "email|nullability" AND "ratio|nullability" AND "ratio|check__0" AND "ratio|max" AND "ratio|nan") ORDER BY __tg_rid LIMIT 3;

-- 11. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("note_needs_amount" AND "id|nullability" AND "amount|nullability" AND "amount|inf" AND "email|nullability" AND "ratio|nullability" AND "ratio|check__0" AND "ratio|max" AND "ratio|nan")) GROUP BY block;

-- 12. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 13. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 14. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 15. sample valid rows: read the valid rows' sample; when no row is invalid, some row is valid
SELECT CAST(to_json(struct_pack("id" := "id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END, "ratio" := "ratio")) AS VARCHAR) FROM (SELECT s."id", s."amount", s."note", s."email", s."ratio" FROM (SELECT "id", "amount", "note", "email", "ratio", rowid AS __tg_rid FROM "main"."input") AS s LIMIT 3);

-- 16. sample valid rows: read the valid rows' sample; when some row is invalid, some row is valid
SELECT CAST(to_json(struct_pack("id" := "id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END, "ratio" := "ratio")) AS VARCHAR) FROM (SELECT s."id", s."amount", s."note", s."email", s."ratio" FROM (SELECT "id", "amount", "note", "email", "ratio", rowid AS __tg_rid FROM "main"."input") AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END) LIMIT 3);

-- 17. begin the write: write; when the outputs are written
BEGIN TRANSACTION;

-- 18. create the output's schema: write; when the outputs are written
CREATE SCHEMA IF NOT EXISTS "__tg_db1_0"."clean";

-- 19. find the older quarantine: write (read the quarantine's count); when the outputs are written, no invalid rows are written
SELECT count(*) FROM duckdb_tables() WHERE database_name = '__tg_db1_0' AND lower(schema_name) = lower('clean') AND lower(table_name) = lower('orders_quarantine');

-- 20. drop the quarantine kept before: write; when the outputs are written, no invalid rows are written, an older quarantine is there
DROP TABLE IF EXISTS "__tg_db1_0"."clean"."orders_quarantine_prev";

-- 21. keep the older quarantine: write; when the outputs are written, no invalid rows are written, an older quarantine is there
ALTER TABLE "__tg_db1_0"."clean"."orders_quarantine" RENAME TO "orders_quarantine_prev";

-- 22. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders" AS SELECT s."id", s."amount", s."note", s."email", s."ratio" FROM (SELECT "id", "amount", "note", "email", "ratio", rowid AS __tg_rid FROM "main"."input") AS s;

-- 23. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders" AS SELECT s."id", s."amount", s."note", s."email", s."ratio" FROM (SELECT "id", "amount", "note", "email", "ratio", rowid AS __tg_rid FROM "main"."input") AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END);

-- 24. write the invalid rows: write (the invalid rows); when the invalid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders_quarantine" AS SELECT "id", "amount", "note", "email", "ratio", CASE WHEN "amount_is_rounded" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount_is_rounded", CASE WHEN "note_needs_amount" THEN 'valid' ELSE 'invalid' END AS "dy_rule__note_needs_amount", CASE WHEN "primary_key" THEN 'valid' ELSE 'invalid' END AS "dy_rule__primary_key", CASE WHEN "id|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__id__nullability", CASE WHEN "amount|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__nullability", CASE WHEN "amount|min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__min", CASE WHEN "amount|inf" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__inf", CASE WHEN "amount|nan" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__nan", CASE WHEN "note|max_length" THEN 'valid' ELSE 'invalid' END AS "dy_rule__note__max_length", CASE WHEN "email|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__email__nullability", CASE WHEN "email|check__lowercase" THEN 'valid' ELSE 'invalid' END AS "dy_rule__email__check__lowercase", CASE WHEN "email|check__has_at" THEN 'valid' ELSE 'invalid' END AS "dy_rule__email__check__has_at", CASE WHEN "ratio|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__ratio__nullability", CASE WHEN "ratio|check__0" THEN 'valid' ELSE 'invalid' END AS "dy_rule__ratio__check__0", CASE WHEN "ratio|check__1" THEN 'valid' ELSE 'invalid' END AS "dy_rule__ratio__check__1", CASE WHEN "ratio|max" THEN 'valid' ELSE 'invalid' END AS "dy_rule__ratio__max", CASE WHEN "ratio|nan" THEN 'valid' ELSE 'invalid' END AS "dy_rule__ratio__nan" FROM "__tg_failed_1" WHERE NOT ("note_needs_amount" AND "id|nullability" AND "amount|nullability" AND "amount|inf" AND "email|nullability" AND "ratio|nullability" AND "ratio|check__0" AND "ratio|max" AND "ratio|nan") ORDER BY __tg_rid;

-- 25. remove the older quarantine: write; when no invalid rows are written
DROP TABLE IF EXISTS "__tg_db1_0"."clean"."orders_quarantine";

-- 26. commit the write: write (commit); when the outputs are written
COMMIT;

-- 27. undo the write: write (only when it fails); when the outputs are written
ROLLBACK;

-- 28. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 29. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 30. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 31. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 32. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 33. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
