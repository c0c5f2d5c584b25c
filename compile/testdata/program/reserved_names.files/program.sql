-- 1. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "CustomerID" AS __tg_k0_0, "group" AS __tg_k0_1, (NOT COALESCE((count_star() < 10), TRUE)) AS __tg_m0
  FROM read_parquet('in/*.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "CustomerID", "group"
  HAVING (NOT COALESCE((count_star() < 10), TRUE));

-- 2. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys1_1" AS SELECT "select" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in/*.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "select"
  HAVING (count(*) > 1);

-- 3. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys2_1" AS SELECT "group" AS __tg_k2_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in/*.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "group"
  HAVING (count(*) > 1);

-- 4. find the rows that may fail a rule: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) WHERE (NOT (regexp_matches("order", '^o')))
UNION ALL
SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys0_1" AS __tg_k0 ON "CustomerID" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0 AND "group" IS NOT DISTINCT FROM __tg_k0.__tg_k0_1
UNION ALL
SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys1_1" AS __tg_k1 ON "select" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
UNION ALL
SELECT (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys2_1" AS __tg_k2 ON "group" IS NOT DISTINCT FROM __tg_k2.__tg_k2_0;

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
  SELECT * FROM (SELECT "select", "order", "from", "group", "CustomerID", "user", "limit", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS __tg_s WHERE CASE WHEN __tg_rid < 1048576 THEN CASE WHEN __tg_rid >= 0 AND __tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_suspect_1_0'), CAST(__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid < 2097152 THEN CASE WHEN __tg_rid >= 1048576 AND __tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_suspect_1_1'), CAST(__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid >= 2097152 AND __tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_suspect_1_2'), CAST(__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END OR ((NOT ((("order" IS NOT NULL) AND ("select" > 0)))) OR (NOT ("select" IS NOT NULL)) OR (NOT ("order" IS NOT NULL)) OR (NOT ("from" IS NOT NULL)) OR (NOT ("from" >= DATE '2000-01-01')) OR (NOT ("group" IS NOT NULL)) OR (NOT ((CustomerID > 0))) OR (NOT ("user" IS NOT NULL)) OR (NOT (CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."where" IS NOT NULL END)) OR (NOT (CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."Table" IS NOT NULL END)) OR (NOT (CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."Table" >= 0 END)) OR (NOT ("limit" IS NOT NULL)) OR (NOT (list_bool_and(list_transform("limit", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (list_bool_and(list_transform("limit", lambda __tg_x0: __tg_x0 <= 10)))))
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
  __tg_src."select", __tg_src."order", __tg_src."from", __tg_src."group", __tg_src."CustomerID", __tg_src."user", __tg_src."limit", __tg_src.__tg_rid,
  COALESCE((("order" IS NOT NULL) AND ("select" > 0)), TRUE) AS "order_has_select",
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "per_customer",
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS "primary_key",
  COALESCE("select" IS NOT NULL, TRUE) AS "select|nullability",
  COALESCE("order" IS NOT NULL, TRUE) AS "order|nullability",
  COALESCE(regexp_matches("order", '^o'), TRUE) AS "order|regex",
  COALESCE("from" IS NOT NULL, TRUE) AS "from|nullability",
  COALESCE("from" >= DATE '2000-01-01', TRUE) AS "from|min",
  COALESCE("group" IS NOT NULL, TRUE) AS "group|nullability",
  COALESCE(NOT __tg_k2.__tg_m0, TRUE) AS "group|unique",
  COALESCE((CustomerID > 0), TRUE) AS "CustomerID|check",
  COALESCE("user" IS NOT NULL, TRUE) AS "user|nullability",
  COALESCE(CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."where" IS NOT NULL END, TRUE) AS "user|inner_where_nullability",
  COALESCE(CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."Table" IS NOT NULL END, TRUE) AS "user|inner_Table_nullability",
  COALESCE(CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."Table" >= 0 END, TRUE) AS "user|inner_Table_min",
  COALESCE("limit" IS NOT NULL, TRUE) AS "limit|nullability",
  COALESCE(list_bool_and(list_transform("limit", lambda __tg_x0: __tg_x0 IS NOT NULL)), TRUE) AS "limit|inner_nullability",
  COALESCE(list_bool_and(list_transform("limit", lambda __tg_x0: __tg_x0 <= 10)), TRUE) AS "limit|inner_max"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."CustomerID" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0 AND __tg_src."group" IS NOT DISTINCT FROM __tg_k0.__tg_k0_1
LEFT JOIN __tg_k1 ON __tg_src."select" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
LEFT JOIN __tg_k2 ON __tg_src."group" IS NOT DISTINCT FROM __tg_k2.__tg_k2_0
WHERE (NOT ((("order" IS NOT NULL) AND ("select" > 0))))
   OR NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR NOT COALESCE(NOT __tg_k1.__tg_m0, TRUE)
   OR (NOT ("select" IS NOT NULL))
   OR (NOT ("order" IS NOT NULL))
   OR (NOT (regexp_matches("order", '^o')))
   OR (NOT ("from" IS NOT NULL))
   OR (NOT ("from" >= DATE '2000-01-01'))
   OR (NOT ("group" IS NOT NULL))
   OR NOT COALESCE(NOT __tg_k2.__tg_m0, TRUE)
   OR (NOT ((CustomerID > 0)))
   OR (NOT ("user" IS NOT NULL))
   OR (NOT (CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."where" IS NOT NULL END))
   OR (NOT (CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."Table" IS NOT NULL END))
   OR (NOT (CASE WHEN "user" IS NULL THEN TRUE ELSE "user"."Table" >= 0 END))
   OR (NOT ("limit" IS NOT NULL))
   OR (NOT (list_bool_and(list_transform("limit", lambda __tg_x0: __tg_x0 IS NOT NULL))))
   OR (NOT (list_bool_and(list_transform("limit", lambda __tg_x0: __tg_x0 <= 10))));

-- 10. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 11. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 12. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys2_1";

-- 13. count failures: read the counts
SELECT coalesce(count_if(NOT ("order_has_select" AND "per_customer" AND "primary_key" AND "select|nullability" AND "order|nullability" AND "order|regex" AND "from|nullability" AND "from|min" AND "group|nullability" AND "group|unique" AND "CustomerID|check" AND "user|nullability" AND "user|inner_where_nullability" AND "user|inner_Table_nullability" AND "user|inner_Table_min" AND "limit|nullability" AND "limit|inner_nullability" AND "limit|inner_max")), 0), count(*) FROM "__tg_failed_1";

-- 14. count failures per rule (1 to 18): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "order_has_select"), 0), coalesce(count_if(NOT "per_customer"), 0), coalesce(count_if(NOT "primary_key"), 0), coalesce(count_if(NOT "select|nullability"), 0), coalesce(count_if(NOT "order|nullability"), 0), coalesce(count_if(NOT "order|regex"), 0), coalesce(count_if(NOT "from|nullability"), 0), coalesce(count_if(NOT "from|min"), 0), coalesce(count_if(NOT "group|nullability"), 0), coalesce(count_if(NOT "group|unique"), 0), coalesce(count_if(NOT "CustomerID|check"), 0), coalesce(count_if(NOT "user|nullability"), 0), coalesce(count_if(NOT "user|inner_where_nullability"), 0), coalesce(count_if(NOT "user|inner_Table_nullability"), 0), coalesce(count_if(NOT "user|inner_Table_min"), 0), coalesce(count_if(NOT "limit|nullability"), 0), coalesce(count_if(NOT "limit|inner_nullability"), 0), coalesce(count_if(NOT "limit|inner_max"), 0) FROM "__tg_failed_1";

-- 15. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "order_has_select" THEN 1 END, CASE WHEN NOT "per_customer" THEN 2 END, CASE WHEN NOT "primary_key" THEN 3 END, CASE WHEN NOT "select|nullability" THEN 4 END, CASE WHEN NOT "order|nullability" THEN 5 END, CASE WHEN NOT "order|regex" THEN 6 END, CASE WHEN NOT "from|nullability" THEN 7 END, CASE WHEN NOT "from|min" THEN 8 END, CASE WHEN NOT "group|nullability" THEN 9 END, CASE WHEN NOT "group|unique" THEN 10 END, CASE WHEN NOT "CustomerID|check" THEN 11 END, CASE WHEN NOT "user|nullability" THEN 12 END, CASE WHEN NOT "user|inner_where_nullability" THEN 13 END, CASE WHEN NOT "user|inner_Table_nullability" THEN 14 END, CASE WHEN NOT "user|inner_Table_min" THEN 15 END, CASE WHEN NOT "limit|nullability" THEN 16 END, CASE WHEN NOT "limit|inner_nullability" THEN 17 END, CASE WHEN NOT "limit|inner_max" THEN 18 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 16. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("select" := "select", "order" := CASE WHEN length(CAST("order" AS VARCHAR)) > 1024 THEN left(CAST("order" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order" AS VARCHAR)) || ' bytes)' ELSE CAST("order" AS VARCHAR) END, "from" := "from", "group" := "group", "CustomerID" := "CustomerID", "user" := CASE WHEN strlen(CAST(to_json("user") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("user") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("user") AS VARCHAR)) || ' bytes)') ELSE to_json("user") END, "limit" := CASE WHEN strlen(CAST(to_json("limit") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("limit") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("limit") AS VARCHAR)) || ' bytes)') ELSE to_json("limit") END)) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 17. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "select|nullability" THEN {'k': 4, 'v': coalesce(CAST(to_json("select") AS VARCHAR), 'null')} END, CASE WHEN NOT "order|nullability" THEN {'k': 5, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("order" AS VARCHAR)) > 1024 THEN left(CAST("order" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order" AS VARCHAR)) || ' bytes)' ELSE CAST("order" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "order|regex" THEN {'k': 6, 'v': coalesce(CAST(to_json(CASE WHEN length(CAST("order" AS VARCHAR)) > 1024 THEN left(CAST("order" AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST("order" AS VARCHAR)) || ' bytes)' ELSE CAST("order" AS VARCHAR) END) AS VARCHAR), 'null')} END, CASE WHEN NOT "from|nullability" THEN {'k': 7, 'v': coalesce(CAST(to_json("from") AS VARCHAR), 'null')} END, CASE WHEN NOT "from|min" THEN {'k': 8, 'v': coalesce(CAST(to_json("from") AS VARCHAR), 'null')} END, CASE WHEN NOT "group|nullability" THEN {'k': 9, 'v': coalesce(CAST(to_json("group") AS VARCHAR), 'null')} END, CASE WHEN NOT "group|unique" THEN {'k': 10, 'v': coalesce(CAST(to_json("group") AS VARCHAR), 'null')} END, CASE WHEN NOT "CustomerID|check" THEN {'k': 11, 'v': coalesce(CAST(to_json("CustomerID") AS VARCHAR), 'null')} END, CASE WHEN NOT "user|nullability" THEN {'k': 12, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("user") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("user") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("user") AS VARCHAR)) || ' bytes)') ELSE to_json("user") END) AS VARCHAR), 'null')} END, CASE WHEN NOT "user|inner_where_nullability" THEN {'k': 13, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("user") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("user") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("user") AS VARCHAR)) || ' bytes)') ELSE to_json("user") END) AS VARCHAR), 'null')} END, CASE WHEN NOT "user|inner_Table_nullability" THEN {'k': 14, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("user") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("user") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("user") AS VARCHAR)) || ' bytes)') ELSE to_json("user") END) AS VARCHAR), 'null')} END, CASE WHEN NOT "user|inner_Table_min" THEN {'k': 15, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("user") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("user") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("user") AS VARCHAR)) || ' bytes)') ELSE to_json("user") END) AS VARCHAR), 'null')} END, CASE WHEN NOT "limit|nullability" THEN {'k': 16, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("limit") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("limit") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("limit") AS VARCHAR)) || ' bytes)') ELSE to_json("limit") END) AS VARCHAR), 'null')} END, CASE WHEN NOT "limit|inner_nullability" THEN {'k': 17, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("limit") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("limit") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("limit") AS VARCHAR)) || ' bytes)') ELSE to_json("limit") END) AS VARCHAR), 'null')} END, CASE WHEN NOT "limit|inner_max" THEN {'k': 18, 'v': coalesce(CAST(to_json(CASE WHEN strlen(CAST(to_json("limit") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("limit") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("limit") AS VARCHAR)) || ' bytes)') ELSE to_json("limit") END) AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 18. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "CustomerID|check" THEN 'dy_rule__CustomerID__check' END, CASE WHEN NOT "from|min" THEN 'dy_rule__from__min' END, CASE WHEN NOT "from|nullability" THEN 'dy_rule__from__nullability' END, CASE WHEN NOT "group|nullability" THEN 'dy_rule__group__nullability' END, CASE WHEN NOT "group|unique" THEN 'dy_rule__group__unique' END, CASE WHEN NOT "limit|inner_max" THEN 'dy_rule__limit__inner_max' END, CASE WHEN NOT "limit|inner_nullability" THEN 'dy_rule__limit__inner_nullability' END, CASE WHEN NOT "limit|nullability" THEN 'dy_rule__limit__nullability' END, CASE WHEN NOT "order|nullability" THEN 'dy_rule__order__nullability' END, CASE WHEN NOT "order|regex" THEN 'dy_rule__order__regex' END, CASE WHEN NOT "order_has_select" THEN 'dy_rule__order_has_select' END, CASE WHEN NOT "per_customer" THEN 'dy_rule__per_customer' END, CASE WHEN NOT "primary_key" THEN 'dy_rule__primary_key' END, CASE WHEN NOT "select|nullability" THEN 'dy_rule__select__nullability' END, CASE WHEN NOT "user|inner_Table_min" THEN 'dy_rule__user__inner_Table_min' END, CASE WHEN NOT "user|inner_Table_nullability" THEN 'dy_rule__user__inner_Table_nullability' END, CASE WHEN NOT "user|inner_where_nullability" THEN 'dy_rule__user__inner_where_nullability' END, CASE WHEN NOT "user|nullability" THEN 'dy_rule__user__nullability' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("order_has_select" AND "per_customer" AND "primary_key" AND "select|nullability" AND "order|nullability" AND "order|regex" AND "from|nullability" AND "from|min" AND "group|nullability" AND "group|unique" AND "CustomerID|check" AND "user|nullability" AND "user|inner_where_nullability" AND "user|inner_Table_nullability" AND "user|inner_Table_min" AND "limit|nullability" AND "limit|inner_nullability" AND "limit|inner_max") GROUP BY ALL ORDER BY n DESC, rules;

-- 19. index the invalid rows: run; when some row is invalid
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("order_has_select" AND "per_customer" AND "primary_key" AND "select|nullability" AND "order|nullability" AND "order|regex" AND "from|nullability" AND "from|min" AND "group|nullability" AND "group|unique" AND "CustomerID|check" AND "user|nullability" AND "user|inner_where_nullability" AND "user|inner_Table_nullability" AND "user|inner_Table_min" AND "limit|nullability" AND "limit|inner_nullability" AND "limit|inner_max")) GROUP BY block;

-- 20. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 21. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 22. index the invalid rows: run; when some row is invalid
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 23. read the filtered rows: hand the invalid rows to the caller
SELECT "select", "order", "from", "group", "CustomerID", "user", "limit", CASE WHEN "order_has_select" THEN 'valid' ELSE 'invalid' END AS "dy_rule__order_has_select", CASE WHEN "per_customer" THEN 'valid' ELSE 'invalid' END AS "dy_rule__per_customer", CASE WHEN "primary_key" THEN 'valid' ELSE 'invalid' END AS "dy_rule__primary_key", CASE WHEN "select|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__select__nullability", CASE WHEN "order|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__order__nullability", CASE WHEN "order|regex" THEN 'valid' ELSE 'invalid' END AS "dy_rule__order__regex", CASE WHEN "from|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__from__nullability", CASE WHEN "from|min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__from__min", CASE WHEN "group|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__group__nullability", CASE WHEN "group|unique" THEN 'valid' ELSE 'invalid' END AS "dy_rule__group__unique", CASE WHEN "CustomerID|check" THEN 'valid' ELSE 'invalid' END AS "dy_rule__CustomerID__check", CASE WHEN "user|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__user__nullability", CASE WHEN "user|inner_where_nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__user__inner_where_nullability", CASE WHEN "user|inner_Table_nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__user__inner_Table_nullability", CASE WHEN "user|inner_Table_min" THEN 'valid' ELSE 'invalid' END AS "dy_rule__user__inner_Table_min", CASE WHEN "limit|nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__limit__nullability", CASE WHEN "limit|inner_nullability" THEN 'valid' ELSE 'invalid' END AS "dy_rule__limit__inner_nullability", CASE WHEN "limit|inner_max" THEN 'valid' ELSE 'invalid' END AS "dy_rule__limit__inner_max" FROM "__tg_failed_1" WHERE NOT ("order_has_select" AND "per_customer" AND "primary_key" AND "select|nullability" AND "order|nullability" AND "order|regex" AND "from|nullability" AND "from|min" AND "group|nullability" AND "group|unique" AND "CustomerID|check" AND "user|nullability" AND "user|inner_where_nullability" AND "user|inner_Table_nullability" AND "user|inner_Table_min" AND "limit|nullability" AND "limit|inner_nullability" AND "limit|inner_max") ORDER BY __tg_rid;

-- 24. read the filtered rows: hand the valid rows to the caller; when no row is invalid
SELECT s."select", s."order", s."from", s."group", s."CustomerID", s."user", s."limit" FROM (SELECT "select", "order", "from", "group", "CustomerID", "user", "limit", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS s;

-- 25. read the filtered rows: hand the valid rows to the caller; when some row is invalid
SELECT s."select", s."order", s."from", s."group", s."CustomerID", s."user", s."limit" FROM (SELECT "select", "order", "from", "group", "CustomerID", "user", "limit", (([0, 1000000]::BIGINT[])[file_index::BIGINT + 1] + file_row_number) AS __tg_rid FROM read_parquet('in/*.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END);

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
