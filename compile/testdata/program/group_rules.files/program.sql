-- 1. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "customer_id" AS __tg_k0_0, (NOT COALESCE((sum(amount) < 1000000), TRUE)) AS __tg_m0, (NOT COALESCE((count(DISTINCT currency) = 1), TRUE)) AS __tg_m1
  FROM read_parquet('in/*.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "customer_id"
  HAVING (NOT COALESCE((sum(amount) < 1000000), TRUE)) OR (NOT COALESCE((count(DISTINCT currency) = 1), TRUE));

-- 2. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys1_1" AS SELECT "payment_id" AS __tg_k1_0, (NOT COALESCE((count_star() <= 1), TRUE)) AS __tg_m0, (count(*) > 1) AS __tg_m1
  FROM read_parquet('in/*.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "payment_id"
  HAVING (NOT COALESCE((count_star() <= 1), TRUE)) OR (count(*) > 1);

-- 3. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys2_1" AS SELECT (NOT COALESCE((sum(amount) IS NOT NULL), TRUE)) AS __tg_m0, (NOT COALESCE((sum(amount) > 0), TRUE)) AS __tg_m1
  FROM read_parquet('in/*.parquet', can_have_nan = true) AS __tg_src
  HAVING (NOT COALESCE((sum(amount) IS NOT NULL), TRUE)) OR (NOT COALESCE((sum(amount) > 0), TRUE));

-- 4. find the rows that may fail a rule: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys0_1" AS __tg_k0 ON "customer_id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
UNION ALL
SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys1_1" AS __tg_k1 ON "payment_id" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
UNION ALL
SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys2_1" AS __tg_k2 ON TRUE;

-- 5. index the failing rows: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspect_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM temp.main."__tg_suspects_1") GROUP BY block;

-- 6. index the failing rows: run
SET VARIABLE __tg_suspect_1_0 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 0);

-- 7. index the failing rows: run
SET VARIABLE __tg_suspect_1_1 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 1);

-- 8. index the failing rows: run
SET VARIABLE __tg_suspect_1_2 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 2);

-- 9. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT * FROM (SELECT "payment_id", "customer_id", "amount", "currency", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS __tg_s WHERE CASE WHEN __tg_rid < 1048576 THEN CASE WHEN __tg_rid >= 0 AND __tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_suspect_1_0'), CAST(__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid < 2097152 THEN CASE WHEN __tg_rid >= 1048576 AND __tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_suspect_1_1'), CAST(__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid >= 2097152 AND __tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_suspect_1_2'), CAST(__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END OR ((NOT ((round((amount * 100)) = (amount * 100)))) OR (NOT ("payment_id" IS NOT NULL)) OR (NOT ("amount" IS NOT NULL)) OR (NOT (NOT isinf("amount"))) OR (NOT (NOT isnan("amount"))) OR (NOT ("currency" IS NOT NULL)))
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

-- 10. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 11. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 12. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys2_1";

-- 13. count failures: read the counts
SELECT coalesce(count_if(NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability")), 0), count(*) FROM "__tg_failed_1";

-- 14. count failures per rule (1 to 12): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "customer_total_bounded"), 0), coalesce(count_if(NOT "customer_single_currency"), 0), coalesce(count_if(NOT "few_payments_per_id"), 0), coalesce(count_if(NOT "table_not_empty_total"), 0), coalesce(count_if(NOT "amount_is_rounded"), 0), coalesce(count_if(NOT "primary_key"), 0), coalesce(count_if(NOT "payment_id|nullability"), 0), coalesce(count_if(NOT "amount|nullability"), 0), coalesce(count_if(NOT "amount|check__total_positive"), 0), coalesce(count_if(NOT "amount|inf"), 0), coalesce(count_if(NOT "amount|nan"), 0), coalesce(count_if(NOT "currency|nullability"), 0) FROM "__tg_failed_1";

-- 15. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "customer_total_bounded" THEN 1 END, CASE WHEN NOT "customer_single_currency" THEN 2 END, CASE WHEN NOT "few_payments_per_id" THEN 3 END, CASE WHEN NOT "table_not_empty_total" THEN 4 END, CASE WHEN NOT "amount_is_rounded" THEN 5 END, CASE WHEN NOT "primary_key" THEN 6 END, CASE WHEN NOT "payment_id|nullability" THEN 7 END, CASE WHEN NOT "amount|nullability" THEN 8 END, CASE WHEN NOT "amount|check__total_positive" THEN 9 END, CASE WHEN NOT "amount|inf" THEN 10 END, CASE WHEN NOT "amount|nan" THEN 11 END, CASE WHEN NOT "currency|nullability" THEN 12 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 16. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("payment_id" := "payment_id", "customer_id" := "customer_id", "amount" := "amount", "currency" := CASE WHEN length(CAST("currency" AS VARCHAR)) > 1024 THEN left(CAST("currency" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("currency" AS VARCHAR)) || ' bytes)' ELSE CAST("currency" AS VARCHAR) END)) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 17. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "payment_id|nullability" THEN {'k': 7, 'v': coalesce(CAST(to_json("payment_id") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nullability" THEN {'k': 8, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|check__total_positive" THEN {'k': 9, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|inf" THEN {'k': 10, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nan" THEN {'k': 11, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "currency|nullability" THEN {'k': 12, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("currency" AS VARCHAR)) > 1024 THEN left(CAST("currency" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("currency" AS VARCHAR)) || ' bytes)' ELSE CAST("currency" AS VARCHAR) END) AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 18. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "amount|check__total_positive" THEN 'dy_rule__amount__check__total_positive' END, CASE WHEN NOT "amount|inf" THEN 'dy_rule__amount__inf' END, CASE WHEN NOT "amount|nan" THEN 'dy_rule__amount__nan' END, CASE WHEN NOT "amount|nullability" THEN 'dy_rule__amount__nullability' END, CASE WHEN NOT "amount_is_rounded" THEN 'dy_rule__amount_is_rounded' END, CASE WHEN NOT "currency|nullability" THEN 'dy_rule__currency__nullability' END, CASE WHEN NOT "customer_single_currency" THEN 'dy_rule__customer_single_currency' END, CASE WHEN NOT "customer_total_bounded" THEN 'dy_rule__customer_total_bounded' END, CASE WHEN NOT "few_payments_per_id" THEN 'dy_rule__few_payments_per_id' END, CASE WHEN NOT "payment_id|nullability" THEN 'dy_rule__payment_id__nullability' END, CASE WHEN NOT "primary_key" THEN 'dy_rule__primary_key' END, CASE WHEN NOT "table_not_empty_total" THEN 'dy_rule__table_not_empty_total' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability") GROUP BY ALL ORDER BY n DESC, rules;

-- 19. index the invalid rows: run; when some row is invalid
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability")) GROUP BY block;

-- 20. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 21. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 22. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 23. read the filtered rows: hand the invalid rows to the caller
SELECT "payment_id", "customer_id", "amount", "currency", CASE WHEN "customer_total_bounded" THEN 'valid' ELSE 'invalid' END AS "dy_rule__customer_total_bounded", CASE WHEN "customer_single_currency" THEN 'valid' ELSE 'invalid' END AS "dy_rule__customer_single_currency", CASE WHEN "few_payments_per_id" THEN 'valid' ELSE 'invalid' END AS "dy_rule__few_payments_per_id", CASE WHEN "table_not_empty_total" THEN 'valid' ELSE 'invalid' END AS "dy_rule__table_not_empty_total", CASE WHEN "amount_is_rounded" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount_is_rounded", CASE WHEN "primary_key" THEN 'valid' ELSE 'invalid' END AS "dy_rule__primary_key", CASE WHEN "payment_id|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__payment_id__nullability", CASE WHEN "amount|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__nullability", CASE WHEN "amount|check__total_positive" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__check__total_positive", CASE WHEN "amount|inf" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__inf", CASE WHEN "amount|nan" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__nan", CASE WHEN "currency|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__currency__nullability" FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "few_payments_per_id" AND "table_not_empty_total" AND "amount_is_rounded" AND "primary_key" AND "payment_id|nullability" AND "amount|nullability" AND "amount|check__total_positive" AND "amount|inf" AND "amount|nan" AND "currency|nullability") ORDER BY __tg_rid;

-- 24. read the filtered rows: hand the valid rows to the caller; when no row is invalid
SELECT s."payment_id", s."customer_id", s."amount", s."currency" FROM (SELECT "payment_id", "customer_id", "amount", "currency", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS s;

-- 25. read the filtered rows: hand the valid rows to the caller; when some row is invalid
SELECT s."payment_id", s."customer_id", s."amount", s."currency" FROM (SELECT "payment_id", "customer_id", "amount", "currency", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END);

-- 26. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 27. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 28. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 29. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys2_1";

-- 30. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspects_1";

-- 31. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspect_blocks_1";

-- 32. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 33. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_0;

-- 34. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_1;

-- 35. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_2;

-- 36. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 37. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 38. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
