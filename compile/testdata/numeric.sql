WITH __tg_src AS NOT MATERIALIZED (
  SELECT "flag", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "any_int", "f32", "f64", "any_float", "price", "ratio", rowid AS __tg_rid FROM __tg_input
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT "i64" AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM __tg_src
  GROUP BY "i64"
  HAVING (count(*) > 1)
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
LEFT JOIN __tg_k0 ON __tg_src."i64" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0;
