CREATE TEMP TABLE __tg_keys0 AS
SELECT "order_id" AS __tg_k0_0, "line_no" AS __tg_k0_1, (count(*) > 1) AS __tg_m0
  FROM __tg_input AS __tg_src
  GROUP BY "order_id", "line_no"
  HAVING (count(*) > 1);

CREATE TEMP TABLE __tg_keys1 AS
SELECT "sku" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM __tg_input AS __tg_src
  GROUP BY "sku"
  HAVING (count(*) > 1);

CREATE TEMP TABLE __tg_keys2 AS
SELECT "ean" AS __tg_k2_0, (count(*) > 1) AS __tg_m0
  FROM __tg_input AS __tg_src
  GROUP BY "ean"
  HAVING (count(*) > 1);

WITH __tg_src AS NOT MATERIALIZED (
  SELECT "order_id", "line_no", "sku", "ean", rowid AS __tg_rid FROM __tg_input
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM __tg_keys0
),
__tg_k1 AS NOT MATERIALIZED (
  SELECT * FROM __tg_keys1
),
__tg_k2 AS NOT MATERIALIZED (
  SELECT * FROM __tg_keys2
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
