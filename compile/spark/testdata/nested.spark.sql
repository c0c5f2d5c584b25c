WITH __tg_src AS (
  SELECT `tags`, `scores`, `grid`, `address`, `lines`, `ids`, __tg_rid AS __tg_rid FROM __tg_input
),
__tg_k0 AS (
  SELECT `address`.`zip` AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM __tg_src
  GROUP BY `address`.`zip`
  HAVING (count(*) > 1)
),
__tg_k1 AS (
  SELECT `ids` AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM __tg_src
  GROUP BY `ids`
  HAVING (count(*) > 1)
)
SELECT
  __tg_src.`tags`, __tg_src.`scores`, __tg_src.`grid`, __tg_src.`address`, __tg_src.`lines`, __tg_src.`ids`, __tg_src.__tg_rid,
  COALESCE(`tags` IS NOT NULL, TRUE) AS `tags|nullability`,
  COALESCE(array_size(`tags`) >= 1, TRUE) AS `tags|min_length`,
  COALESCE(array_size(`tags`) <= 5, TRUE) AS `tags|max_length`,
  COALESCE(forall(`tags`, __tg_x0 -> __tg_x0 IS NOT NULL), TRUE) AS `tags|inner_nullability`,
  COALESCE(array_size(array_distinct(transform(`tags`, __tg_x0 -> __tg_x0))) = array_size(`tags`), TRUE) AS `tags|inner_unique`,
  COALESCE(forall(`tags`, __tg_x0 -> octet_length(__tg_x0) >= 2), TRUE) AS `tags|inner_min_length`,
  COALESCE(forall(`tags`, __tg_x0 -> __tg_x0 RLIKE '\\A(?:[\\x{61}-\\x{7A}])+\\z'), TRUE) AS `tags|inner_regex`,
  COALESCE(forall(`scores`, __tg_x0 -> __tg_x0 >= CAST('0' AS DOUBLE)), TRUE) AS `scores|inner_min`,
  COALESCE(forall(`scores`, __tg_x0 -> __tg_x0 <= CAST('100' AS DOUBLE)), TRUE) AS `scores|inner_max`,
  COALESCE(forall(`scores`, __tg_x0 -> NOT (abs(__tg_x0) = CAST('Infinity' AS DOUBLE))), TRUE) AS `scores|inner_inf`,
  COALESCE(forall(`scores`, __tg_x0 -> NOT isnan(__tg_x0)), TRUE) AS `scores|inner_nan`,
  COALESCE(forall(`grid`, __tg_x0 -> __tg_x0 IS NOT NULL), TRUE) AS `grid|inner_nullability`,
  COALESCE(forall(`grid`, __tg_x0 -> forall(__tg_x0, __tg_x1 -> __tg_x1 IN (0, 1))), TRUE) AS `grid|inner_inner_is_in`,
  COALESCE(`address` IS NOT NULL, TRUE) AS `address|nullability`,
  COALESCE(CASE WHEN `address` IS NULL THEN TRUE ELSE `address`.`city` IS NOT NULL END, TRUE) AS `address|inner_city_nullability`,
  COALESCE(CASE WHEN `address` IS NULL THEN TRUE ELSE octet_length(`address`.`city`) >= 1 END, TRUE) AS `address|inner_city_min_length`,
  ((`address` IS NULL) OR COALESCE(NOT __tg_k0.__tg_m0, TRUE)) AS `address|inner_zip_unique`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE `address`.`geo`.`lat` IS NOT NULL END, TRUE) AS `address|inner_geo_inner_lat_nullability`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE `address`.`geo`.`lat` >= CAST('-90' AS DOUBLE) END, TRUE) AS `address|inner_geo_inner_lat_min`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE `address`.`geo`.`lat` <= CAST('90' AS DOUBLE) END, TRUE) AS `address|inner_geo_inner_lat_max`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE NOT (abs(`address`.`geo`.`lat`) = CAST('Infinity' AS DOUBLE)) END, TRUE) AS `address|inner_geo_inner_lat_inf`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE NOT isnan(`address`.`geo`.`lat`) END, TRUE) AS `address|inner_geo_inner_lat_nan`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE `address`.`geo`.`lon` IS NOT NULL END, TRUE) AS `address|inner_geo_inner_lon_nullability`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE ((`address`.`geo`.`lon` BETWEEN -180 AND 180)) END, TRUE) AS `address|inner_geo_inner_lon_check`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE NOT (abs(`address`.`geo`.`lon`) = CAST('Infinity' AS DOUBLE)) END, TRUE) AS `address|inner_geo_inner_lon_inf`,
  COALESCE(CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE NOT isnan(`address`.`geo`.`lon`) END, TRUE) AS `address|inner_geo_inner_lon_nan`,
  COALESCE(`lines` IS NOT NULL, TRUE) AS `lines|nullability`,
  COALESCE(array_size(array_distinct(transform(`lines`, __tg_pk -> named_struct('sku', __tg_pk.`sku`)))) = array_size(`lines`), TRUE) AS `lines|primary_key`,
  COALESCE(forall(`lines`, __tg_x0 -> __tg_x0 IS NOT NULL), TRUE) AS `lines|inner_nullability`,
  COALESCE(forall(`lines`, __tg_x0 -> CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0.`sku` IS NOT NULL END), TRUE) AS `lines|inner_inner_sku_nullability`,
  COALESCE((array_size(array_distinct(transform(filter(`lines`, __tg_x0 -> NOT (__tg_x0 IS NULL)), __tg_x0 -> __tg_x0.`sku`))) = array_size(filter(`lines`, __tg_x0 -> NOT (__tg_x0 IS NULL))) AND NOT (exists(`lines`, __tg_x0 -> (__tg_x0 IS NULL)) AND exists(filter(`lines`, __tg_x0 -> NOT (__tg_x0 IS NULL)), __tg_x0 -> __tg_x0.`sku` IS NULL))), TRUE) AS `lines|inner_inner_sku_unique`,
  COALESCE(forall(`lines`, __tg_x0 -> CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0.`qty` IS NOT NULL END), TRUE) AS `lines|inner_inner_qty_nullability`,
  COALESCE(forall(`lines`, __tg_x0 -> CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0.`qty` >= 1 END), TRUE) AS `lines|inner_inner_qty_min`,
  COALESCE(`ids` IS NOT NULL, TRUE) AS `ids|nullability`,
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS `ids|unique`,
  COALESCE((array_size(`ids`) < 100), TRUE) AS `ids|check`,
  COALESCE(array_size(array_distinct(transform(`ids`, __tg_pk -> __tg_pk))) = array_size(`ids`), TRUE) AS `ids|primary_key`,
  COALESCE(forall(`ids`, __tg_x0 -> __tg_x0 IS NOT NULL), TRUE) AS `ids|inner_nullability`
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src.`address`.`zip` <=> __tg_k0.__tg_k0_0
LEFT JOIN __tg_k1 ON __tg_src.`ids` <=> __tg_k1.__tg_k1_0;

-- rules
tags|nullability	`tags` IS NOT NULL
tags|min_length	array_size(`tags`) >= 1
tags|max_length	array_size(`tags`) <= 5
tags|inner_nullability	forall(`tags`, __tg_x0 -> __tg_x0 IS NOT NULL)
tags|inner_unique	array_size(array_distinct(transform(`tags`, __tg_x0 -> __tg_x0))) = array_size(`tags`)
tags|inner_min_length	forall(`tags`, __tg_x0 -> octet_length(__tg_x0) >= 2)
tags|inner_regex	forall(`tags`, __tg_x0 -> __tg_x0 RLIKE '\\A(?:[\\x{61}-\\x{7A}])+\\z')
scores|inner_min	forall(`scores`, __tg_x0 -> __tg_x0 >= CAST('0' AS DOUBLE))
scores|inner_max	forall(`scores`, __tg_x0 -> __tg_x0 <= CAST('100' AS DOUBLE))
scores|inner_inf	forall(`scores`, __tg_x0 -> NOT (abs(__tg_x0) = CAST('Infinity' AS DOUBLE)))
scores|inner_nan	forall(`scores`, __tg_x0 -> NOT isnan(__tg_x0))
grid|inner_nullability	forall(`grid`, __tg_x0 -> __tg_x0 IS NOT NULL)
grid|inner_inner_is_in	forall(`grid`, __tg_x0 -> forall(__tg_x0, __tg_x1 -> __tg_x1 IN (0, 1)))
address|nullability	`address` IS NOT NULL
address|inner_city_nullability	CASE WHEN `address` IS NULL THEN TRUE ELSE `address`.`city` IS NOT NULL END
address|inner_city_min_length	CASE WHEN `address` IS NULL THEN TRUE ELSE octet_length(`address`.`city`) >= 1 END
address|inner_zip_unique	count(*) = 1 per (`address`.`zip`)
address|inner_geo_inner_lat_nullability	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE `address`.`geo`.`lat` IS NOT NULL END
address|inner_geo_inner_lat_min	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE `address`.`geo`.`lat` >= CAST('-90' AS DOUBLE) END
address|inner_geo_inner_lat_max	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE `address`.`geo`.`lat` <= CAST('90' AS DOUBLE) END
address|inner_geo_inner_lat_inf	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE NOT (abs(`address`.`geo`.`lat`) = CAST('Infinity' AS DOUBLE)) END
address|inner_geo_inner_lat_nan	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE NOT isnan(`address`.`geo`.`lat`) END
address|inner_geo_inner_lon_nullability	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE `address`.`geo`.`lon` IS NOT NULL END
address|inner_geo_inner_lon_check	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE ((`address`.`geo`.`lon` BETWEEN -180 AND 180)) END
address|inner_geo_inner_lon_inf	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE NOT (abs(`address`.`geo`.`lon`) = CAST('Infinity' AS DOUBLE)) END
address|inner_geo_inner_lon_nan	CASE WHEN `address`.`geo` IS NULL THEN TRUE ELSE NOT isnan(`address`.`geo`.`lon`) END
lines|nullability	`lines` IS NOT NULL
lines|primary_key	array_size(array_distinct(transform(`lines`, __tg_pk -> named_struct('sku', __tg_pk.`sku`)))) = array_size(`lines`)
lines|inner_nullability	forall(`lines`, __tg_x0 -> __tg_x0 IS NOT NULL)
lines|inner_inner_sku_nullability	forall(`lines`, __tg_x0 -> CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0.`sku` IS NOT NULL END)
lines|inner_inner_sku_unique	(array_size(array_distinct(transform(filter(`lines`, __tg_x0 -> NOT (__tg_x0 IS NULL)), __tg_x0 -> __tg_x0.`sku`))) = array_size(filter(`lines`, __tg_x0 -> NOT (__tg_x0 IS NULL))) AND NOT (exists(`lines`, __tg_x0 -> (__tg_x0 IS NULL)) AND exists(filter(`lines`, __tg_x0 -> NOT (__tg_x0 IS NULL)), __tg_x0 -> __tg_x0.`sku` IS NULL)))
lines|inner_inner_qty_nullability	forall(`lines`, __tg_x0 -> CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0.`qty` IS NOT NULL END)
lines|inner_inner_qty_min	forall(`lines`, __tg_x0 -> CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0.`qty` >= 1 END)
ids|nullability	`ids` IS NOT NULL
ids|unique	count(*) = 1 per (`ids`)
ids|check	(array_size(`ids`) < 100)
ids|primary_key	array_size(array_distinct(transform(`ids`, __tg_pk -> __tg_pk))) = array_size(`ids`)
ids|inner_nullability	forall(`ids`, __tg_x0 -> __tg_x0 IS NOT NULL)
