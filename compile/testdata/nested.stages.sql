CREATE TEMP TABLE __tg_keys0 AS
SELECT "address"."zip" AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM __tg_input AS __tg_src
  GROUP BY "address"."zip"
  HAVING (count(*) > 1);

CREATE TEMP TABLE __tg_keys1 AS
SELECT "ids" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM __tg_input AS __tg_src
  GROUP BY "ids"
  HAVING (count(*) > 1);

CREATE TEMP TABLE __tg_suspects AS
SELECT rowid AS __tg_rid FROM __tg_input SEMI JOIN __tg_keys0 AS __tg_k0 ON "address"."zip" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
UNION ALL
SELECT rowid AS __tg_rid FROM __tg_input SEMI JOIN __tg_keys1 AS __tg_k1 ON "ids" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0;

WITH __tg_src AS NOT MATERIALIZED (
  SELECT * FROM (SELECT "tags", "scores", "point", "grid", "address", "lines", "ids", rowid AS __tg_rid FROM __tg_input) AS __tg_s WHERE __tg_rid IN (SELECT __tg_rid FROM __tg_suspects) OR ((NOT ("tags" IS NOT NULL)) OR (NOT (len("tags") >= 1)) OR (NOT (len("tags") <= 5)) OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (len(list_distinct(list_transform("tags", lambda __tg_x0: [__tg_x0]))) = len("tags"))) OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: strlen(__tg_x0) >= 2)))) OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: regexp_matches(__tg_x0, '^[a-z]+$'))))) OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: __tg_x0 >= CAST('0' AS DOUBLE))))) OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: __tg_x0 <= CAST('100' AS DOUBLE))))) OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: NOT isinf(__tg_x0))))) OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: NOT isnan(__tg_x0))))) OR (NOT ("point" IS NOT NULL)) OR (NOT (list_bool_and(list_transform("point", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (list_bool_and(list_transform("point", lambda __tg_x0: __tg_x0 >= -1000)))) OR (NOT ("grid" IS NOT NULL)) OR (NOT (list_bool_and(list_transform("grid", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (list_bool_and(list_transform("grid", lambda __tg_x0_0: list_bool_and(list_transform(__tg_x0_0, lambda __tg_x0: list_bool_and(list_transform(__tg_x0, lambda __tg_x1: __tg_x1 IN (0, 1))))))))) OR (NOT ("address" IS NOT NULL)) OR (NOT (CASE WHEN "address" IS NULL THEN TRUE ELSE "address"."city" IS NOT NULL END)) OR (NOT (CASE WHEN "address" IS NULL THEN TRUE ELSE strlen("address"."city") >= 1 END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" IS NOT NULL END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" >= CAST('-90' AS DOUBLE) END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" <= CAST('90' AS DOUBLE) END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isinf("address"."geo"."lat") END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isnan("address"."geo"."lat") END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lon" IS NOT NULL END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE ((address.geo.lon BETWEEN -180 AND 180)) END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isinf("address"."geo"."lon") END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isnan("address"."geo"."lon") END)) OR (NOT ("lines" IS NOT NULL)) OR (NOT (len(list_distinct(list_transform("lines", lambda __tg_pk: {'sku': __tg_pk."sku"}))) = len("lines"))) OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."sku" IS NOT NULL END)))) OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."qty" IS NOT NULL END)))) OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."qty" >= 1 END)))) OR (NOT ("ids" IS NOT NULL)) OR (NOT ((len(ids) < 100))) OR (NOT (len(list_distinct(list_transform("ids", lambda __tg_pk: [__tg_pk]))) = len("ids"))) OR (NOT (list_bool_and(list_transform("ids", lambda __tg_x0: __tg_x0 IS NOT NULL)))))
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM __tg_keys0
),
__tg_k1 AS NOT MATERIALIZED (
  SELECT * FROM __tg_keys1
)
SELECT
  __tg_src."tags", __tg_src."scores", __tg_src."point", __tg_src."grid", __tg_src."address", __tg_src."lines", __tg_src."ids", __tg_src.__tg_rid,
  COALESCE("tags" IS NOT NULL, TRUE) AS "tags|nullability",
  COALESCE(len("tags") >= 1, TRUE) AS "tags|min_length",
  COALESCE(len("tags") <= 5, TRUE) AS "tags|max_length",
  COALESCE(list_bool_and(list_transform("tags", lambda __tg_x0: __tg_x0 IS NOT NULL)), TRUE) AS "tags|inner_nullability",
  COALESCE(len(list_distinct(list_transform("tags", lambda __tg_x0: [__tg_x0]))) = len("tags"), TRUE) AS "tags|inner_unique",
  COALESCE(list_bool_and(list_transform("tags", lambda __tg_x0: strlen(__tg_x0) >= 2)), TRUE) AS "tags|inner_min_length",
  COALESCE(list_bool_and(list_transform("tags", lambda __tg_x0: regexp_matches(__tg_x0, '^[a-z]+$'))), TRUE) AS "tags|inner_regex",
  COALESCE(list_bool_and(list_transform("scores", lambda __tg_x0: __tg_x0 >= CAST('0' AS DOUBLE))), TRUE) AS "scores|inner_min",
  COALESCE(list_bool_and(list_transform("scores", lambda __tg_x0: __tg_x0 <= CAST('100' AS DOUBLE))), TRUE) AS "scores|inner_max",
  COALESCE(list_bool_and(list_transform("scores", lambda __tg_x0: NOT isinf(__tg_x0))), TRUE) AS "scores|inner_inf",
  COALESCE(list_bool_and(list_transform("scores", lambda __tg_x0: NOT isnan(__tg_x0))), TRUE) AS "scores|inner_nan",
  COALESCE("point" IS NOT NULL, TRUE) AS "point|nullability",
  COALESCE(list_bool_and(list_transform("point", lambda __tg_x0: __tg_x0 IS NOT NULL)), TRUE) AS "point|inner_nullability",
  COALESCE(list_bool_and(list_transform("point", lambda __tg_x0: __tg_x0 >= -1000)), TRUE) AS "point|inner_min",
  COALESCE("grid" IS NOT NULL, TRUE) AS "grid|nullability",
  COALESCE(list_bool_and(list_transform("grid", lambda __tg_x0: __tg_x0 IS NOT NULL)), TRUE) AS "grid|inner_nullability",
  COALESCE(list_bool_and(list_transform("grid", lambda __tg_x0_0: list_bool_and(list_transform(__tg_x0_0, lambda __tg_x0: list_bool_and(list_transform(__tg_x0, lambda __tg_x1: __tg_x1 IN (0, 1))))))), TRUE) AS "grid|inner_inner_is_in",
  COALESCE("address" IS NOT NULL, TRUE) AS "address|nullability",
  COALESCE(CASE WHEN "address" IS NULL THEN TRUE ELSE "address"."city" IS NOT NULL END, TRUE) AS "address|inner_city_nullability",
  COALESCE(CASE WHEN "address" IS NULL THEN TRUE ELSE strlen("address"."city") >= 1 END, TRUE) AS "address|inner_city_min_length",
  (("address" IS NULL) OR COALESCE(NOT __tg_k0.__tg_m0, TRUE)) AS "address|inner_zip_unique",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" IS NOT NULL END, TRUE) AS "address|inner_geo_inner_lat_nullability",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" >= CAST('-90' AS DOUBLE) END, TRUE) AS "address|inner_geo_inner_lat_min",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" <= CAST('90' AS DOUBLE) END, TRUE) AS "address|inner_geo_inner_lat_max",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isinf("address"."geo"."lat") END, TRUE) AS "address|inner_geo_inner_lat_inf",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isnan("address"."geo"."lat") END, TRUE) AS "address|inner_geo_inner_lat_nan",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lon" IS NOT NULL END, TRUE) AS "address|inner_geo_inner_lon_nullability",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE ((address.geo.lon BETWEEN -180 AND 180)) END, TRUE) AS "address|inner_geo_inner_lon_check",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isinf("address"."geo"."lon") END, TRUE) AS "address|inner_geo_inner_lon_inf",
  COALESCE(CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isnan("address"."geo"."lon") END, TRUE) AS "address|inner_geo_inner_lon_nan",
  COALESCE("lines" IS NOT NULL, TRUE) AS "lines|nullability",
  COALESCE(len(list_distinct(list_transform("lines", lambda __tg_pk: {'sku': __tg_pk."sku"}))) = len("lines"), TRUE) AS "lines|primary_key",
  COALESCE(list_bool_and(list_transform("lines", lambda __tg_x0: __tg_x0 IS NOT NULL)), TRUE) AS "lines|inner_nullability",
  COALESCE(list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."sku" IS NOT NULL END)), TRUE) AS "lines|inner_inner_sku_nullability",
  COALESCE(list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."qty" IS NOT NULL END)), TRUE) AS "lines|inner_inner_qty_nullability",
  COALESCE(list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."qty" >= 1 END)), TRUE) AS "lines|inner_inner_qty_min",
  COALESCE("ids" IS NOT NULL, TRUE) AS "ids|nullability",
  COALESCE(NOT __tg_k1.__tg_m0, TRUE) AS "ids|unique",
  COALESCE((len(ids) < 100), TRUE) AS "ids|check",
  COALESCE(len(list_distinct(list_transform("ids", lambda __tg_pk: [__tg_pk]))) = len("ids"), TRUE) AS "ids|primary_key",
  COALESCE(list_bool_and(list_transform("ids", lambda __tg_x0: __tg_x0 IS NOT NULL)), TRUE) AS "ids|inner_nullability"
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src."address"."zip" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
LEFT JOIN __tg_k1 ON __tg_src."ids" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0
WHERE (NOT ("tags" IS NOT NULL))
   OR (NOT (len("tags") >= 1))
   OR (NOT (len("tags") <= 5))
   OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: __tg_x0 IS NOT NULL))))
   OR (NOT (len(list_distinct(list_transform("tags", lambda __tg_x0: [__tg_x0]))) = len("tags")))
   OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: strlen(__tg_x0) >= 2))))
   OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: regexp_matches(__tg_x0, '^[a-z]+$')))))
   OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: __tg_x0 >= CAST('0' AS DOUBLE)))))
   OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: __tg_x0 <= CAST('100' AS DOUBLE)))))
   OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: NOT isinf(__tg_x0)))))
   OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: NOT isnan(__tg_x0)))))
   OR (NOT ("point" IS NOT NULL))
   OR (NOT (list_bool_and(list_transform("point", lambda __tg_x0: __tg_x0 IS NOT NULL))))
   OR (NOT (list_bool_and(list_transform("point", lambda __tg_x0: __tg_x0 >= -1000))))
   OR (NOT ("grid" IS NOT NULL))
   OR (NOT (list_bool_and(list_transform("grid", lambda __tg_x0: __tg_x0 IS NOT NULL))))
   OR (NOT (list_bool_and(list_transform("grid", lambda __tg_x0_0: list_bool_and(list_transform(__tg_x0_0, lambda __tg_x0: list_bool_and(list_transform(__tg_x0, lambda __tg_x1: __tg_x1 IN (0, 1)))))))))
   OR (NOT ("address" IS NOT NULL))
   OR (NOT (CASE WHEN "address" IS NULL THEN TRUE ELSE "address"."city" IS NOT NULL END))
   OR (NOT (CASE WHEN "address" IS NULL THEN TRUE ELSE strlen("address"."city") >= 1 END))
   OR NOT (("address" IS NULL) OR COALESCE(NOT __tg_k0.__tg_m0, TRUE))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" IS NOT NULL END))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" >= CAST('-90' AS DOUBLE) END))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" <= CAST('90' AS DOUBLE) END))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isinf("address"."geo"."lat") END))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isnan("address"."geo"."lat") END))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lon" IS NOT NULL END))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE ((address.geo.lon BETWEEN -180 AND 180)) END))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isinf("address"."geo"."lon") END))
   OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isnan("address"."geo"."lon") END))
   OR (NOT ("lines" IS NOT NULL))
   OR (NOT (len(list_distinct(list_transform("lines", lambda __tg_pk: {'sku': __tg_pk."sku"}))) = len("lines")))
   OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: __tg_x0 IS NOT NULL))))
   OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."sku" IS NOT NULL END))))
   OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."qty" IS NOT NULL END))))
   OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."qty" >= 1 END))))
   OR (NOT ("ids" IS NOT NULL))
   OR NOT COALESCE(NOT __tg_k1.__tg_m0, TRUE)
   OR (NOT ((len(ids) < 100)))
   OR (NOT (len(list_distinct(list_transform("ids", lambda __tg_pk: [__tg_pk]))) = len("ids")))
   OR (NOT (list_bool_and(list_transform("ids", lambda __tg_x0: __tg_x0 IS NOT NULL))));
