-- 1. fit the perfect hash to the rows: run
SET SESSION perfect_ht_threshold = 20;

-- 2. give the key aggregates their threads: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 3. give the key aggregates their threads: raise the threads, unless raised
SET threads = 3;

-- 4. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "order_id" AS __tg_k0_0, "line_no" AS __tg_k0_1, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "order_id", "line_no"
  HAVING (count(*) > 1);

-- 5. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys1_1" AS SELECT "sku" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "sku"
  HAVING (count(*) > 1);

-- 6. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys2_1" AS SELECT "ean" AS __tg_k2_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "ean"
  HAVING (count(*) > 1);

-- 7. give the threads back: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 8. give the threads back: restore the threads ($1, the count read), if the last run aggregating keys
SET threads = $1;

-- 9. find the rows that may fail a rule: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys0_1" AS __tg_k0 ON "order_id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0 AND "line_no" IS NOT DISTINCT FROM __tg_k0.__tg_k0_1
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys1_1" AS __tg_k1 ON "sku" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys2_1" AS __tg_k2 ON "ean" IS NOT DISTINCT FROM __tg_k2.__tg_k2_0;

-- 10. index the failing rows: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspect_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM temp.main."__tg_suspects_1") GROUP BY block;

-- 11. index the failing rows: run
SET VARIABLE __tg_suspect_1_0 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 0);

-- 12. index the failing rows: run
SET VARIABLE __tg_suspect_1_1 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 1);

-- 13. index the failing rows: run
SET VARIABLE __tg_suspect_1_2 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 2);

-- 14. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT * FROM (SELECT "order_id", "line_no", "sku", "ean", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS __tg_s WHERE CASE WHEN __tg_rid < 1048576 THEN CASE WHEN __tg_rid >= 0 AND __tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_suspect_1_0'), CAST(__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid < 2097152 THEN CASE WHEN __tg_rid >= 1048576 AND __tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_suspect_1_1'), CAST(__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid >= 2097152 AND __tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_suspect_1_2'), CAST(__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END OR ((NOT ("order_id" IS NOT NULL)) OR (NOT ("line_no" IS NOT NULL)) OR (NOT ("line_no" >= 1)) OR (NOT ("ean" IS NOT NULL)))
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
  __tg_src."order_id", __tg_src."line_no", __tg_src."sku", __tg_src."ean", __tg_src.__tg_rid,
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "primary_key",
  COALESCE("order_id" IS NOT NULL, TRUE) AS "order_id|nullability",
  COALESCE("line_no" IS NOT NULL, TRUE) AS "line_no|nullability",
  COALESCE("line_no" >= 1, TRUE) AS "line_no|min",
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS "sku|unique",
  COALESCE("ean" IS NOT NULL, TRUE) AS "ean|nullability",
  COALESCE(NOT __tg_k2.__tg_m0, TRUE) AS "ean|unique"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."order_id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0 AND __tg_src."line_no" IS NOT DISTINCT FROM __tg_k0.__tg_k0_1
LEFT JOIN __tg_k1 ON __tg_src."sku" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
LEFT JOIN __tg_k2 ON __tg_src."ean" IS NOT DISTINCT FROM __tg_k2.__tg_k2_0
WHERE NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR (NOT ("order_id" IS NOT NULL))
   OR (NOT ("line_no" IS NOT NULL))
   OR (NOT ("line_no" >= 1))
   OR NOT COALESCE(NOT __tg_k1.__tg_m0, TRUE)
   OR (NOT ("ean" IS NOT NULL))
   OR NOT COALESCE(NOT __tg_k2.__tg_m0, TRUE);

-- 15. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 16. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 17. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys2_1";

-- 18. count failures: read the counts
SELECT coalesce(count_if(NOT ("order_id|nullability" AND "line_no|nullability" AND "line_no|min" AND "sku|unique" AND "ean|nullability" AND "ean|unique")), 0), count(*) FROM "__tg_failed_1";

-- 19. count failures per rule (1 to 7): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "primary_key"), 0), coalesce(count_if(NOT "order_id|nullability"), 0), coalesce(count_if(NOT "line_no|nullability"), 0), coalesce(count_if(NOT "line_no|min"), 0), coalesce(count_if(NOT "sku|unique"), 0), coalesce(count_if(NOT "ean|nullability"), 0), coalesce(count_if(NOT "ean|unique"), 0) FROM "__tg_failed_1";

-- 20. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "primary_key" THEN 1 END, CASE WHEN NOT "order_id|nullability" THEN 2 END, CASE WHEN NOT "line_no|nullability" THEN 3 END, CASE WHEN NOT "line_no|min" THEN 4 END, CASE WHEN NOT "sku|unique" THEN 5 END, CASE WHEN NOT "ean|nullability" THEN 6 END, CASE WHEN NOT "ean|unique" THEN 7 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 21. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("order_id" := CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END, "line_no" := "line_no", "sku" := CASE WHEN length(CAST("sku" AS VARCHAR)) > 1024 THEN left(CAST("sku" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("sku" AS VARCHAR)) || ' bytes)' ELSE CAST("sku" AS VARCHAR) END, "ean" := "ean")) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 22. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "order_id|nullability" THEN {'k': 2, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("order_id" AS VARCHAR)) > 1024 THEN left(CAST("order_id" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order_id" AS VARCHAR)) || ' bytes)' ELSE CAST("order_id" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "line_no|nullability" THEN {'k': 3, 'v': coalesce(CAST(to_json("line_no") AS VARCHAR), 'null')} END, CASE WHEN NOT "line_no|min" THEN {'k': 4, 'v': coalesce(CAST(to_json("line_no") AS VARCHAR), 'null')} END, CASE WHEN NOT "sku|unique" THEN {'k': 5, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("sku" AS VARCHAR)) > 1024 THEN left(CAST("sku" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("sku" AS VARCHAR)) || ' bytes)' ELSE CAST("sku" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "ean|nullability" THEN {'k': 6, 'v': coalesce(CAST(to_json("ean") AS VARCHAR), 'null')} END, CASE WHEN NOT "ean|unique" THEN {'k': 7, 'v': coalesce(CAST(to_json("ean") AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 23. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "ean|nullability" THEN 'dy_rule__ean__nullability' END, CASE WHEN NOT "ean|unique" THEN 'dy_rule__ean__unique' END, CASE WHEN NOT "line_no|min" THEN 'dy_rule__line_no__min' END, CASE WHEN NOT "line_no|nullability" THEN 'dy_rule__line_no__nullability' END, CASE WHEN NOT "order_id|nullability" THEN 'dy_rule__order_id__nullability' END, CASE WHEN NOT "primary_key" THEN 'dy_rule__primary_key' END, CASE WHEN NOT "sku|unique" THEN 'dy_rule__sku__unique' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("order_id|nullability" AND "line_no|nullability" AND "line_no|min" AND "sku|unique" AND "ean|nullability" AND "ean|unique") GROUP BY ALL ORDER BY n DESC, rules;

-- 24. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("order_id|nullability" AND "line_no|nullability" AND "line_no|min" AND "sku|unique" AND "ean|nullability" AND "ean|unique")) GROUP BY block;

-- 25. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 26. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 27. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 28. size the valid rows' row groups: read the valid rows' row group size; when some row is invalid, the valid rows are written
WITH g(start, n) AS (VALUES (0, 1000000), (1000000, 1000000), (2000000, 500000)),
valid AS (
	SELECT g.n - coalesce(c.bad, 0) AS rows FROM g LEFT JOIN (
		SELECT g.start, count(*) AS bad FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("order_id|nullability" AND "line_no|nullability" AND "line_no|min" AND "sku|unique" AND "ean|nullability" AND "ean|unique")) AS b ASOF JOIN g ON b.__tg_rid >= g.start GROUP BY g.start
	) AS c USING (start) WHERE g.start < 1000001),
taken AS (
	SELECT a.rows, count(*) AS batches FROM (SELECT DISTINCT rows FROM valid WHERE rows BETWEEN 122880 / 2 AND 122880) AS a
	JOIN valid AS b ON abs(a.rows - b.rows) < 2048 GROUP BY a.rows)
SELECT rows, batches, (SELECT count(*) FROM valid WHERE abs(rows - 122880) < 2048) FROM taken ORDER BY batches DESC, rows DESC LIMIT 1;

-- 29. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
COPY (SELECT s."order_id", s."line_no", s."sku", s."ean" FROM (SELECT "order_id", "line_no", "sku", "ean", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 30. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, a row group size is set
COPY (SELECT s."order_id", s."line_no", s."sku", s."ean" FROM (SELECT "order_id", "line_no", "sku", "ean", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet, ROW_GROUP_SIZE $1);

-- 31. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, no row group size is set
COPY (SELECT s."order_id", s."line_no", s."sku", s."ean" FROM (SELECT "order_id", "line_no", "sku", "ean", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 32. write the invalid rows: write (the invalid rows); when the invalid rows are written
COPY (SELECT "order_id", "line_no", "sku", "ean", CASE WHEN "primary_key" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__primary_key", CASE WHEN "order_id|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__order_id__nullability", CASE WHEN "line_no|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__line_no__nullability", CASE WHEN "line_no|min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__line_no__min", CASE WHEN "sku|unique" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__sku__unique", CASE WHEN "ean|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ean__nullability", CASE WHEN "ean|unique" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ean__unique" FROM "__tg_failed_1" WHERE NOT ("order_id|nullability" AND "line_no|nullability" AND "line_no|min" AND "sku|unique" AND "ean|nullability" AND "ean|unique") ORDER BY __tg_rid) TO 'out/.orders.parquet.tablegate-1-quarantine.tmp' (FORMAT parquet);

-- 33. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 34. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 35. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 36. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys2_1";

-- 37. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspects_1";

-- 38. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspect_blocks_1";

-- 39. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 40. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_0;

-- 41. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_1;

-- 42. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_2;

-- 43. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 44. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 45. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
