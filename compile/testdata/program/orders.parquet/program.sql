-- 1. fit the perfect hash to the rows: run
SET SESSION perfect_ht_threshold = 20;

-- 2. give the key aggregates their threads: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 3. give the key aggregates their threads: raise the threads, unless raised
SET threads = 3;

-- 4. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "customer_id" AS __tg_k0_0, (NOT COALESCE((sum(amount) < 1000000), TRUE)) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "customer_id"
  HAVING (NOT COALESCE((sum(amount) < 1000000), TRUE));

-- 5. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys1_1" AS SELECT "order_id" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "order_id"
  HAVING (count(*) > 1);

-- 6. give the threads back: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 7. give the threads back: restore the threads ($1, the count read), if the last run aggregating keys
SET threads = $1;

-- 8. find the rows that may fail a rule: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) WHERE (NOT (regexp_matches("order_id", '^ORD-\d{4}$')))
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) WHERE (NOT (strlen("note") <= 100))
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) WHERE (NOT ((lower(email) = email)))
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys0_1" AS __tg_k0 ON "customer_id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys1_1" AS __tg_k1 ON "order_id" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0;

-- 9. index the failing rows: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspect_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM temp.main."__tg_suspects_1") GROUP BY block;

-- 10. index the failing rows: run
SET VARIABLE __tg_suspect_1_0 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 0);

-- 11. index the failing rows: run
SET VARIABLE __tg_suspect_1_1 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 1);

-- 12. index the failing rows: run
SET VARIABLE __tg_suspect_1_2 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 2);

-- 13. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT * FROM (SELECT "order_id", "customer_id", "amount", "note", "email", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS __tg_s WHERE CASE WHEN __tg_rid < 1048576 THEN CASE WHEN __tg_rid >= 0 AND __tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_suspect_1_0'), CAST(__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid < 2097152 THEN CASE WHEN __tg_rid >= 1048576 AND __tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_suspect_1_1'), CAST(__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid >= 2097152 AND __tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_suspect_1_2'), CAST(__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END OR ((NOT (("trim"(order_id) != ''))) OR (NOT ((round((amount * 100)) = (amount * 100)))) OR (NOT (((note IS NULL) OR (amount > 0)))) OR (NOT ("order_id" IS NOT NULL)) OR (NOT ("customer_id" IS NOT NULL)) OR (NOT ("amount" IS NOT NULL)) OR (NOT ("amount" >= CAST('0' AS DOUBLE))) OR (NOT (NOT isinf("amount"))) OR (NOT (NOT isnan("amount"))) OR (NOT ("email" IS NOT NULL)))
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

-- 14. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 15. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 16. count failures: read the counts
SELECT coalesce(count_if(NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase")), 0), count(*) FROM "__tg_failed_1";

-- 17. count failures per rule (1 to 15): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "order_id_not_blank"), 0), coalesce(count_if(NOT "amount_is_rounded"), 0), coalesce(count_if(NOT "customer_total_bounded"), 0), coalesce(count_if(NOT "paid_orders_have_amount"), 0), coalesce(count_if(NOT "primary_key"), 0), coalesce(count_if(NOT "order_id|nullability"), 0), coalesce(count_if(NOT "order_id|regex"), 0), coalesce(count_if(NOT "customer_id|nullability"), 0), coalesce(count_if(NOT "amount|nullability"), 0), coalesce(count_if(NOT "amount|min"), 0), coalesce(count_if(NOT "amount|inf"), 0), coalesce(count_if(NOT "amount|nan"), 0), coalesce(count_if(NOT "note|max_length"), 0), coalesce(count_if(NOT "email|nullability"), 0), coalesce(count_if(NOT "email|check__lowercase"), 0) FROM "__tg_failed_1";

-- 18. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "order_id_not_blank" THEN 1 END, CASE WHEN NOT "amount_is_rounded" THEN 2 END, CASE WHEN NOT "customer_total_bounded" THEN 3 END, CASE WHEN NOT "paid_orders_have_amount" THEN 4 END, CASE WHEN NOT "primary_key" THEN 5 END, CASE WHEN NOT "order_id|nullability" THEN 6 END, CASE WHEN NOT "order_id|regex" THEN 7 END, CASE WHEN NOT "customer_id|nullability" THEN 8 END, CASE WHEN NOT "amount|nullability" THEN 9 END, CASE WHEN NOT "amount|min" THEN 10 END, CASE WHEN NOT "amount|inf" THEN 11 END, CASE WHEN NOT "amount|nan" THEN 12 END, CASE WHEN NOT "note|max_length" THEN 13 END, CASE WHEN NOT "email|nullability" THEN 14 END, CASE WHEN NOT "email|check__lowercase" THEN 15 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 19. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("order_id" := CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END, "customer_id" := "customer_id", "amount" := "amount", "note" := CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END, "email" := CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END)) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 20. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "order_id|nullability" THEN {'k': 6, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "order_id|regex" THEN {'k': 7, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "customer_id|nullability" THEN {'k': 8, 'v': coalesce(CAST(to_json("customer_id") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nullability" THEN {'k': 9, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|min" THEN {'k': 10, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|inf" THEN {'k': 11, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "amount|nan" THEN {'k': 12, 'v': coalesce(CAST(to_json("amount") AS VARCHAR), 'null')} END, CASE WHEN NOT "note|max_length" THEN {'k': 13, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("note" AS VARCHAR)) > 1024 THEN left(CAST("note" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("note" AS VARCHAR)) || ' bytes)' ELSE CAST("note" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "email|nullability" THEN {'k': 14, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "email|check__lowercase" THEN {'k': 15, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("email" AS VARCHAR)) > 1024 THEN left(CAST("email" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("email" AS VARCHAR)) || ' bytes)' ELSE CAST("email" AS VARCHAR) END) AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 21. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "amount|inf" THEN 'dy_rule__amount__inf' END, CASE WHEN NOT "amount|min" THEN 'dy_rule__amount__min' END, CASE WHEN NOT "amount|nan" THEN 'dy_rule__amount__nan' END, CASE WHEN NOT "amount|nullability" THEN 'dy_rule__amount__nullability' END, CASE WHEN NOT "amount_is_rounded" THEN 'dy_rule__amount_is_rounded' END, CASE WHEN NOT "customer_id|nullability" THEN 'dy_rule__customer_id__nullability' END, CASE WHEN NOT "customer_total_bounded" THEN 'dy_rule__customer_total_bounded' END, CASE WHEN NOT "email|check__lowercase" THEN 'dy_rule__email__check__lowercase' END, CASE WHEN NOT "email|nullability" THEN 'dy_rule__email__nullability' END, CASE WHEN NOT "note|max_length" THEN 'dy_rule__note__max_length' END, CASE WHEN NOT "order_id|nullability" THEN 'dy_rule__order_id__nullability' END, CASE WHEN NOT "order_id|regex" THEN 'dy_rule__order_id__regex' END, CASE WHEN NOT "order_id_not_blank" THEN 'dy_rule__order_id_not_blank' END, CASE WHEN NOT "paid_orders_have_amount" THEN 'dy_rule__paid_orders_have_amount' END, CASE WHEN NOT "primary_key" THEN 'dy_rule__primary_key' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase") GROUP BY ALL ORDER BY n DESC, rules;

-- 22. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase")) GROUP BY block;

-- 23. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 24. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 25. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 26. size the valid rows' row groups: read the valid rows' row group size; when some row is invalid, the valid rows are written
WITH g(start, n) AS (VALUES (0, 1000000), (1000000, 1000000), (2000000, 500000)),
valid AS (
	SELECT g.n - coalesce(c.bad, 0) AS rows FROM g LEFT JOIN (
		SELECT g.start, count(*) AS bad FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase")) AS b ASOF JOIN g ON b.__tg_rid >= g.start GROUP BY g.start
	) AS c USING (start) WHERE g.start < 1000001),
taken AS (
	SELECT a.rows, count(*) AS batches FROM (SELECT DISTINCT rows FROM valid WHERE rows BETWEEN 122880 / 2 AND 122880) AS a
	JOIN valid AS b ON abs(a.rows - b.rows) < 2048 GROUP BY a.rows)
SELECT rows, batches, (SELECT count(*) FROM valid WHERE abs(rows - 122880) < 2048) FROM taken ORDER BY batches DESC, rows DESC LIMIT 1;

-- 27. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
COPY (SELECT s."order_id", s."customer_id", s."amount", s."note", s."email" FROM (SELECT "order_id", "customer_id", "amount", "note", "email", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 28. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, a row group size is set
COPY (SELECT s."order_id", s."customer_id", s."amount", s."note", s."email" FROM (SELECT "order_id", "customer_id", "amount", "note", "email", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet, ROW_GROUP_SIZE $1);

-- 29. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, no row group size is set
COPY (SELECT s."order_id", s."customer_id", s."amount", s."note", s."email" FROM (SELECT "order_id", "customer_id", "amount", "note", "email", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 30. write the invalid rows: write (the invalid rows); when the invalid rows are written
COPY (SELECT "order_id", "customer_id", "amount", "note", "email", CASE WHEN "order_id_not_blank" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__order_id_not_blank", CASE WHEN "amount_is_rounded" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__amount_is_rounded", CASE WHEN "customer_total_bounded" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__customer_total_bounded", CASE WHEN "paid_orders_have_amount" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__paid_orders_have_amount", CASE WHEN "primary_key" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__primary_key", CASE WHEN "order_id|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__order_id__nullability", CASE WHEN "order_id|regex" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__order_id__regex", CASE WHEN "customer_id|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__customer_id__nullability", CASE WHEN "amount|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__amount__nullability", CASE WHEN "amount|min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__amount__min", CASE WHEN "amount|inf" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__amount__inf", CASE WHEN "amount|nan" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__amount__nan", CASE WHEN "note|max_length" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__note__max_length", CASE WHEN "email|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__email__nullability", CASE WHEN "email|check__lowercase" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__email__check__lowercase" FROM "__tg_failed_1" WHERE NOT ("customer_total_bounded" AND "paid_orders_have_amount" AND "primary_key" AND "order_id|nullability" AND "customer_id|nullability" AND "amount|nullability" AND "amount|min" AND "amount|inf" AND "amount|nan" AND "email|nullability" AND "email|check__lowercase") ORDER BY __tg_rid) TO 'out/.orders.parquet.tablegate-1-quarantine.tmp' (FORMAT parquet);

-- 31. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 32. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 33. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 34. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspects_1";

-- 35. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspect_blocks_1";

-- 36. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 37. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_0;

-- 38. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_1;

-- 39. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_2;

-- 40. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 41. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 42. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
