CREATE TEMP TABLE __tg_keys0 AS
SELECT "status" AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM __tg_input AS __tg_src
  GROUP BY "status"
  HAVING (count(*) > 1);

WITH __tg_src AS NOT MATERIALIZED (
  SELECT "code", "country", "payload", "status", "blob", "extra", rowid AS __tg_rid FROM __tg_input
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM __tg_keys0
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
