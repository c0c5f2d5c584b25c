CREATE TEMP TABLE __tg_keys0 AS
SELECT "customer_id" AS __tg_k0_0, (NOT COALESCE((sum(amount) < 1000000), TRUE)) AS __tg_m0
  FROM __tg_input AS __tg_src
  GROUP BY "customer_id"
  HAVING (NOT COALESCE((sum(amount) < 1000000), TRUE));

CREATE TEMP TABLE __tg_keys1 AS
SELECT "order_id" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM __tg_input AS __tg_src
  GROUP BY "order_id"
  HAVING (count(*) > 1);

WITH __tg_src AS NOT MATERIALIZED (
  SELECT "order_id", "customer_id", "amount", "note", "email", rowid AS __tg_rid FROM __tg_input
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM __tg_keys0
),
__tg_k1 AS NOT MATERIALIZED (
  SELECT * FROM __tg_keys1
)
SELECT
  __tg_src."order_id", __tg_src."customer_id", __tg_src."amount", __tg_src."note", __tg_src."email", __tg_src.__tg_rid,
  COALESCE(("trim"(order_id) != ''), TRUE) AS "order_id_not_blank",
  COALESCE((round((amount * 100)) = (amount * 100)), TRUE) AS "amount_is_rounded",
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS "customer_total_bounded",
  COALESCE(((note IS NULL) OR (amount > 0)), TRUE) AS "paid_orders_have_amount",
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS "primary_key",
  COALESCE("order_id" IS NOT NULL, TRUE) AS "order_id|nullability",
  COALESCE(regexp_matches("order_id", '^ORD-\d{4}$'), TRUE) AS "order_id|regex",
  COALESCE("customer_id" IS NOT NULL, TRUE) AS "customer_id|nullability",
  COALESCE("amount" IS NOT NULL, TRUE) AS "amount|nullability",
  COALESCE("amount" >= CAST('0' AS DOUBLE), TRUE) AS "amount|min",
  COALESCE(NOT isinf("amount"), TRUE) AS "amount|inf",
  COALESCE(NOT isnan("amount"), TRUE) AS "amount|nan",
  COALESCE(strlen("note") <= 100, TRUE) AS "note|max_length",
  COALESCE("email" IS NOT NULL, TRUE) AS "email|nullability",
  COALESCE((lower(email) = email), TRUE) AS "email|check__lowercase"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."customer_id" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
LEFT JOIN __tg_k1 ON __tg_src."order_id" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
WHERE (NOT (("trim"(order_id) != '')))
   OR (NOT ((round((amount * 100)) = (amount * 100))))
   OR NOT COALESCE(NOT __tg_k0.__tg_m0, TRUE)
   OR (NOT (((note IS NULL) OR (amount > 0))))
   OR NOT COALESCE(NOT __tg_k1.__tg_m0, TRUE)
   OR (NOT ("order_id" IS NOT NULL))
   OR (NOT (regexp_matches("order_id", '^ORD-\d{4}$')))
   OR (NOT ("customer_id" IS NOT NULL))
   OR (NOT ("amount" IS NOT NULL))
   OR (NOT ("amount" >= CAST('0' AS DOUBLE)))
   OR (NOT (NOT isinf("amount")))
   OR (NOT (NOT isnan("amount")))
   OR (NOT (strlen("note") <= 100))
   OR (NOT ("email" IS NOT NULL))
   OR (NOT ((lower(email) = email)));
