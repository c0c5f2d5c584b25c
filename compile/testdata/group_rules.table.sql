CREATE TEMP TABLE __tg_keys0 AS
SELECT "customer_id" AS __tg_k0_0, (NOT COALESCE((sum(amount) < 1000000), TRUE)) AS __tg_m0, (NOT COALESCE((count(DISTINCT currency) = 1), TRUE)) AS __tg_m1
  FROM __tg_input AS __tg_src
  GROUP BY "customer_id"
  HAVING (NOT COALESCE((sum(amount) < 1000000), TRUE)) OR (NOT COALESCE((count(DISTINCT currency) = 1), TRUE));

CREATE TEMP TABLE __tg_keys1 AS
SELECT "payment_id" AS __tg_k1_0, (NOT COALESCE((count_star() <= 1), TRUE)) AS __tg_m0, (count(*) > 1) AS __tg_m1
  FROM __tg_input AS __tg_src
  GROUP BY "payment_id"
  HAVING (NOT COALESCE((count_star() <= 1), TRUE)) OR (count(*) > 1);

CREATE TEMP TABLE __tg_keys2 AS
SELECT (NOT COALESCE((sum(amount) IS NOT NULL), TRUE)) AS __tg_m0, (NOT COALESCE((sum(amount) > 0), TRUE)) AS __tg_m1
  FROM __tg_input AS __tg_src
  HAVING (NOT COALESCE((sum(amount) IS NOT NULL), TRUE)) OR (NOT COALESCE((sum(amount) > 0), TRUE));

WITH __tg_src AS NOT MATERIALIZED (
  SELECT "payment_id", "customer_id", "amount", "currency", rowid AS __tg_rid FROM __tg_input
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
  __tg_src."payment_id", __tg_src."customer_id", __tg_src."amount", __tg_src."currency", __tg_src.__tg_rid,
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "customer_total_bounded",
  COALESCE(NOT __tg_k0.__tg_m1, TRUE) AS "customer_single_currency",
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS "few_payments_per_id",
  COALESCE(NOT __tg_k2.__tg_m0, TRUE) AS "table_not_empty_total",
  COALESCE((round((amount * 100)) = (amount * 100)), TRUE) AS "amount_is_rounded",
  COALESCE(NOT __tg_k1.__tg_m1, TRUE) AS "primary_key",
  COALESCE("payment_id" IS NOT NULL, TRUE) AS "payment_id|nullability",
  COALESCE("amount" IS NOT NULL, TRUE) AS "amount|nullability",
  COALESCE(NOT __tg_k2.__tg_m1, TRUE) AS "amount|check__total_positive",
  COALESCE(NOT isinf("amount"), TRUE) AS "amount|inf",
  COALESCE(NOT isnan("amount"), TRUE) AS "amount|nan",
  COALESCE("currency" IS NOT NULL, TRUE) AS "currency|nullability"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."customer_id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
LEFT JOIN __tg_k1 ON __tg_src."payment_id" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
LEFT JOIN __tg_k2 ON TRUE
WHERE NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR NOT COALESCE(NOT __tg_k0.__tg_m1, TRUE)
   OR NOT COALESCE(NOT __tg_k1.__tg_m0, TRUE)
   OR NOT COALESCE(NOT __tg_k2.__tg_m0, TRUE)
   OR (NOT ((round((amount * 100)) = (amount * 100))))
   OR NOT COALESCE(NOT __tg_k1.__tg_m1, TRUE)
   OR (NOT ("payment_id" IS NOT NULL))
   OR (NOT ("amount" IS NOT NULL))
   OR NOT COALESCE(NOT __tg_k2.__tg_m1, TRUE)
   OR (NOT (NOT isinf("amount")))
   OR (NOT (NOT isnan("amount")))
   OR (NOT ("currency" IS NOT NULL));
