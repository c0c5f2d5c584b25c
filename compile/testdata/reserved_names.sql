WITH __tg_src AS NOT MATERIALIZED (
  SELECT "select", "order", "from", "group", "CustomerID", "user", "limit", rowid AS __tg_rid FROM __tg_input
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT "CustomerID" AS __tg_k0_0, "group" AS __tg_k0_1, (NOT COALESCE((count_star() < 10), TRUE)) AS __tg_m0
  FROM __tg_src
  GROUP BY "CustomerID", "group"
  HAVING (NOT COALESCE((count_star() < 10), TRUE))
),
__tg_k1 AS NOT MATERIALIZED (
  SELECT "select" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM __tg_src
  GROUP BY "select"
  HAVING (count(*) > 1)
),
__tg_k2 AS NOT MATERIALIZED (
  SELECT "group" AS __tg_k2_0, (count(*) > 1) AS __tg_m0
  FROM __tg_src
  GROUP BY "group"
  HAVING (count(*) > 1)
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
LEFT JOIN __tg_k2 ON __tg_src."group" IS NOT DISTINCT FROM __tg_k2.__tg_k2_0;
