-- 1. find the rows that may fail a rule: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) WHERE (NOT (regexp_matches("name", '^O''Brien\\d?''; DROP TABLE t; --$')))
UNION ALL
SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) WHERE (NOT (strlen("path") <= 260)) OR (NOT (regexp_matches("path", 'C:\\Users\\[^\\]+\\\.txt$')))
UNION ALL
SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) WHERE (NOT ("label" IN ('it''s', 'a;b', '"dq"', '''); DROP TABLE t; --', 'back\slash', '_')))
UNION ALL
SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) WHERE (NOT (("position"(memo, '''') = 0))) OR (NOT (((memo != '_') AND (memo != '"_"'))));

-- 2. index the failing rows: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspect_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM temp.main."__tg_suspects_1") GROUP BY block;

-- 3. index the failing rows: run
SET VARIABLE __tg_suspect_1_0 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 0);

-- 4. index the failing rows: run
SET VARIABLE __tg_suspect_1_1 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 1);

-- 5. index the failing rows: run
SET VARIABLE __tg_suspect_1_2 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 2);

-- 6. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT * FROM (SELECT "name", "path", "label", "mood", "memo", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS __tg_s WHERE CASE WHEN __tg_rid < 1048576 THEN CASE WHEN __tg_rid >= 0 AND __tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_suspect_1_0'), CAST(__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid < 2097152 THEN CASE WHEN __tg_rid >= 1048576 AND __tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_suspect_1_1'), CAST(__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid >= 2097152 AND __tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_suspect_1_2'), CAST(__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END OR ((NOT ("name" IS NOT NULL)) OR (NOT ("path" IS NOT NULL)) OR (NOT ("mood" IS NOT NULL)))
)
SELECT
  __tg_src."name", __tg_src."path", __tg_src."label", __tg_src."mood", __tg_src."memo", __tg_src.__tg_rid,
  COALESCE("name" IS NOT NULL, TRUE) AS "name|nullability",
  COALESCE(regexp_matches("name", '^O''Brien\\d?''; DROP TABLE t; --$'), TRUE) AS "name|regex",
  COALESCE("path" IS NOT NULL, TRUE) AS "path|nullability",
  COALESCE(strlen("path") <= 260, TRUE) AS "path|max_length",
  COALESCE(regexp_matches("path", 'C:\\Users\\[^\\]+\\\.txt$'), TRUE) AS "path|regex",
  COALESCE("label" IN ('it''s', 'a;b', '"dq"', '''); DROP TABLE t; --', 'back\slash', '_'), TRUE) AS "label|is_in",
  COALESCE("mood" IS NOT NULL, TRUE) AS "mood|nullability",
  COALESCE(("position"(memo, '''') = 0), TRUE) AS "memo|check__no_quote",
  COALESCE(((memo != '_') AND (memo != '"_"')), TRUE) AS "memo|check__not_underscore"
FROM __tg_src
WHERE (NOT ("name" IS NOT NULL))
   OR (NOT (regexp_matches("name", '^O''Brien\\d?''; DROP TABLE t; --$')))
   OR (NOT ("path" IS NOT NULL))
   OR (NOT (strlen("path") <= 260))
   OR (NOT (regexp_matches("path", 'C:\\Users\\[^\\]+\\\.txt$')))
   OR (NOT ("label" IN ('it''s', 'a;b', '"dq"', '''); DROP TABLE t; --', 'back\slash', '_')))
   OR (NOT ("mood" IS NOT NULL))
   OR (NOT (("position"(memo, '''') = 0)))
   OR (NOT (((memo != '_') AND (memo != '"_"'))));

-- 7. count failures: read the counts
SELECT coalesce(count_if(NOT ("name|nullability" AND "name|regex" AND "path|nullability" AND "path|max_length" AND "path|regex" AND "label|is_in" AND "mood|nullability" AND "memo|check__no_quote" AND "memo|check__not_underscore")), 0), count(*) FROM "__tg_failed_1";

-- 8. count failures per rule (1 to 9): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "name|nullability"), 0), coalesce(count_if(NOT "name|regex"), 0), coalesce(count_if(NOT "path|nullability"), 0), coalesce(count_if(NOT "path|max_length"), 0), coalesce(count_if(NOT "path|regex"), 0), coalesce(count_if(NOT "label|is_in"), 0), coalesce(count_if(NOT "mood|nullability"), 0), coalesce(count_if(NOT "memo|check__no_quote"), 0), coalesce(count_if(NOT "memo|check__not_underscore"), 0) FROM "__tg_failed_1";

-- 9. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "name|nullability" THEN 1 END, CASE WHEN NOT "name|regex" THEN 2 END, CASE WHEN NOT "path|nullability" THEN 3 END, CASE WHEN NOT "path|max_length" THEN 4 END, CASE WHEN NOT "path|regex" THEN 5 END, CASE WHEN NOT "label|is_in" THEN 6 END, CASE WHEN NOT "mood|nullability" THEN 7 END, CASE WHEN NOT "memo|check__no_quote" THEN 8 END, CASE WHEN NOT "memo|check__not_underscore" THEN 9 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 10. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("name" := CASE WHEN length(CAST("name" AS VARCHAR)) > 1024 THEN left(CAST("name" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("name" AS VARCHAR)) || ' bytes)' ELSE CAST("name" AS VARCHAR) END, "path" := CASE WHEN length(CAST("path" AS VARCHAR)) > 1024 THEN left(CAST("path" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("path" AS VARCHAR)) || ' bytes)' ELSE CAST("path" AS VARCHAR) END, "label" := CASE WHEN length(CAST("label" AS VARCHAR)) > 1024 THEN left(CAST("label" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("label" AS VARCHAR)) || ' bytes)' ELSE CAST("label" AS VARCHAR) END, "mood" := CASE WHEN length(CAST("mood" AS VARCHAR)) > 1024 THEN left(CAST("mood" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("mood" AS VARCHAR)) || ' bytes)' ELSE CAST("mood" AS VARCHAR) END, "memo" := CASE WHEN length(CAST("memo" AS VARCHAR)) > 1024 THEN left(CAST("memo" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("memo" AS VARCHAR)) || ' bytes)' ELSE CAST("memo" AS VARCHAR) END)) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 11. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "name|nullability" THEN {'k': 1, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("name" AS VARCHAR)) > 1024 THEN left(CAST("name" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("name" AS VARCHAR)) || ' bytes)' ELSE CAST("name" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "name|regex" THEN {'k': 2, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("name" AS VARCHAR)) > 1024 THEN left(CAST("name" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("name" AS VARCHAR)) || ' bytes)' ELSE CAST("name" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "path|nullability" THEN {'k': 3, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("path" AS VARCHAR)) > 1024 THEN left(CAST("path" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("path" AS VARCHAR)) || ' bytes)' ELSE CAST("path" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "path|max_length" THEN {'k': 4, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("path" AS VARCHAR)) > 1024 THEN left(CAST("path" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("path" AS VARCHAR)) || ' bytes)' ELSE CAST("path" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "path|regex" THEN {'k': 5, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("path" AS VARCHAR)) > 1024 THEN left(CAST("path" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("path" AS VARCHAR)) || ' bytes)' ELSE CAST("path" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "label|is_in" THEN {'k': 6, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("label" AS VARCHAR)) > 1024 THEN left(CAST("label" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("label" AS VARCHAR)) || ' bytes)' ELSE CAST("label" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "mood|nullability" THEN {'k': 7, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("mood" AS VARCHAR)) > 1024 THEN left(CAST("mood" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("mood" AS VARCHAR)) || ' bytes)' ELSE CAST("mood" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "memo|check__no_quote" THEN {'k': 8, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("memo" AS VARCHAR)) > 1024 THEN left(CAST("memo" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("memo" AS VARCHAR)) || ' bytes)' ELSE CAST("memo" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "memo|check__not_underscore" THEN {'k': 9, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("memo" AS VARCHAR)) > 1024 THEN left(CAST("memo" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("memo" AS VARCHAR)) || ' bytes)' ELSE CAST("memo" AS VARCHAR) END) AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 12. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "label|is_in" THEN 'dy_rule__label__is_in' END, CASE WHEN NOT "memo|check__no_quote" THEN 'dy_rule__memo__check__no_quote' END, CASE WHEN NOT "memo|check__not_underscore" THEN 'dy_rule__memo__check__not_underscore' END, CASE WHEN NOT "mood|nullability" THEN 'dy_rule__mood__nullability' END, CASE WHEN NOT "name|nullability" THEN 'dy_rule__name__nullability' END, CASE WHEN NOT "name|regex" THEN 'dy_rule__name__regex' END, CASE WHEN NOT "path|max_length" THEN 'dy_rule__path__max_length' END, CASE WHEN NOT "path|nullability" THEN 'dy_rule__path__nullability' END, CASE WHEN NOT "path|regex" THEN 'dy_rule__path__regex' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("name|nullability" AND "name|regex" AND "path|nullability" AND "path|max_length" AND "path|regex" AND "label|is_in" AND "mood|nullability" AND "memo|check__no_quote" AND "memo|check__not_underscore") GROUP BY ALL ORDER BY n DESC, rules;

-- 13. index the invalid rows: run; when some row is invalid
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("name|nullability" AND "name|regex" AND "path|nullability" AND "path|max_length" AND "path|regex" AND "label|is_in" AND "mood|nullability" AND "memo|check__no_quote" AND "memo|check__not_underscore")) GROUP BY block;

-- 14. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 15. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 16. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 17. read the filtered rows: hand the invalid rows to the caller
SELECT "name", "path", "label", "mood", "memo", CASE WHEN "name|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__name__nullability", CASE WHEN "name|regex" THEN 'valid' ELSE 'invalid' END AS "dy_rule__name__regex", CASE WHEN "path|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__path__nullability", CASE WHEN "path|max_length" THEN 'valid' ELSE 'invalid' END AS "dy_rule__path__max_length", CASE WHEN "path|regex" THEN 'valid' ELSE 'invalid' END AS "dy_rule__path__regex", CASE WHEN "label|is_in" THEN 'valid' ELSE 'invalid' END AS "dy_rule__label__is_in", CASE WHEN "mood|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__mood__nullability", CASE WHEN "memo|check__no_quote" THEN 'valid' ELSE 'invalid' END AS "dy_rule__memo__check__no_quote", CASE WHEN "memo|check__not_underscore" THEN 'valid' ELSE 'invalid' END AS "dy_rule__memo__check__not_underscore" FROM "__tg_failed_1" WHERE NOT ("name|nullability" AND "name|regex" AND "path|nullability" AND "path|max_length" AND "path|regex" AND "label|is_in" AND "mood|nullability" AND "memo|check__no_quote" AND "memo|check__not_underscore") ORDER BY __tg_rid;

-- 18. read the filtered rows: hand the valid rows to the caller; when no row is invalid
SELECT s."name", s."path", s."label", s."mood", s."memo" FROM (SELECT "name", "path", "label", "mood", "memo", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS s;

-- 19. read the filtered rows: hand the valid rows to the caller; when some row is invalid
SELECT s."name", s."path", s."label", s."mood", s."memo" FROM (SELECT "name", "path", "label", "mood", "memo", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END);

-- 20. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 21. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspects_1";

-- 22. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspect_blocks_1";

-- 23. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 24. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_0;

-- 25. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_1;

-- 26. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_2;

-- 27. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 28. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 29. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
