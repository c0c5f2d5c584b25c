WITH __tg_src AS (
  SELECT `order`, `vendor`, `sku`, __tg_rid AS __tg_rid FROM __tg_input
)
SELECT
  __tg_src.`order`, __tg_src.`vendor`, __tg_src.`sku`, __tg_src.__tg_rid,
  (`vendor` IS NULL OR `sku` IS NULL OR (`vendor`, `sku`) IN (SELECT `vendor`, `select` FROM parquet.`s3a://lake/products/*.parquet` WHERE `vendor` IS NOT NULL AND `select` IS NOT NULL)) AS `known_product`,
  COALESCE(`order` IS NOT NULL, TRUE) AS `order|nullability`,
  COALESCE((`order` IS NULL OR `order` IN (SELECT `id` FROM parquet.`file:///TESTDATA/orders.parquet` WHERE `id` IS NOT NULL)), TRUE) AS `order|references`,
  COALESCE(`vendor` IS NOT NULL, TRUE) AS `vendor|nullability`,
  COALESCE(`sku` IS NOT NULL, TRUE) AS `sku|nullability`
FROM __tg_src;

-- rules
known_product	(`vendor` IS NULL OR `sku` IS NULL OR (`vendor`, `sku`) IN (SELECT `vendor`, `select` FROM parquet.`s3a://lake/products/*.parquet` WHERE `vendor` IS NOT NULL AND `select` IS NOT NULL))
order|nullability	`order` IS NOT NULL
order|references	(`order` IS NULL OR `order` IN (SELECT `id` FROM parquet.`file:///TESTDATA/orders.parquet` WHERE `id` IS NOT NULL))
vendor|nullability	`vendor` IS NOT NULL
sku|nullability	`sku` IS NOT NULL
