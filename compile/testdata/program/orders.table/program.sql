-- 1. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "customer_id" AS __tg_k0_0, (NOT COALESCE((sum(amount) < 1000000), TRUE)) AS __tg_m0
  FROM "main"."input" AS __tg_src
  GROUP BY "customer_id"
  HAVING (NOT COALESCE((sum(amount) < 1000000), TRUE));

-- 2. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys1_1" AS SELECT "order_id" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM "main"."input" AS __tg_src
  GROUP BY "order_id"
  HAVING (count(*) > 1);

-- 3. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT "order_id", "customer_id", "amount", "note", "email", rowid AS __tg_rid FROM "main"."input"
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys0_1"
),
__tg_k1 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys1_1"
)
SELECT
  __tg_src."order_id", __tg_src."customer_id", __tg_src."amount", __tg_src."note", __tg_src."email", __tg_src.__tg_rid,
  COALESCE(("trim"(order_id) != ''), TRUE) AS "order_id_not_blank",
  COALESCE((round((amount * 100)) = (amount * 100)), TRUE) AS "amount_is_rounded",
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "customer_total_bounded",
  COALESCE(((note IS NULL) OR (amount > 0)), TRUE) AS "paid_orders_have_amount",
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS "primary_key",
  COALESCE("order_id" IS NOT NULL, TRUE) AS "order_id|nullability",
  COALESCE(regexp_matches("order_id", '^ORD-\d{4}$'), TRUE) AS "order_id|regex",
  COALESCE("customer_id" IS NOT NULL, TRUE) AS "customer_id|nullability",
  COALESCE("amount" IS NOT NULL, TRUE) AS "amount|nullability",
  COALESCE("amount" >= CAST('0' AS DOUBLE), TRUE) AS "amount|min",
  COALESCE(NOT isinf("amount"), TRUE) AS "amount|inf",
  COALESCE(NOT isnan("amount"), TRUE) AS "amount|nan",
  COALESCE(strlen("note") <= 100, TRUE) AS "note|max_length",
  COALESCE("email" IS NOT NULL, TRUE) AS "email|nullability",
  COALESCE((lower(email) = email), TRUE) AS "email|check__lowercase"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."customer_id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
LEFT JOIN __tg_k1 ON __tg_src."order_id" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
WHERE (NOT (("trim"(order_id) != '')))
   OR (NOT ((round((amount * 100)) = (amount * 100))))
   OR NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR (NOT (((note IS NULL) OR (amount > 0))))
   OR NOT COALESCE(NOT __tg_k1.__tg_m0, TRUE)
   OR (NOT ("order_id" IS NOT NULL))
   OR (NOT (regexp_matches("order_id", '^ORD-\d{4}$')))
   OR (NOT ("customer_id" IS NOT NULL))
   OR (NOT ("amount" IS NOT NULL))
   OR (NOT ("amount" >= CAST('0' AS DOUBLE)))
   OR (NOT (NOT isinf("amount")))
   OR (NOT (NOT isnan("amount")))
   OR (NOT (strlen("note") <= 100))
   OR (NOT ("email" IS NOT NULL))
   OR (NOT ((lower(email) = email)));

-- 4. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 5. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 6. count failures: read the counts
SELECT coalesce(count_if(NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase")), 0), count(*) FROM "__tg_failed_1";

-- 7. count failures per rule (1 to 15): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "order_id_not_blank"), 0), coalesce(count_if(NOT "amount_is_rounded"), 0), coalesce(count_if(NOT "customer_total_bounded"), 0), coalesce(count_if(NOT "paid_orders_have_amount"), 0), coalesce(count_if(NOT "primary_key"), 0), coalesce(count_if(NOT "order_id|nullability"), 0), coalesce(count_if(NOT "order_id|regex"), 0), coalesce(count_if(NOT "customer_id|nullability"), 0), coalesce(count_if(NOT "amount|nullability"), 0), coalesce(count_if(NOT "amount|min"), 0), coalesce(count_if(NOT "amount|inf"), 0), coalesce(count_if(NOT "amount|nan"), 0), coalesce(count_if(NOT "note|max_length"), 0), coalesce(count_if(NOT "email|nullability"), 0), coalesce(count_if(NOT "email|check__lowercase"), 0) FROM "__tg_failed_1";

-- 8. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "order_id_not_blank" THEN 1 END, CASE WHEN NOT "amount_is_rounded" THEN 2 END, CASE WHEN NOT "customer_total_bounded" THEN 3 END, CASE WHEN NOT "paid_orders_have_amount" THEN 4 END, CASE WHEN NOT "primary_key" THEN 5 END, CASE WHEN NOT "order_id|nullability" THEN 6 END, CASE WHEN NOT "order_id|regex" THEN 7 END, CASE WHEN NOT "customer_id|nullability" THEN 8 END, CASE WHEN NOT "amount|nullability" THEN 9 END, CASE WHEN NOT "amount|min" THEN 10 END, CASE WHEN NOT "amount|inf" THEN 11 END, CASE WHEN NOT "amount|nan" THEN 12 END, CASE WHEN NOT "note|max_length" THEN 13 END, CASE WHEN NOT "email|nullability" THEN 14 END, CASE WHEN NOT "email|check__lowercase" THEN 15 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 9. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("order_id" := CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END, "customer_id" := "customer_id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END)) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 10. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "order_id|nullability" THEN {'k': 6, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "order_id|regex" THEN {'k': 7, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "customer_id|nullability" THEN {'k': 8, 'v': coalesce(CAST(to_json("customer_id") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nullability" THEN {'k': 9, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|min" THEN {'k': 10, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|inf" THEN {'k': 11, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nan" THEN {'k': 12, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "note|max_length" THEN {'k': 13, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "email|nullability" THEN {'k': 14, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "email|check__lowercase" THEN {'k': 15, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END) AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 11. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "amount|inf" THEN 'dy_rule__amount__inf' END, CASE WHEN NOT "amount|min" THEN 'dy_rule__amount__min' END, CASE WHEN NOT "amount|nan" THEN 'dy_rule__amount__nan' END, CASE WHEN NOT "amount|nullability" THEN 'dy_rule__amount__nullability' END, CASE WHEN NOT "amount_is_rounded" THEN 'dy_rule__amount_is_rounded' END, CASE WHEN NOT "customer_id|nullability" THEN 'dy_rule__customer_id__nullability' END, CASE WHEN NOT "customer_total_bounded" THEN 'dy_rule__customer_total_bounded' END, CASE WHEN NOT "email|check__lowercase" THEN 'dy_rule__email__check__lowercase' END, CASE WHEN NOT "email|nullability" THEN 'dy_rule__email__nullability' END, CASE WHEN NOT "note|max_length" THEN 'dy_rule__note__max_length' END, CASE WHEN NOT "order_id|nullability" THEN 'dy_rule__order_id__nullability' END, CASE WHEN NOT "order_id|regex" THEN 'dy_rule__order_id__regex' END, CASE WHEN NOT "order_id_not_blank" THEN 'dy_rule__order_id_not_blank' END, CASE WHEN NOT "paid_orders_have_amount" THEN 'dy_rule__paid_orders_have_amount' END, CASE WHEN NOT "primary_key" THEN 'dy_rule__primary_key' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase") GROUP BY ALL ORDER BY n DESC, rules;

-- 12. sample invalid rows: read the invalid rows' sample; when some row is invalid
SELECT CAST(to_json(struct_pack("order_id" := CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END, "customer_id" := "customer_id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END)) AS VARCHAR) FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase") ORDER BY __tg_rid LIMIT 3;

-- 13. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase")) GROUP BY block;

-- 14. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 15. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 16. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 17. sample valid rows: read the valid rows' sample; when no row is invalid, some row is valid
SELECT CAST(to_json(struct_pack("order_id" := CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END, "customer_id" := "customer_id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END)) AS VARCHAR) FROM (SELECT s."order_id", s."customer_id", s."amount", s."note", s."email" FROM (SELECT "order_id", "customer_id", "amount", "note", "email", rowid AS __tg_rid FROM "main"."input") AS s LIMIT 3);

-- 18. sample valid rows: read the valid rows' sample; when some row is invalid, some row is valid
SELECT CAST(to_json(struct_pack("order_id" := CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END, "customer_id" := "customer_id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END)) AS VARCHAR) FROM (SELECT s."order_id", s."customer_id", s."amount", s."note", s."email" FROM (SELECT "order_id", "customer_id", "amount", "note", "email", rowid AS __tg_rid FROM "main"."input") AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END) LIMIT 3);

-- 19. begin the write: write; when the outputs are written
BEGIN TRANSACTION;

-- 20. create the output's schema: write; when the outputs are written
CREATE SCHEMA IF NOT EXISTS "__tg_db1_0"."clean";

-- 21. find the older quarantine: write (read the quarantine's count); when the outputs are written, no invalid rows are written
SELECT count(*) FROM duckdb_tables() WHERE database_name = '__tg_db1_0' AND lower(schema_name) = lower('clean') AND lower(table_name) = lower('orders_quarantine');

-- 22. drop the quarantine kept before: write; when the outputs are written, no invalid rows are written, an older quarantine is there
DROP TABLE IF EXISTS "__tg_db1_0"."clean"."orders_quarantine_prev";

-- 23. keep the older quarantine: write; when the outputs are written, no invalid rows are written, an older quarantine is there
ALTER TABLE "__tg_db1_0"."clean"."orders_quarantine" RENAME TO "orders_quarantine_prev";

-- 24. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders" AS SELECT s."order_id", s."customer_id", s."amount", s."note", s."email" FROM (SELECT "order_id", "customer_id", "amount", "note", "email", rowid AS __tg_rid FROM "main"."input") AS s;

-- 25. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders" AS SELECT s."order_id", s."customer_id", s."amount", s."note", s."email" FROM (SELECT "order_id", "customer_id", "amount", "note", "email", rowid AS __tg_rid FROM "main"."input") AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END);

-- 26. write the invalid rows: write (the invalid rows); when the invalid rows are written
CREATE OR REPLACE TABLE "__tg_db1_0"."clean"."orders_quarantine" AS SELECT "order_id", "customer_id", "amount", "note", "email", CASE WHEN "order_id_not_blank" THEN 'valid' ELSE 'invalid' END AS "dy_rule__order_id_not_blank", CASE WHEN "amount_is_rounded" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount_is_rounded", CASE WHEN "customer_total_bounded" THEN 'valid' ELSE 'invalid' END AS "dy_rule__customer_total_bounded", CASE WHEN "paid_orders_have_amount" THEN 'valid' ELSE 'invalid' END AS "dy_rule__paid_orders_have_amount", CASE WHEN "primary_key" THEN 'valid' ELSE 'invalid' END AS "dy_rule__primary_key", CASE WHEN "order_id|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__order_id__nullability", CASE WHEN "order_id|regex" THEN 'valid' ELSE 'invalid' END AS "dy_rule__order_id__regex", CASE WHEN "customer_id|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__customer_id__nullability", CASE WHEN "amount|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__nullability", CASE WHEN "amount|min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__min", CASE WHEN "amount|inf" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__inf", CASE WHEN "amount|nan" THEN 'valid' ELSE 'invalid' END AS "dy_rule__amount__nan", CASE WHEN "note|max_length" THEN 'valid' ELSE 'invalid' END AS "dy_rule__note__max_length", CASE WHEN "email|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__email__nullability", CASE WHEN "email|check__lowercase" THEN 'valid' ELSE 'invalid' END AS "dy_rule__email__check__lowercase" FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase") ORDER BY __tg_rid;

-- 27. remove the older quarantine: write; when no invalid rows are written
DROP TABLE IF EXISTS "__tg_db1_0"."clean"."orders_quarantine";

-- 28. commit the write: write (commit); when the outputs are written
COMMIT;

-- 29. undo the write: write (only when it fails); when the outputs are written
ROLLBACK;

-- 30. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 31. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 32. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 33. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 34. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 35. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 36. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
