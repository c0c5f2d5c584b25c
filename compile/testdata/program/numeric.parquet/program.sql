-- 1. fit the perfect hash to the rows: run
SET SESSION perfect_ht_threshold = 20;

-- 2. give the key aggregates their threads: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 3. give the key aggregates their threads: raise the threads, unless raised
SET threads = 3;

-- 4. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "i64" AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "i64"
  HAVING (count(*) > 1);

-- 5. give the threads back: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 6. give the threads back: restore the threads ($1, the count read), if the last run aggregating keys
SET threads = $1;

-- 7. find the rows that may fail a rule: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys0_1" AS __tg_k0 ON "i64" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0;

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
  SELECT * FROM (SELECT "flag", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "any_int", "f32", "f64", "any_float", "price", "ratio", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS __tg_s WHERE CASE WHEN __tg_rid < 1048576 THEN CASE WHEN __tg_rid >= 0 AND __tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_suspect_1_0'), CAST(__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid < 2097152 THEN CASE WHEN __tg_rid >= 1048576 AND __tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_suspect_1_1'), CAST(__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid >= 2097152 AND __tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_suspect_1_2'), CAST(__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END OR ((NOT ("flag" IS NOT NULL)) OR (NOT ("i8" IS NOT NULL)) OR (NOT ("i8" >= -128)) OR (NOT ("i8" <= 127)) OR (NOT ("i16" IS NOT NULL)) OR (NOT ("i16" > -5)) OR (NOT ("i16" < 30000)) OR (NOT ("i32" IS NOT NULL)) OR (NOT ("i32" IN (1, 2, 3))) OR (NOT ("i64" IS NOT NULL)) OR (NOT ("i64" >= -9223372036854775808)) OR (NOT ("i64" <= 9223372036854775807)) OR (NOT ("u8" <= 255)) OR (NOT ("u16" IS NOT NULL)) OR (NOT ("u16" > 0)) OR (NOT (("u32" IS NULL AND NULL))) OR (NOT ("u64" IS NOT NULL)) OR (NOT ("u64" <= 18446744073709551615)) OR (NOT ("any_int" IS NOT NULL)) OR (NOT (((any_int % 2) = 0))) OR (NOT ("any_int" >= 0)) OR (NOT ("f32" IS NOT NULL)) OR (NOT ("f32" >= CAST('0.1' AS FLOAT))) OR (NOT ("f32" <= CAST('1.5' AS FLOAT))) OR (NOT (NOT isinf("f32"))) OR (NOT (NOT isnan("f32"))) OR (NOT ("f64" IS NOT NULL)) OR (NOT ("f64" > CAST('-1500' AS DOUBLE))) OR (NOT ("f64" < CAST('2.5' AS DOUBLE))) OR (NOT (NOT isinf("f64"))) OR (NOT ("price" IS NOT NULL)) OR (NOT ("price" >= CAST('0.00' AS DECIMAL(10,2)))) OR (NOT ("price" <= CAST('99999999.99' AS DECIMAL(10,2)))) OR (NOT ("ratio" IS NOT NULL)) OR (NOT ("ratio" > CAST('-0.500' AS DECIMAL(4,3)))) OR (NOT ("ratio" <= CAST('1.000' AS DECIMAL(4,3)))))
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys0_1"
)
SELECT
  __tg_src."flag", __tg_src."i8", __tg_src."i16", __tg_src."i32", __tg_src."i64", __tg_src."u8", __tg_src."u16", __tg_src."u32", __tg_src."u64", __tg_src."any_int", __tg_src."f32", __tg_src."f64", __tg_src."any_float", __tg_src."price", __tg_src."ratio", __tg_src.__tg_rid,
  COALESCE("flag" IS NOT NULL, TRUE) AS "flag|nullability",
  COALESCE("i8" IS NOT NULL, TRUE) AS "i8|nullability",
  COALESCE("i8" >= -128, TRUE) AS "i8|min",
  COALESCE("i8" <= 127, TRUE) AS "i8|max",
  COALESCE("i16" IS NOT NULL, TRUE) AS "i16|nullability",
  COALESCE("i16" > -5, TRUE) AS "i16|min_exclusive",
  COALESCE("i16" < 30000, TRUE) AS "i16|max_exclusive",
  COALESCE("i32" IS NOT NULL, TRUE) AS "i32|nullability",
  COALESCE("i32" IN (1, 2, 3), TRUE) AS "i32|is_in",
  COALESCE("i64" IS NOT NULL, TRUE) AS "i64|nullability",
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "i64|unique",
  COALESCE("i64" >= -9223372036854775808, TRUE) AS "i64|min",
  COALESCE("i64" <= 9223372036854775807, TRUE) AS "i64|max",
  COALESCE("u8" <= 255, TRUE) AS "u8|max",
  COALESCE("u16" IS NOT NULL, TRUE) AS "u16|nullability",
  COALESCE("u16" > 0, TRUE) AS "u16|min_exclusive",
  COALESCE(("u32" IS NULL AND NULL), TRUE) AS "u32|is_in",
  COALESCE("u64" IS NOT NULL, TRUE) AS "u64|nullability",
  COALESCE("u64" <= 18446744073709551615, TRUE) AS "u64|max",
  COALESCE("any_int" IS NOT NULL, TRUE) AS "any_int|nullability",
  COALESCE(((any_int % 2) = 0), TRUE) AS "any_int|check",
  COALESCE("any_int" >= 0, TRUE) AS "any_int|min",
  COALESCE("f32" IS NOT NULL, TRUE) AS "f32|nullability",
  COALESCE("f32" >= CAST('0.1' AS FLOAT), TRUE) AS "f32|min",
  COALESCE("f32" <= CAST('1.5' AS FLOAT), TRUE) AS "f32|max",
  COALESCE(NOT isinf("f32"), TRUE) AS "f32|inf",
  COALESCE(NOT isnan("f32"), TRUE) AS "f32|nan",
  COALESCE("f64" IS NOT NULL, TRUE) AS "f64|nullability",
  COALESCE("f64" > CAST('-1500' AS DOUBLE), TRUE) AS "f64|min_exclusive",
  COALESCE("f64" < CAST('2.5' AS DOUBLE), TRUE) AS "f64|max_exclusive",
  COALESCE(NOT isinf("f64"), TRUE) AS "f64|inf",
  COALESCE("price" IS NOT NULL, TRUE) AS "price|nullability",
  COALESCE("price" >= CAST('0.00' AS DECIMAL(10,2)), TRUE) AS "price|min",
  COALESCE("price" <= CAST('99999999.99' AS DECIMAL(10,2)), TRUE) AS "price|max",
  COALESCE("ratio" IS NOT NULL, TRUE) AS "ratio|nullability",
  COALESCE("ratio" > CAST('-0.500' AS DECIMAL(4,3)), TRUE) AS "ratio|min_exclusive",
  COALESCE("ratio" <= CAST('1.000' AS DECIMAL(4,3)), TRUE) AS "ratio|max"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."i64" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
WHERE (NOT ("flag" IS NOT NULL))
   OR (NOT ("i8" IS NOT NULL))
   OR (NOT ("i8" >= -128))
   OR (NOT ("i8" <= 127))
   OR (NOT ("i16" IS NOT NULL))
   OR (NOT ("i16" > -5))
   OR (NOT ("i16" < 30000))
   OR (NOT ("i32" IS NOT NULL))
   OR (NOT ("i32" IN (1, 2, 3)))
   OR (NOT ("i64" IS NOT NULL))
   OR NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR (NOT ("i64" >= -9223372036854775808))
   OR (NOT ("i64" <= 9223372036854775807))
   OR (NOT ("u8" <= 255))
   OR (NOT ("u16" IS NOT NULL))
   OR (NOT ("u16" > 0))
   OR (NOT (("u32" IS NULL AND NULL)))
   OR (NOT ("u64" IS NOT NULL))
   OR (NOT ("u64" <= 18446744073709551615))
   OR (NOT ("any_int" IS NOT NULL))
   OR (NOT (((any_int % 2) = 0)))
   OR (NOT ("any_int" >= 0))
   OR (NOT ("f32" IS NOT NULL))
   OR (NOT ("f32" >= CAST('0.1' AS FLOAT)))
   OR (NOT ("f32" <= CAST('1.5' AS FLOAT)))
   OR (NOT (NOT isinf("f32")))
   OR (NOT (NOT isnan("f32")))
   OR (NOT ("f64" IS NOT NULL))
   OR (NOT ("f64" > CAST('-1500' AS DOUBLE)))
   OR (NOT ("f64" < CAST('2.5' AS DOUBLE)))
   OR (NOT (NOT isinf("f64")))
   OR (NOT ("price" IS NOT NULL))
   OR (NOT ("price" >= CAST('0.00' AS DECIMAL(10,2))))
   OR (NOT ("price" <= CAST('99999999.99' AS DECIMAL(10,2))))
   OR (NOT ("ratio" IS NOT NULL))
   OR (NOT ("ratio" > CAST('-0.500' AS DECIMAL(4,3))))
   OR (NOT ("ratio" <= CAST('1.000' AS DECIMAL(4,3))));

-- 13. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 14. count failures: read the counts
SELECT coalesce(count_if(NOT ("flag|nullability" AND "i8|nullability" AND "i8|min" AND "i8|max" AND "i16|nullability" AND "i16|min_exclusive" AND "i16|max_exclusive" AND "i32|nullability" AND "i32|is_in" AND "i64|nullability" AND "i64|unique" AND "i64|min" AND "i64|max" AND "u8|max" AND "u16|nullability" AND "u16|min_exclusive" AND "u32|is_in" AND "u64|nullability" AND "u64|max" AND "any_int|nullability" AND "any_int|check" AND "any_int|min" AND "f32|nullability" AND "f32|min" AND "f32|max" AND "f32|inf" AND "f32|nan" AND "f64|nullability" AND "f64|min_exclusive" AND "f64|max_exclusive" AND "f64|inf" AND "price|nullability" AND "price|min" AND "price|max" AND "ratio|nullability" AND "ratio|min_exclusive" AND "ratio|max")), 0), count(*) FROM "__tg_failed_1";

-- 15. count failures per rule (1 to 37): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "flag|nullability"), 0), coalesce(count_if(NOT "i8|nullability"), 0), coalesce(count_if(NOT "i8|min"), 0), coalesce(count_if(NOT "i8|max"), 0), coalesce(count_if(NOT "i16|nullability"), 0), coalesce(count_if(NOT "i16|min_exclusive"), 0), coalesce(count_if(NOT "i16|max_exclusive"), 0), coalesce(count_if(NOT "i32|nullability"), 0), coalesce(count_if(NOT "i32|is_in"), 0), coalesce(count_if(NOT "i64|nullability"), 0), coalesce(count_if(NOT "i64|unique"), 0), coalesce(count_if(NOT "i64|min"), 0), coalesce(count_if(NOT "i64|max"), 0), coalesce(count_if(NOT "u8|max"), 0), coalesce(count_if(NOT "u16|nullability"), 0), coalesce(count_if(NOT "u16|min_exclusive"), 0), coalesce(count_if(NOT "u32|is_in"), 0), coalesce(count_if(NOT "u64|nullability"), 0), coalesce(count_if(NOT "u64|max"), 0), coalesce(count_if(NOT "any_int|nullability"), 0), coalesce(count_if(NOT "any_int|check"), 0), coalesce(count_if(NOT "any_int|min"), 0), coalesce(count_if(NOT "f32|nullability"), 0), coalesce(count_if(NOT "f32|min"), 0), coalesce(count_if(NOT "f32|max"), 0), coalesce(count_if(NOT "f32|inf"), 0), coalesce(count_if(NOT "f32|nan"), 0), coalesce(count_if(NOT "f64|nullability"), 0), coalesce(count_if(NOT "f64|min_exclusive"), 0), coalesce(count_if(NOT "f64|max_exclusive"), 0), coalesce(count_if(NOT "f64|inf"), 0), coalesce(count_if(NOT "price|nullability"), 0), coalesce(count_if(NOT "price|min"), 0), coalesce(count_if(NOT "price|max"), 0), coalesce(count_if(NOT "ratio|nullability"), 0), coalesce(count_if(NOT "ratio|min_exclusive"), 0), coalesce(count_if(NOT "ratio|max"), 0) FROM "__tg_failed_1";

-- 16. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "flag|nullability" THEN 1 END, CASE WHEN NOT "i8|nullability" THEN 2 END, CASE WHEN NOT "i8|min" THEN 3 END, CASE WHEN NOT "i8|max" THEN 4 END, CASE WHEN NOT "i16|nullability" THEN 5 END, CASE WHEN NOT "i16|min_exclusive" THEN 6 END, CASE WHEN NOT "i16|max_exclusive" THEN 7 END, CASE WHEN NOT "i32|nullability" THEN 8 END, CASE WHEN NOT "i32|is_in" THEN 9 END, CASE WHEN NOT "i64|nullability" THEN 10 END, CASE WHEN NOT "i64|unique" THEN 11 END, CASE WHEN NOT "i64|min" THEN 12 END, CASE WHEN NOT "i64|max" THEN 13 END, CASE WHEN NOT "u8|max" THEN 14 END, CASE WHEN NOT "u16|nullability" THEN 15 END, CASE WHEN NOT "u16|min_exclusive" THEN 16 END, CASE WHEN NOT "u32|is_in" THEN 17 END, CASE WHEN NOT "u64|nullability" THEN 18 END, CASE WHEN NOT "u64|max" THEN 19 END, CASE WHEN NOT "any_int|nullability" THEN 20 END, CASE WHEN NOT "any_int|check" THEN 21 END, CASE WHEN NOT "any_int|min" THEN 22 END, CASE WHEN NOT "f32|nullability" THEN 23 END, CASE WHEN NOT "f32|min" THEN 24 END, CASE WHEN NOT "f32|max" THEN 25 END, CASE WHEN NOT "f32|inf" THEN 26 END, CASE WHEN NOT "f32|nan" THEN 27 END, CASE WHEN NOT "f64|nullability" THEN 28 END, CASE WHEN NOT "f64|min_exclusive" THEN 29 END, CASE WHEN NOT "f64|max_exclusive" THEN 30 END, CASE WHEN NOT "f64|inf" THEN 31 END, CASE WHEN NOT "price|nullability" THEN 32 END, CASE WHEN NOT "price|min" THEN 33 END, CASE WHEN NOT "price|max" THEN 34 END, CASE WHEN NOT "ratio|nullability" THEN 35 END, CASE WHEN NOT "ratio|min_exclusive" THEN 36 END, CASE WHEN NOT "ratio|max" THEN 37 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 17. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("flag" := "flag", "i8" := "i8", "i16" := "i16", "i32" := "i32", "i64" := "i64", "u8" := "u8", "u16" := "u16", "u32" := "u32", "u64" := "u64", "any_int" := "any_int", "f32" := "f32", "f64" := "f64", "any_float" := "any_float", "price" := CAST("price" AS VARCHAR), "ratio" := CAST("ratio" AS VARCHAR))) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 18. find the most frequent failing values: read the most frequent failing values; when some rule fails
SELECT k, v, n FROM (SELECT u.k AS k, u.v AS v, count(*) AS n FROM (SELECT unnest(list_filter([CASE WHEN NOT "flag|nullability" THEN {'k': 1, 'v': coalesce(CAST(to_json("flag") AS VARCHAR), 'null')} END, CASE WHEN NOT "i8|nullability" THEN {'k': 2, 'v': coalesce(CAST(to_json("i8") AS VARCHAR), 'null')} END, CASE WHEN NOT "i8|min" THEN {'k': 3, 'v': coalesce(CAST(to_json("i8") AS VARCHAR), 'null')} END, CASE WHEN NOT "i8|max" THEN {'k': 4, 'v': coalesce(CAST(to_json("i8") AS VARCHAR), 'null')} END, CASE WHEN NOT "i16|nullability" THEN {'k': 5, 'v': coalesce(CAST(to_json("i16") AS VARCHAR), 'null')} END, CASE WHEN NOT "i16|min_exclusive" THEN {'k': 6, 'v': coalesce(CAST(to_json("i16") AS VARCHAR), 'null')} END, CASE WHEN NOT "i16|max_exclusive" THEN {'k': 7, 'v': coalesce(CAST(to_json("i16") AS VARCHAR), 'null')} END, CASE WHEN NOT "i32|nullability" THEN {'k': 8, 'v': coalesce(CAST(to_json("i32") AS VARCHAR), 'null')} END, CASE WHEN NOT "i32|is_in" THEN {'k': 9, 'v': coalesce(CAST(to_json("i32") AS VARCHAR), 'null')} END, CASE WHEN NOT "i64|nullability" THEN {'k': 10, 'v': coalesce(CAST(to_json("i64") AS VARCHAR), 'null')} END, CASE WHEN NOT "i64|unique" THEN {'k': 11, 'v': coalesce(CAST(to_json("i64") AS VARCHAR), 'null')} END, CASE WHEN NOT "i64|min" THEN {'k': 12, 'v': coalesce(CAST(to_json("i64") AS VARCHAR), 'null')} END, CASE WHEN NOT "i64|max" THEN {'k': 13, 'v': coalesce(CAST(to_json("i64") AS VARCHAR), 'null')} END, CASE WHEN NOT "u8|max" THEN {'k': 14, 'v': coalesce(CAST(to_json("u8") AS VARCHAR), 'null')} END, CASE WHEN NOT "u16|nullability" THEN {'k': 15, 'v': coalesce(CAST(to_json("u16") AS VARCHAR), 'null')} END, CASE WHEN NOT "u16|min_exclusive" THEN {'k': 16, 'v': coalesce(CAST(to_json("u16") AS VARCHAR), 'null')} END, CASE WHEN NOT "u32|is_in" THEN {'k': 17, 'v': coalesce(CAST(to_json("u32") AS VARCHAR), 'null')} END, CASE WHEN NOT "u64|nullability" THEN {'k': 18, 'v': coalesce(CAST(to_json("u64") AS VARCHAR), 'null')} END, CASE WHEN NOT "u64|max" THEN {'k': 19, 'v': coalesce(CAST(to_json("u64") AS VARCHAR), 'null')} END, CASE WHEN NOT "any_int|nullability" THEN {'k': 20, 'v': coalesce(CAST(to_json("any_int") AS VARCHAR), 'null')} END, CASE WHEN NOT "any_int|check" THEN {'k': 21, 'v': coalesce(CAST(to_json("any_int") AS VARCHAR), 'null')} END, CASE WHEN NOT "any_int|min" THEN {'k': 22, 'v': coalesce(CAST(to_json("any_int") AS VARCHAR), 'null')} END, CASE WHEN NOT "f32|nullability" THEN {'k': 23, 'v': coalesce(CAST(to_json("f32") AS VARCHAR), 'null')} END, CASE WHEN NOT "f32|min" THEN {'k': 24, 'v': coalesce(CAST(to_json("f32") AS VARCHAR), 'null')} END, CASE WHEN NOT "f32|max" THEN {'k': 25, 'v': coalesce(CAST(to_json("f32") AS VARCHAR), 'null')} END, CASE WHEN NOT "f32|inf" THEN {'k': 26, 'v': coalesce(CAST(to_json("f32") AS VARCHAR), 'null')} END, CASE WHEN NOT "f32|nan" THEN {'k': 27, 'v': coalesce(CAST(to_json("f32") AS VARCHAR), 'null')} END, CASE WHEN NOT "f64|nullability" THEN {'k': 28, 'v': coalesce(CAST(to_json("f64") AS VARCHAR), 'null')} END, CASE WHEN NOT "f64|min_exclusive" THEN {'k': 29, 'v': coalesce(CAST(to_json("f64") AS VARCHAR), 'null')} END, CASE WHEN NOT "f64|max_exclusive" THEN {'k': 30, 'v': coalesce(CAST(to_json("f64") AS VARCHAR), 'null')} END, CASE WHEN NOT "f64|inf" THEN {'k': 31, 'v': coalesce(CAST(to_json("f64") AS VARCHAR), 'null')} END, CASE WHEN NOT "price|nullability" THEN {'k': 32, 'v': coalesce(CAST(to_json(CAST("price" AS VARCHAR)) AS VARCHAR), 'null')} END, CASE WHEN NOT "price|min" THEN {'k': 33, 'v': coalesce(CAST(to_json(CAST("price" AS VARCHAR)) AS VARCHAR), 'null')} END, CASE WHEN NOT "price|max" THEN {'k': 34, 'v': coalesce(CAST(to_json(CAST("price" AS VARCHAR)) AS VARCHAR), 'null')} END, CASE WHEN NOT "ratio|nullability" THEN {'k': 35, 'v': coalesce(CAST(to_json(CAST("ratio" AS VARCHAR)) AS VARCHAR), 'null')} END, CASE WHEN NOT "ratio|min_exclusive" THEN {'k': 36, 'v': coalesce(CAST(to_json(CAST("ratio" AS VARCHAR)) AS VARCHAR), 'null')} END, CASE WHEN NOT "ratio|max" THEN {'k': 37, 'v': coalesce(CAST(to_json(CAST("ratio" AS VARCHAR)) AS VARCHAR), 'null')} END], lambda x: x IS NOT NULL)) AS u FROM "__tg_failed_1") GROUP BY ALL) QUALIFY row_number() OVER (PARTITION BY k ORDER BY n DESC, v) <= 5 ORDER BY k, n DESC, v;

-- 19. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "any_int|check" THEN 'dy_rule__any_int__check' END, CASE WHEN NOT "any_int|min" THEN 'dy_rule__any_int__min' END, CASE WHEN NOT "any_int|nullability" THEN 'dy_rule__any_int__nullability' END, CASE WHEN NOT "f32|inf" THEN 'dy_rule__f32__inf' END, CASE WHEN NOT "f32|max" THEN 'dy_rule__f32__max' END, CASE WHEN NOT "f32|min" THEN 'dy_rule__f32__min' END, CASE WHEN NOT "f32|nan" THEN 'dy_rule__f32__nan' END, CASE WHEN NOT "f32|nullability" THEN 'dy_rule__f32__nullability' END, CASE WHEN NOT "f64|inf" THEN 'dy_rule__f64__inf' END, CASE WHEN NOT "f64|max_exclusive" THEN 'dy_rule__f64__max_exclusive' END, CASE WHEN NOT "f64|min_exclusive" THEN 'dy_rule__f64__min_exclusive' END, CASE WHEN NOT "f64|nullability" THEN 'dy_rule__f64__nullability' END, CASE WHEN NOT "flag|nullability" THEN 'dy_rule__flag__nullability' END, CASE WHEN NOT "i16|max_exclusive" THEN 'dy_rule__i16__max_exclusive' END, CASE WHEN NOT "i16|min_exclusive" THEN 'dy_rule__i16__min_exclusive' END, CASE WHEN NOT "i16|nullability" THEN 'dy_rule__i16__nullability' END, CASE WHEN NOT "i32|is_in" THEN 'dy_rule__i32__is_in' END, CASE WHEN NOT "i32|nullability" THEN 'dy_rule__i32__nullability' END, CASE WHEN NOT "i64|max" THEN 'dy_rule__i64__max' END, CASE WHEN NOT "i64|min" THEN 'dy_rule__i64__min' END, CASE WHEN NOT "i64|nullability" THEN 'dy_rule__i64__nullability' END, CASE WHEN NOT "i64|unique" THEN 'dy_rule__i64__unique' END, CASE WHEN NOT "i8|max" THEN 'dy_rule__i8__max' END, CASE WHEN NOT "i8|min" THEN 'dy_rule__i8__min' END, CASE WHEN NOT "i8|nullability" THEN 'dy_rule__i8__nullability' END, CASE WHEN NOT "price|max" THEN 'dy_rule__price__max' END, CASE WHEN NOT "price|min" THEN 'dy_rule__price__min' END, CASE WHEN NOT "price|nullability" THEN 'dy_rule__price__nullability' END, CASE WHEN NOT "ratio|max" THEN 'dy_rule__ratio__max' END, CASE WHEN NOT "ratio|min_exclusive" THEN 'dy_rule__ratio__min_exclusive' END, CASE WHEN NOT "ratio|nullability" THEN 'dy_rule__ratio__nullability' END, CASE WHEN NOT "u16|min_exclusive" THEN 'dy_rule__u16__min_exclusive' END, CASE WHEN NOT "u16|nullability" THEN 'dy_rule__u16__nullability' END, CASE WHEN NOT "u32|is_in" THEN 'dy_rule__u32__is_in' END, CASE WHEN NOT "u64|max" THEN 'dy_rule__u64__max' END, CASE WHEN NOT "u64|nullability" THEN 'dy_rule__u64__nullability' END, CASE WHEN NOT "u8|max" THEN 'dy_rule__u8__max' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("flag|nullability" AND "i8|nullability" AND "i8|min" AND "i8|max" AND "i16|nullability" AND "i16|min_exclusive" AND "i16|max_exclusive" AND "i32|nullability" AND "i32|is_in" AND "i64|nullability" AND "i64|unique" AND "i64|min" AND "i64|max" AND "u8|max" AND "u16|nullability" AND "u16|min_exclusive" AND "u32|is_in" AND "u64|nullability" AND "u64|max" AND "any_int|nullability" AND "any_int|check" AND "any_int|min" AND "f32|nullability" AND "f32|min" AND "f32|max" AND "f32|inf" AND "f32|nan" AND "f64|nullability" AND "f64|min_exclusive" AND "f64|max_exclusive" AND "f64|inf" AND "price|nullability" AND "price|min" AND "price|max" AND "ratio|nullability" AND "ratio|min_exclusive" AND "ratio|max") GROUP BY ALL ORDER BY n DESC, rules;

-- 20. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("flag|nullability" AND "i8|nullability" AND "i8|min" AND "i8|max" AND "i16|nullability" AND "i16|min_exclusive" AND "i16|max_exclusive" AND "i32|nullability" AND "i32|is_in" AND "i64|nullability" AND "i64|unique" AND "i64|min" AND "i64|max" AND "u8|max" AND "u16|nullability" AND "u16|min_exclusive" AND "u32|is_in" AND "u64|nullability" AND "u64|max" AND "any_int|nullability" AND "any_int|check" AND "any_int|min" AND "f32|nullability" AND "f32|min" AND "f32|max" AND "f32|inf" AND "f32|nan" AND "f64|nullability" AND "f64|min_exclusive" AND "f64|max_exclusive" AND "f64|inf" AND "price|nullability" AND "price|min" AND "price|max" AND "ratio|nullability" AND "ratio|min_exclusive" AND "ratio|max")) GROUP BY block;

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
		SELECT g.start, count(*) AS bad FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("flag|nullability" AND "i8|nullability" AND "i8|min" AND "i8|max" AND "i16|nullability" AND "i16|min_exclusive" AND "i16|max_exclusive" AND "i32|nullability" AND "i32|is_in" AND "i64|nullability" AND "i64|unique" AND "i64|min" AND "i64|max" AND "u8|max" AND "u16|nullability" AND "u16|min_exclusive" AND "u32|is_in" AND "u64|nullability" AND "u64|max" AND "any_int|nullability" AND "any_int|check" AND "any_int|min" AND "f32|nullability" AND "f32|min" AND "f32|max" AND "f32|inf" AND "f32|nan" AND "f64|nullability" AND "f64|min_exclusive" AND "f64|max_exclusive" AND "f64|inf" AND "price|nullability" AND "price|min" AND "price|max" AND "ratio|nullability" AND "ratio|min_exclusive" AND "ratio|max")) AS b ASOF JOIN g ON b.__tg_rid >= g.start GROUP BY g.start
	) AS c USING (start) WHERE g.start < 1000001),
taken AS (
	SELECT a.rows, count(*) AS batches FROM (SELECT DISTINCT rows FROM valid WHERE rows BETWEEN 122880 / 2 AND 122880) AS a
	JOIN valid AS b ON abs(a.rows - b.rows) < 2048 GROUP BY a.rows)
SELECT rows, batches, (SELECT count(*) FROM valid WHERE abs(rows - 122880) < 2048) FROM taken ORDER BY batches DESC, rows DESC LIMIT 1;

-- 25. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
COPY (SELECT s."flag", s."i8", s."i16", s."i32", s."i64", s."u8", s."u16", s."u32", s."u64", s."any_int", s."f32", s."f64", s."any_float", s."price", s."ratio" FROM (SELECT "flag", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "any_int", "f32", "f64", "any_float", "price", "ratio", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 26. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, a row group size is set
COPY (SELECT s."flag", s."i8", s."i16", s."i32", s."i64", s."u8", s."u16", s."u32", s."u64", s."any_int", s."f32", s."f64", s."any_float", s."price", s."ratio" FROM (SELECT "flag", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "any_int", "f32", "f64", "any_float", "price", "ratio", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet, ROW_GROUP_SIZE $1);

-- 27. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, no row group size is set
COPY (SELECT s."flag", s."i8", s."i16", s."i32", s."i64", s."u8", s."u16", s."u32", s."u64", s."any_int", s."f32", s."f64", s."any_float", s."price", s."ratio" FROM (SELECT "flag", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "any_int", "f32", "f64", "any_float", "price", "ratio", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 28. write the invalid rows: write (the invalid rows); when the invalid rows are written
COPY (SELECT "flag", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "any_int", "f32", "f64", "any_float", "price", "ratio", CASE WHEN "flag|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__flag__nullability", CASE WHEN "i8|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i8__nullability", CASE WHEN "i8|min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i8__min", CASE WHEN "i8|max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i8__max", CASE WHEN "i16|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i16__nullability", CASE WHEN "i16|min_exclusive" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i16__min_exclusive", CASE WHEN "i16|max_exclusive" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i16__max_exclusive", CASE WHEN "i32|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i32__nullability", CASE WHEN "i32|is_in" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i32__is_in", CASE WHEN "i64|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i64__nullability", CASE WHEN "i64|unique" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i64__unique", CASE WHEN "i64|min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i64__min", CASE WHEN "i64|max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__i64__max", CASE WHEN "u8|max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__u8__max", CASE WHEN "u16|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__u16__nullability", CASE WHEN "u16|min_exclusive" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__u16__min_exclusive", CASE WHEN "u32|is_in" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__u32__is_in", CASE WHEN "u64|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__u64__nullability", CASE WHEN "u64|max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__u64__max", CASE WHEN "any_int|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__any_int__nullability", CASE WHEN "any_int|check" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__any_int__check", CASE WHEN "any_int|min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__any_int__min", CASE WHEN "f32|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f32__nullability", CASE WHEN "f32|min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f32__min", CASE WHEN "f32|max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f32__max", CASE WHEN "f32|inf" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f32__inf", CASE WHEN "f32|nan" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f32__nan", CASE WHEN "f64|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f64__nullability", CASE WHEN "f64|min_exclusive" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f64__min_exclusive", CASE WHEN "f64|max_exclusive" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f64__max_exclusive", CASE WHEN "f64|inf" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__f64__inf", CASE WHEN "price|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__price__nullability", CASE WHEN "price|min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__price__min", CASE WHEN "price|max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__price__max", CASE WHEN "ratio|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ratio__nullability", CASE WHEN "ratio|min_exclusive" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ratio__min_exclusive", CASE WHEN "ratio|max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ratio__max" FROM "__tg_failed_1" WHERE NOT ("flag|nullability" AND "i8|nullability" AND "i8|min" AND "i8|max" AND "i16|nullability" AND "i16|min_exclusive" AND "i16|max_exclusive" AND "i32|nullability" AND "i32|is_in" AND "i64|nullability" AND "i64|unique" AND "i64|min" AND "i64|max" AND "u8|max" AND "u16|nullability" AND "u16|min_exclusive" AND "u32|is_in" AND "u64|nullability" AND "u64|max" AND "any_int|nullability" AND "any_int|check" AND "any_int|min" AND "f32|nullability" AND "f32|min" AND "f32|max" AND "f32|inf" AND "f32|nan" AND "f64|nullability" AND "f64|min_exclusive" AND "f64|max_exclusive" AND "f64|inf" AND "price|nullability" AND "price|min" AND "price|max" AND "ratio|nullability" AND "ratio|min_exclusive" AND "ratio|max") ORDER BY __tg_rid) TO 'out/.orders.parquet.tablegate-1-quarantine.tmp' (FORMAT parquet);

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
