WITH __tg_src AS NOT MATERIALIZED (
  SELECT "id", "amount", "note", "email", "ratio", rowid AS __tg_rid FROM __tg_input
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT "id" AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM __tg_src
  GROUP BY "id"
  HAVING (count(*) > 1)
)
SELECT
  __tg_src."id", __tg_src."amount", __tg_src."note", __tg_src."email", __tg_src."ratio", __tg_src.__tg_rid,
  COALESCE((round((amount * 100)) = (amount * 100)), TRUE) AS "amount_is_rounded",
  COALESCE(((note IS NULL) OR (amount > 0)), TRUE) AS "note_needs_amount",
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "primary_key",
  COALESCE("id" IS NOT NULL, TRUE) AS "id|nullability",
  COALESCE("amount" IS NOT NULL, TRUE) AS "amount|nullability",
  COALESCE("amount" >= CAST('0' AS DOUBLE), TRUE) AS "amount|min",
  COALESCE(NOT isinf("amount"), TRUE) AS "amount|inf",
  COALESCE(NOT isnan("amount"), TRUE) AS "amount|nan",
  COALESCE(strlen("note") <= 100, TRUE) AS "note|max_length",
  COALESCE("email" IS NOT NULL, TRUE) AS "email|nullability",
  COALESCE((lower(email) = email), TRUE) AS "email|check__lowercase",
  COALESCE(contains(email, '@'), TRUE) AS "email|check__has_at",
  COALESCE("ratio" IS NOT NULL, TRUE) AS "ratio|nullability",
  COALESCE((ratio >= 0), TRUE) AS "ratio|check__0",
  COALESCE((ratio != 0.5), TRUE) AS "ratio|check__1",
  COALESCE("ratio" <= CAST('1' AS FLOAT), TRUE) AS "ratio|max",
  COALESCE(NOT isnan("ratio"), TRUE) AS "ratio|nan"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0;
