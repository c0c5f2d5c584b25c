WITH __tg_src AS (
  SELECT `customer_id`, `payment_no`, `amount`, `currency`, __tg_rid AS __tg_rid FROM __tg_input
),
__tg_k0 AS (
  SELECT `customer_id` AS __tg_k0_0, (NOT COALESCE((sum(amount) < 1000000), TRUE)) AS __tg_m0, (NOT COALESCE((count(DISTINCT currency) = 1), TRUE)) AS __tg_m1
  FROM __tg_src
  GROUP BY `customer_id`
  HAVING (NOT COALESCE((sum(amount) < 1000000), TRUE)) OR (NOT COALESCE((count(DISTINCT currency) = 1), TRUE))
),
__tg_k1 AS (
  SELECT `customer_id` AS __tg_k1_0, `payment_no` AS __tg_k1_1, (NOT COALESCE((count(*) <= 1), TRUE)) AS __tg_m0, (count(*) > 1) AS __tg_m1
  FROM __tg_src
  GROUP BY `customer_id`, `payment_no`
  HAVING (NOT COALESCE((count(*) <= 1), TRUE)) OR (count(*) > 1)
),
__tg_k2 AS (
  SELECT (NOT COALESCE((sum(amount) IS NOT NULL), TRUE)) AS __tg_m0, (NOT COALESCE((sum(`amount`) > 0), TRUE)) AS __tg_m1
  FROM __tg_src
  HAVING (NOT COALESCE((sum(amount) IS NOT NULL), TRUE)) OR (NOT COALESCE((sum(`amount`) > 0), TRUE))
),
__tg_k3 AS (
  SELECT `currency` AS __tg_k3_0, (count(*) > 1) AS __tg_m0
  FROM __tg_src
  GROUP BY `currency`
  HAVING (count(*) > 1)
)
SELECT
  __tg_src.`customer_id`, __tg_src.`payment_no`, __tg_src.`amount`, __tg_src.`currency`, __tg_src.__tg_rid,
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS `customer_total_bounded`,
  COALESCE(NOT __tg_k0.__tg_m1, TRUE) AS `customer_single_currency`,
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS `few_payments_per_key`,
  COALESCE(NOT __tg_k2.__tg_m0, TRUE) AS `table_total`,
  COALESCE((round(amount * 100) = amount * 100), TRUE) AS `amount_is_rounded`,
  COALESCE(NOT __tg_k1.__tg_m1, TRUE) AS `primary_key`,
  COALESCE(`customer_id` IS NOT NULL, TRUE) AS `customer_id|nullability`,
  COALESCE(`payment_no` IS NOT NULL, TRUE) AS `payment_no|nullability`,
  COALESCE(`amount` IS NOT NULL, TRUE) AS `amount|nullability`,
  COALESCE(NOT __tg_k2.__tg_m1, TRUE) AS `amount|check__total_positive`,
  COALESCE(NOT (abs(`amount`) = CAST('Infinity' AS DOUBLE)), TRUE) AS `amount|inf`,
  COALESCE(NOT isnan(`amount`), TRUE) AS `amount|nan`,
  COALESCE(`currency` IS NOT NULL, TRUE) AS `currency|nullability`,
  COALESCE(NOT __tg_k3.__tg_m0, TRUE) AS `currency|unique`
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src.`customer_id` <=> __tg_k0.__tg_k0_0
LEFT JOIN __tg_k1 ON __tg_src.`customer_id` <=> __tg_k1.__tg_k1_0 AND __tg_src.`payment_no` <=> __tg_k1.__tg_k1_1
LEFT JOIN __tg_k2 ON TRUE
LEFT JOIN __tg_k3 ON __tg_src.`currency` <=> __tg_k3.__tg_k3_0;

-- rules
customer_total_bounded	(sum(amount) < 1000000)
customer_single_currency	(count(DISTINCT currency) = 1)
few_payments_per_key	(count(*) <= 1)
table_total	(sum(amount) IS NOT NULL)
amount_is_rounded	(round(amount * 100) = amount * 100)
primary_key	count(*) = 1 per (`customer_id`, `payment_no`)
customer_id|nullability	`customer_id` IS NOT NULL
payment_no|nullability	`payment_no` IS NOT NULL
amount|nullability	`amount` IS NOT NULL
amount|check__total_positive	(sum(`amount`) > 0)
amount|inf	NOT (abs(`amount`) = CAST('Infinity' AS DOUBLE))
amount|nan	NOT isnan(`amount`)
currency|nullability	`currency` IS NOT NULL
currency|unique	count(*) = 1 per (`currency`)
