WITH __tg_src AS (
  SELECT `id`, `order`, `size`, `placed_at`, __tg_rid AS __tg_rid FROM __tg_input
)
SELECT
  __tg_src.`id`, __tg_src.`order`, __tg_src.`size`, __tg_src.`placed_at`, __tg_src.__tg_rid,
  COALESCE(`id` IS NOT NULL, TRUE) AS `id|nullability`,
  COALESCE(`id` >= 0, TRUE) AS `id|min`,
  COALESCE(NOT (abs(`size`) = CAST('Infinity' AS DOUBLE)), TRUE) AS `size|inf`,
  COALESCE(NOT isnan(`size`), TRUE) AS `size|nan`,
  COALESCE(`placed_at` IS NOT NULL, TRUE) AS `placed_at|nullability`
FROM __tg_src;

-- rules
id|nullability	`id` IS NOT NULL
id|min	`id` >= 0
size|inf	NOT (abs(`size`) = CAST('Infinity' AS DOUBLE))
size|nan	NOT isnan(`size`)
placed_at|nullability	`placed_at` IS NOT NULL

-- table checks
SELECT CAST((count(*)) AS STRING) AS `enough_rows`,
  CAST((count_if(`order` IS NULL) / count(*)) AS DOUBLE) AS `order_null_share`,
  (count(DISTINCT `id`) = count(*)) AS `ids_unique`,
  CAST((count(DISTINCT `id`)) AS STRING) AS `ids_unique__side1`,
  CAST((count(*)) AS STRING) AS `ids_unique__side2`,
  (element_at($1, 1) <= 0.05 * count(*)) AS `few_invalid`,
  CAST((element_at($1, 1)) AS STRING) AS `few_invalid__side1`,
  CAST((0.05 * count(*)) AS STRING) AS `few_invalid__side2`,
  (element_at($1, 3) = 0) AS `no_negative_ids`,
  CAST((element_at($1, 3)) AS STRING) AS `no_negative_ids__side1`,
  CAST((sum(`size`)) AS DOUBLE) AS `size_total`,
  (max(placed_at) >= TIMESTAMP_NTZ '2026-01-01 00:00:00') AS `fresh`,
  CAST((max(placed_at)) AS STRING) AS `fresh__side1`,
  CAST(round((unix_micros(current_timestamp()) - unix_micros(CAST((max(placed_at)) AS TIMESTAMP))) / 1000000.0) AS BIGINT) AS `fresh__age1`,
  CAST((TIMESTAMP_NTZ '2026-01-01 00:00:00') AS STRING) AS `fresh__side2`,
  (count_if(`order` = 'Prüfung \'test\'') = 0) AS `no_test_orders`,
  CAST((count_if(`order` = 'Prüfung \'test\'')) AS STRING) AS `no_test_orders__side1`,
  CAST((count(*)) AS STRING) AS `volume`
FROM __tg_flagged AS __tg_src;
