-- 1. fit the perfect hash to the rows: run
SET SESSION perfect_ht_threshold = 20;

-- 2. give the key aggregates their threads: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 3. give the key aggregates their threads: raise the threads, unless raised
SET threads = 3;

-- 4. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "status" AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "status"
  HAVING (count(*) > 1);

-- 5. give the threads back: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 6. give the threads back: restore the threads ($1, the count read), if the last run aggregating keys
SET threads = $1;

-- 7. find the rows that may fail a rule: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) WHERE (NOT (strlen("code") >= 3)) OR (NOT (strlen("code") <= 12)) OR (NOT (regexp_matches("code", '^[A-Z]{3}-\d+$')))
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) WHERE (NOT ("country" IN ('DE', 'FR', 'US')))
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys0_1" AS __tg_k0 ON "status" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0;

-- 8. index the failing rows: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspect_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM temp.main."__tg_suspects_1") GROUP BY block;

-- 9. index the failing rows: run
SET VARIABLE __tg_suspect_1_0 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 0);

-- 10. index the failing rows: run
SET VARIABLE __tg_suspect_1_1 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 1);

-- 11. index the failing rows: run
SET VARIABLE __tg_suspect_1_2 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 2);

-- 12. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT * FROM (SELECT "code", "country", "payload", "status", "blob", "extra", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS __tg_s WHERE CASE WHEN __tg_rid < 1048576 THEN CASE WHEN __tg_rid >= 0 AND __tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_suspect_1_0'), CAST(__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid < 2097152 THEN CASE WHEN __tg_rid >= 1048576 AND __tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_suspect_1_1'), CAST(__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid >= 2097152 AND __tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_suspect_1_2'), CAST(__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END OR ((NOT ("code" IS NOT NULL)) OR (NOT ("payload" IS NOT NULL)) OR (NOT ((octet_length(payload) <= 1024))) OR (NOT ("status" IS NOT NULL)) OR (NOT ((extra IS NOT NULL))))
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys0_1"
)
SELECT
  __tg_src."code", __tg_src."country", __tg_src."payload", __tg_src."status", __tg_src."blob", __tg_src."extra", __tg_src.__tg_rid,
  COALESCE("code" IS NOT NULL, TRUE) AS "code|nullability",
  COALESCE(strlen("code") >= 3, TRUE) AS "code|min_length",
  COALESCE(strlen("code") <= 12, TRUE) AS "code|max_length",
  COALESCE(regexp_matches("code", '^[A-Z]{3}-\d+$'), TRUE) AS "code|regex",
  COALESCE("country" IN ('DE', 'FR', 'US'), TRUE) AS "country|is_in",
  COALESCE("payload" IS NOT NULL, TRUE) AS "payload|nullability",
  COALESCE((octet_length(payload) <= 1024), TRUE) AS "payload|check",
  COALESCE("status" IS NOT NULL, TRUE) AS "status|nullability",
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "status|unique",
  COALESCE((extra IS NOT NULL), TRUE) AS "extra|check"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."status" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
WHERE (NOT ("code" IS NOT NULL))
   OR (NOT (strlen("code") >= 3))
   OR (NOT (strlen("code") <= 12))
   OR (NOT (regexp_matches("code", '^[A-Z]{3}-\d+$')))
   OR (NOT ("country" IN ('DE', 'FR', 'US')))
   OR (NOT ("payload" IS NOT NULL))
   OR (NOT ((octet_length(payload) <= 1024)))
   OR (NOT ("status" IS NOT NULL))
   OR NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR (NOT ((extra IS NOT NULL)));

-- 13. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 14. count failures: read the counts
SELECT coalesce(count_if(NOT ("code|nullability" AND "code|min_length" AND "code|max_length" AND "code|regex" AND "country|is_in" AND "payload|nullability" AND "payload|check" AND "status|nullability" AND "status|unique" AND "extra|check")), 0), count(*) FROM "__tg_failed_1";

-- 15. count failures per rule (1 to 10): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "code|nullability"), 0), coalesce(count_if(NOT "code|min_length"), 0), coalesce(count_if(NOT "code|max_length"), 0), coalesce(count_if(NOT "code|regex"), 0), coalesce(count_if(NOT "country|is_in"), 0), coalesce(count_if(NOT "payload|nullability"), 0), coalesce(count_if(NOT "payload|check"), 0), coalesce(count_if(NOT "status|nullability"), 0), coalesce(count_if(NOT "status|unique"), 0), coalesce(count_if(NOT "extra|check"), 0) FROM "__tg_failed_1";

-- 16. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "code|nullability" THEN 1 END, CASE WHEN NOT "code|min_length" THEN 2 END, CASE WHEN NOT "code|max_length" THEN 3 END, CASE WHEN NOT "code|regex" THEN 4 END, CASE WHEN NOT "country|is_in" THEN 5 END, CASE WHEN NOT "payload|nullability" THEN 6 END, CASE WHEN NOT "payload|check" THEN 7 END, CASE WHEN NOT "status|nullability" THEN 8 END, CASE WHEN NOT "status|unique" THEN 9 END, CASE WHEN NOT "extra|check" THEN 10 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 17. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("code" := CASE WHEN length(CAST("code" AS VARCHAR)) > 1024 THEN left(CAST("code" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("code" AS VARCHAR)) || ' bytes)' ELSE CAST("code" AS VARCHAR) END, "country" := CASE WHEN length(CAST("country" AS VARCHAR)) > 1024 THEN left(CAST("country" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("country" AS VARCHAR)) || ' bytes)' ELSE CAST("country" AS VARCHAR) END, "payload" := CASE WHEN strlen(CAST(to_json("payload") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("payload") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("payload") AS VARCHAR)) || ' bytes)') ELSE to_json("payload") END, "status" := CASE WHEN length(CAST("status" AS VARCHAR)) > 1024 THEN left(CAST("status" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("status" AS VARCHAR)) || ' bytes)' ELSE CAST("status" AS VARCHAR) END, "blob" := CASE WHEN strlen(CAST(to_json("blob") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("blob") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("blob") AS VARCHAR)) || ' bytes)') ELSE to_json("blob") END, "extra" := CASE WHEN strlen(CAST(to_json("extra") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("extra") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("extra") AS VARCHAR)) || ' bytes)') ELSE to_json("extra") END)) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 18. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "code|nullability" THEN {'k': 1, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("code" AS VARCHAR)) > 1024 THEN left(CAST("code" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("code" AS VARCHAR)) || ' bytes)' ELSE CAST("code" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "code|min_length" THEN {'k': 2, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("code" AS VARCHAR)) > 1024 THEN left(CAST("code" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("code" AS VARCHAR)) || ' bytes)' ELSE CAST("code" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "code|max_length" THEN {'k': 3, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("code" AS VARCHAR)) > 1024 THEN left(CAST("code" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("code" AS VARCHAR)) || ' bytes)' ELSE CAST("code" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "code|regex" THEN {'k': 4, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("code" AS VARCHAR)) > 1024 THEN left(CAST("code" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("code" AS VARCHAR)) || ' bytes)' ELSE CAST("code" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "country|is_in" THEN {'k': 5, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("country" AS VARCHAR)) > 1024 THEN left(CAST("country" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("country" AS VARCHAR)) || ' bytes)' ELSE CAST("country" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "payload|nullability" THEN {'k': 6, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("payload") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("payload") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("payload") AS VARCHAR)) || ' bytes)') ELSE to_json("payload") END) AS VARCHAR), 'null')} END, CASE WHEN NOT "payload|check" THEN {'k': 7, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("payload") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("payload") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("payload") AS VARCHAR)) || ' bytes)') ELSE to_json("payload") END) AS VARCHAR), 'null')} END, CASE WHEN NOT "status|nullability" THEN {'k': 8, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("status" AS VARCHAR)) > 1024 THEN left(CAST("status" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("status" AS VARCHAR)) || ' bytes)' ELSE CAST("status" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "status|unique" THEN {'k': 9, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("status" AS VARCHAR)) > 1024 THEN left(CAST("status" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("status" AS VARCHAR)) || ' bytes)' ELSE CAST("status" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "extra|check" THEN {'k': 10, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("extra") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("extra") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("extra") AS VARCHAR)) || ' bytes)') ELSE to_json("extra") END) AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 19. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "code|max_length" THEN 'dy_rule__code__max_length' END, CASE WHEN NOT "code|min_length" THEN 'dy_rule__code__min_length' END, CASE WHEN NOT "code|nullability" THEN 'dy_rule__code__nullability' END, CASE WHEN NOT "code|regex" THEN 'dy_rule__code__regex' END, CASE WHEN NOT "country|is_in" THEN 'dy_rule__country__is_in' END, CASE WHEN NOT "extra|check" THEN 'dy_rule__extra__check' END, CASE WHEN NOT "payload|check" THEN 'dy_rule__payload__check' END, CASE WHEN NOT "payload|nullability" THEN 'dy_rule__payload__nullability' END, CASE WHEN NOT "status|nullability" THEN 'dy_rule__status__nullability' END, CASE WHEN NOT "status|unique" THEN 'dy_rule__status__unique' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("code|nullability" AND "code|min_length" AND "code|max_length" AND "code|regex" AND "country|is_in" AND "payload|nullability" AND "payload|check" AND "status|nullability" AND "status|unique" AND "extra|check") GROUP BY ALL ORDER BY n DESC, rules;

-- 20. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("code|nullability" AND "code|min_length" AND "code|max_length" AND "code|regex" AND "country|is_in" AND "payload|nullability" AND "payload|check" AND "status|nullability" AND "status|unique" AND "extra|check")) GROUP BY block;

-- 21. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 22. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 23. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 24. size the valid rows' row groups: read the valid rows' row group size; when some row is invalid, the valid rows are written
WITH g(start, n) AS (VALUES (0, 1000000), (1000000, 1000000), (2000000, 500000)),
valid AS (
	SELECT g.n - coalesce(c.bad, 0) AS rows FROM g LEFT JOIN (
		SELECT g.start, count(*) AS bad FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("code|nullability" AND "code|min_length" AND "code|max_length" AND "code|regex" AND "country|is_in" AND "payload|nullability" AND "payload|check" AND "status|nullability" AND "status|unique" AND "extra|check")) AS b ASOF JOIN g ON b.__tg_rid >= g.start GROUP BY g.start
	) AS c USING (start) WHERE g.start < 1000001),
taken AS (
	SELECT a.rows, count(*) AS batches FROM (SELECT DISTINCT rows FROM valid WHERE rows BETWEEN 122880 / 2 AND 122880) AS a
	JOIN valid AS b ON abs(a.rows - b.rows) < 2048 GROUP BY a.rows)
SELECT rows, batches, (SELECT count(*) FROM valid WHERE abs(rows - 122880) < 2048) FROM taken ORDER BY batches DESC, rows DESC LIMIT 1;

-- 25. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
COPY (SELECT s."code", s."country", s."payload", s."status", s."blob", s."extra" FROM (SELECT "code", "country", "payload", "status", "blob", "extra", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 26. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, a row group size is set
COPY (SELECT s."code", s."country", s."payload", s."status", s."blob", s."extra" FROM (SELECT "code", "country", "payload", "status", "blob", "extra", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet, ROW_GROUP_SIZE $1);

-- 27. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, no row group size is set
COPY (SELECT s."code", s."country", s."payload", s."status", s."blob", s."extra" FROM (SELECT "code", "country", "payload", "status", "blob", "extra", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 28. write the invalid rows: write (the invalid rows); when the invalid rows are written
COPY (SELECT "code", "country", "payload", "status", "blob", "extra", CASE WHEN "code|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__code__nullability", CASE WHEN "code|min_length" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__code__min_length", CASE WHEN "code|max_length" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__code__max_length", CASE WHEN "code|regex" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__code__regex", CASE WHEN "country|is_in" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__country__is_in", CASE WHEN "payload|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__payload__nullability", CASE WHEN "payload|check" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__payload__check", CASE WHEN "status|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__status__nullability", CASE WHEN "status|unique" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__status__unique", CASE WHEN "extra|check" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__extra__check" FROM "__tg_failed_1" WHERE NOT ("code|nullability" AND "code|min_length" AND "code|max_length" AND "code|regex" AND "country|is_in" AND "payload|nullability" AND "payload|check" AND "status|nullability" AND "status|unique" AND "extra|check") ORDER BY __tg_rid) TO 'out/.orders.parquet.tablegate-1-quarantine.tmp' (FORMAT parquet);

-- 29. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 30. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 31. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspects_1";

-- 32. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspect_blocks_1";

-- 33. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 34. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_0;

-- 35. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_1;

-- 36. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_2;

-- 37. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 38. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 39. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
