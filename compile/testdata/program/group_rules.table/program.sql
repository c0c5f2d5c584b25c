-- 1. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "customer_id" AS __tg_k0_0, (NOT COALESCE((sum(amount) < 1000000), TRUE)) AS __tg_m0, (NOT COALESCE((count(DISTINCT currency) = 1), TRUE)) AS __tg_m1
  FROM "main"."input" AS __tg_src
  GROUP BY "customer_id"
  HAVING (NOT COALESCE((sum(amount) < 1000000), TRUE)) OR (NOT COALESCE((count(DISTINCT currency) = 1), TRUE));

-- 2. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys1_1" AS SELECT "payment_id" AS __tg_k1_0, (NOT COALESCE((count_star() <= 1), TRUE)) AS __tg_m0, (count(*) > 1) AS __tg_m1
  FROM "main"."input" AS __tg_src
  GROUP BY "payment_id"
  HAVING (NOT COALESCE((count_star() <= 1), TRUE)) OR (count(*) > 1);

-- 3. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys2_1" AS SELECT (NOT COALESCE((sum(amount) IS NOT NULL), TRUE)) AS __tg_m0, (NOT COALESCE((sum(amount) > 0), TRUE)) AS __tg_m1
  FROM "main"."input" AS __tg_src
  HAVING (NOT COALESCE((sum(amount) IS NOT NULL), TRUE)) OR (NOT COALESCE((sum(amount) > 0), TRUE));

-- 4. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT "payment_id", "customer_id", "amount", "currency", rowid AS __tg_rid FROM "main"."input"
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys0_1"
),
__tg_k1 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys1_1"
),
__tg_k2 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys2_1"
)
SELECT
  __tg_src."payment_id", __tg_src."customer_id", __tg_src."amount", __tg_src."currency", __tg_src.__tg_rid,
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "customer_total_bounded",
  COALESCE(NOT __tg_k0.__tg_m1, TRUE) AS "customer_single_currency",
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS "few_payments_per_id",
  COALESCE(NOT __tg_k2.__tg_m0, TRUE) AS "table_not_empty_total",
  COALESCE((round((amount * 100)) = (amount * 100)), TRUE) AS "amount_is_rounded",
  COALESCE(NOT __tg_k1.__tg_m1, TRUE) AS "primary_key",
  COALESCE("payment_id" IS NOT NULL, TRUE) AS "payment_id|nullability",
  COALESCE("amount" IS NOT NULL, TRUE) AS "amount|nullability",
  COALESCE(NOT __tg_k2.__tg_m1, TRUE) AS "amount|check__total_positive",
  COALESCE(NOT isinf("amount"), TRUE) AS "amount|inf",
  COALESCE(NOT isnan("amount"), TRUE) AS "amount|nan",
  COALESCE("currency" IS NOT NULL, TRUE) AS "currency|nullability"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."customer_id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
LEFT JOIN __tg_k1 ON __tg_src."payment_id" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
LEFT JOIN __tg_k2 ON TRUE
WHERE NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR NOT COALESCE(NOT __tg_k0.__tg_m1, TRUE)
   OR NOT COALESCE(NOT __tg_k1.__tg_m0, TRUE)
   OR NOT COALESCE(NOT __tg_k2.__tg_m0, TRUE)
   OR (NOT ((round((amount * 100)) = (amount * 100))))
   OR NOT COALESCE(NOT __tg_k1.__tg_m1, TRUE)
   OR (NOT ("payment_id" IS NOT NULL))
   OR (NOT ("amount" IS NOT NULL))
   OR NOT COALESCE(NOT __tg_k2.__tg_m1, TRUE)
   OR (NOT (NOT isinf("amount")))
   OR (NOT (NOT isnan("amount")))
   OR (NOT ("currency" IS NOT NULL));

-- 5. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 6. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 7. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys2_1";

-- 8. count failures: read the counts
SELECT coalesce(count_if(NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability")), 0), count(*) FROM "__tg_failed_1";

-- 9. count failures per rule (1 to 12): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "customer_total_bounded"), 0), coalesce(count_if(NOT "customer_single_currency"), 0), coalesce(count_if(NOT "few_payments_per_id"), 0), coalesce(count_if(NOT "table_not_empty_total"), 0), coalesce(count_if(NOT "amount_is_rounded"), 0), coalesce(count_if(NOT "primary_key"), 0), coalesce(count_if(NOT "payment_id|nullability"), 0), coalesce(count_if(NOT "amount|nullability"), 0), coalesce(count_if(NOT "amount|check__total_positive"), 0), coalesce(count_if(NOT "amount|inf"), 0), coalesce(count_if(NOT "amount|nan"), 0), coalesce(count_if(NOT "currency|nullability"), 0) FROM "__tg_failed_1";

-- 10. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "customer_total_bounded" THEN 1 END, CASE WHEN NOT "customer_single_currency" THEN 2 END, CASE WHEN NOT "few_payments_per_id" THEN 3 END, CASE WHEN NOT "table_not_empty_total" THEN 4 END, CASE WHEN NOT "amount_is_rounded" THEN 5 END, CASE WHEN NOT "primary_key" THEN 6 END, CASE WHEN NOT "payment_id|nullability" THEN 7 END, CASE WHEN NOT "amount|nullability" THEN 8 END, CASE WHEN NOT "amount|check__total_positive" THEN 9 END, CASE WHEN NOT "amount|inf" THEN 10 END, CASE WHEN NOT "amount|nan" THEN 11 END, CASE WHEN NOT "currency|nullability" THEN 12 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 11. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("payment_id" := "payment_id", "customer_id" := "customer_id", "amount" := "amount", "currency" := CASE WHEN length(CAST("currency" AS VARCHAR)) > 1024 THEN left(CAST("currency" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("currency" AS VARCHAR)) || ' bytes)' ELSE CAST("currency" AS VARCHAR) END)) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 12. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "payment_id|nullability" THEN {'k': 7, 'v': coalesce(CAST(to_json("payment_id") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nullability" THEN {'k': 8, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|check__total_positive" THEN {'k': 9, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|inf" THEN {'k': 10, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nan" THEN {'k': 11, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "currency|nullability" THEN {'k': 12, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("currency" AS VARCHAR)) > 1024 THEN left(CAST("currency" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("currency" AS VARCHAR)) || ' bytes)' ELSE CAST("currency" AS VARCHAR) END) AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 13. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "amount|check__total_positive" THEN 'dy_rule__amount__check__total_positive' END, CASE WHEN NOT "amount|inf" THEN 'dy_rule__amount__inf' END, CASE WHEN NOT "amount|nan" THEN 'dy_rule__amount__nan' END, CASE WHEN NOT "amount|nullability" THEN 'dy_rule__amount__nullability' END, CASE WHEN NOT "amount_is_rounded" THEN 'dy_rule__amount_is_rounded' END, CASE WHEN NOT "currency|nullability" THEN 'dy_rule__currency__nullability' END, CASE WHEN NOT "customer_single_currency" THEN 'dy_rule__customer_single_currency' END, CASE WHEN NOT "customer_total_bounded" THEN 'dy_rule__customer_total_bounded' END, CASE WHEN NOT "few_payments_per_id" THEN 'dy_rule__few_payments_per_id' END, CASE WHEN NOT "payment_id|nullability" THEN 'dy_rule__payment_id__nullability' END, CASE WHEN NOT "primary_key" THEN 'dy_rule__primary_key' END, CASE WHEN NOT "table_not_empty_total" THEN 'dy_rule__table_not_empty_total' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability") GROUP BY ALL ORDER BY n DESC, rules;

-- 14. sample invalid rows: read the invalid rows' sample; when some row is invalid
SELECT CAST(to_json(struct_pack("payment_id" := "payment_id", "customer_id" := "customer_id", "amount" := "amount", "currency" := CASE WHEN length(CAST("currency" AS VARCHAR)) > 1024 THEN left(CAST("currency" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("currency" AS VARCHAR)) || ' bytes)' ELSE CAST("currency" AS VARCHAR) END)) AS VARCHAR) FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability") ORDER BY __tg_rid LIMIT 3;

-- 15. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability")) GROUP BY block;

-- 16. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 17. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 18. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 19. sample valid rows: read the valid rows' sample; when no row is invalid, some row is valid
SELECT CAST(to_json(struct_pack("payment_id" := "payment_id", "customer_id" := "customer_id", "amount" := "amount", "currency" := CASE WHEN length(CAST("currency" AS VARCHAR)) > 1024 THEN left(CAST("currency" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("currency" AS VARCHAR)) || ' bytes)' ELSE CAST("currency" AS VARCHAR) END)) AS VARCHAR) FROM (SELECT s."payment_id", s."customer_id", s."amount", s."currency" FROM (SELECT "payment_id", "customer_id", "amount", "currency", rowid AS __tg_rid FROM "main"."input") AS s LIMIT 3);

-- 20. sample valid rows: read the valid rows' sample; when some row is invalid, some row is valid
SELECT CAST(to_json(struct_pack("payment_id" := "payment_id", "customer_id" := "customer_id", "amount" := "amount", "currency" := CASE WHEN length(CAST("currency" AS VARCHAR)) > 1024 THEN left(CAST("currency" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("currency" AS VARCHAR)) || ' bytes)' ELSE CAST("currency" AS VARCHAR) END)) AS VARCHAR) FROM (SELECT s."payment_id", s."customer_id", s."amount", s."currency" FROM (SELECT "payment_id", "customer_id", "amount", "currency", rowid AS __tg_rid FROM "main"."input") AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END) LIMIT 3);

-- 21. begin the write: write; when the outputs are written
BEGIN TRANSACTION;

-- 22. create the output's schema: write; when the outputs are written
CREATE SCHEMA IF NOT EXISTS "__tg_db1_0"."clean";

-- 23. find the older quarantine: write (read the quarantine's count); when the outputs are written, no invalid rows are written
SELECT count(*) FROM duckdb_tables() WHERE database_name = '__tg_db1_0' AND lower(schema_name) = lower('clean') AND lower(table_name) = lower('orders_quarantine');

-- 24. drop the quarantine kept before: write; when the outputs are written, no invalid rows are written, an older quarantine is there
DROP TABLE IF EXISTS "__tg_db1_0"."clean"."orders_quarantine_prev";

-- 25. keep the older quarantine: write; when the outputs are written, no invalid rows are written, an older quarantine is there
ALTER TABLE "__tg_db1_0"."clean"."orders_quarantine" RENAME TO "orders_quarantine_prev";

-- 26. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders" AS SELECT s."payment_id", s."customer_id", s."amount", s."currency" FROM (SELECT "payment_id", "customer_id", "amount", "currency", rowid AS __tg_rid FROM "main"."input") AS s;

-- 27. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders" AS SELECT s."payment_id", s."customer_id", s."amount", s."currency" FROM (SELECT "payment_id", "customer_id", "amount", "currency", rowid AS __tg_rid FROM "main"."input") AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END);

-- 28. write the invalid rows: write (the invalid rows); when the invalid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders_quarantine" AS SELECT "payment_id", "customer_id", "amount", "currency", CASE WHEN "customer_total_bounded" THEN 'valid' ELSE 'invalid' END AS "dy_rule__customer_total_bounded", CASE WHEN "customer_single_currency" THEN 'valid' ELSE 'invalid' END AS "dy_rule__customer_single_currency", CASE WHEN "few_payments_per_id" THEN 'valid' ELSE 'invalid' END AS "dy_rule__few_payments_per_id", CASE WHEN "table_not_empty_total" THEN 'valid' ELSE 'invalid' END AS "dy_rule__table_not_empty_total", CASE WHEN "amount_is_rounded" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount_is_rounded", CASE WHEN "primary_key" THEN 'valid' ELSE 'invalid' END AS "dy_rule__primary_key", CASE WHEN "payment_id|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__payment_id__nullability", CASE WHEN "amount|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__nullability", CASE WHEN "amount|check__total_positive" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__check__total_positive", CASE WHEN "amount|inf" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__inf", CASE WHEN "amount|nan" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__nan", CASE WHEN "currency|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__currency__nullability" FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability") ORDER BY __tg_rid;

-- 29. remove the older quarantine: write; when no invalid rows are written
DROP TABLE IF EXISTS "__tg_db1_0"."clean"."orders_quarantine";

-- 30. commit the write: write (commit); when the outputs are written
COMMIT;

-- 31. undo the write: write (only when it fails); when the outputs are written
ROLLBACK;

-- 32. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 33. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 34. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 35. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys2_1";

-- 36. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 37. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 38. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 39. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
