-- 1. fit the perfect hash to the rows: run
SET SESSION perfect_ht_threshold = 20;

-- 2. give the key aggregates their threads: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 3. give the key aggregates their threads: raise the threads, unless raised
SET threads = 3;

-- 4. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys0_1" AS SELECT "address"."zip" AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "address"."zip"
  HAVING (count(*) > 1);

-- 5. evaluate the key rules: run (key aggregate)
CREATE OR REPLACE TEMP TABLE temp.main."__tg_keys1_1" AS SELECT "ids" AS __tg_k1_0, (count(*) > 1) AS __tg_m0
  FROM read_parquet('in.parquet', can_have_nan = true) AS __tg_src
  GROUP BY "ids"
  HAVING (count(*) > 1);

-- 6. give the threads back: read the threads
SELECT CAST(current_setting('threads') AS BIGINT);

-- 7. give the threads back: restore the threads ($1, the count read), if the last run aggregating keys
SET threads = $1;

-- 8. find the rows that may fail a rule: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspects_1" AS SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys0_1" AS __tg_k0 ON "address"."zip" IS NOT DISTINCT FROM __tg_k0.__tg_k0_0
UNION ALL
SELECT file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true) SEMI JOIN temp.main."__tg_keys1_1" AS __tg_k1 ON "ids" IS NOT DISTINCT FROM __tg_k1.__tg_k1_0;

-- 9. index the failing rows: run
CREATE OR REPLACE TEMP TABLE temp.main."__tg_suspect_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM temp.main."__tg_suspects_1") GROUP BY block;

-- 10. index the failing rows: run
SET VARIABLE __tg_suspect_1_0 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 0);

-- 11. index the failing rows: run
SET VARIABLE __tg_suspect_1_1 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 1);

-- 12. index the failing rows: run
SET VARIABLE __tg_suspect_1_2 = (SELECT bits FROM temp.main."__tg_suspect_blocks_1" WHERE block = 2);

-- 13. evaluate the rules: run
CREATE OR REPLACE TEMP TABLE "__tg_failed_1" AS
WITH __tg_src AS NOT MATERIALIZED (
  SELECT * FROM (SELECT "tags", "scores", "point", "grid", "address", "lines", "ids", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS __tg_s WHERE CASE WHEN __tg_rid < 1048576 THEN CASE WHEN __tg_rid >= 0 AND __tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_suspect_1_0'), CAST(__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid < 2097152 THEN CASE WHEN __tg_rid >= 1048576 AND __tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_suspect_1_1'), CAST(__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN __tg_rid >= 2097152 AND __tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_suspect_1_2'), CAST(__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END OR ((NOT ("tags" IS NOT NULL)) OR (NOT (len("tags") >= 1)) OR (NOT (len("tags") <= 5)) OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (len(list_distinct(list_transform("tags", lambda __tg_x0: [__tg_x0]))) = len("tags"))) OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: strlen(__tg_x0) >= 2)))) OR (NOT (list_bool_and(list_transform("tags", lambda __tg_x0: regexp_matches(__tg_x0, '^[a-z]+$'))))) OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: __tg_x0 >= CAST('0' AS DOUBLE))))) OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: __tg_x0 <= CAST('100' AS DOUBLE))))) OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: NOT isinf(__tg_x0))))) OR (NOT (list_bool_and(list_transform("scores", lambda __tg_x0: NOT isnan(__tg_x0))))) OR (NOT ("point" IS NOT NULL)) OR (NOT (list_bool_and(list_transform("point", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (list_bool_and(list_transform("point", lambda __tg_x0: __tg_x0 >= -1000)))) OR (NOT ("grid" IS NOT NULL)) OR (NOT (list_bool_and(list_transform("grid", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (list_bool_and(list_transform("grid", lambda __tg_x0_0: list_bool_and(list_transform(__tg_x0_0, lambda __tg_x0: list_bool_and(list_transform(__tg_x0, lambda __tg_x1: __tg_x1 IN (0, 1))))))))) OR (NOT ("address" IS NOT NULL)) OR (NOT (CASE WHEN "address" IS NULL THEN TRUE ELSE "address"."city" IS NOT NULL END)) OR (NOT (CASE WHEN "address" IS NULL THEN TRUE ELSE strlen("address"."city") >= 1 END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" IS NOT NULL END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" >= CAST('-90' AS DOUBLE) END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lat" <= CAST('90' AS DOUBLE) END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isinf("address"."geo"."lat") END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isnan("address"."geo"."lat") END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE "address"."geo"."lon" IS NOT NULL END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE ((address.geo.lon BETWEEN -180 AND 180)) END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isinf("address"."geo"."lon") END)) OR (NOT (CASE WHEN "address"."geo" IS NULL THEN TRUE ELSE NOT isnan("address"."geo"."lon") END)) OR (NOT ("lines" IS NOT NULL)) OR (NOT (len(list_distinct(list_transform("lines", lambda __tg_pk: {'sku': __tg_pk."sku"}))) = len("lines"))) OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: __tg_x0 IS NOT NULL)))) OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."sku" IS NOT NULL END)))) OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."qty" IS NOT NULL END)))) OR (NOT (list_bool_and(list_transform("lines", lambda __tg_x0: CASE WHEN __tg_x0 IS NULL THEN TRUE ELSE __tg_x0."qty" >= 1 END)))) OR (NOT ("ids" IS NOT NULL)) OR (NOT ((len(ids) < 100))) OR (NOT (len(list_distinct(list_transform("ids", lambda __tg_pk: [__tg_pk]))) = len("ids"))) OR (NOT (list_bool_and(list_transform("ids", lambda __tg_x0: __tg_x0 IS NOT NULL)))))
),
__tg_k0 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys0_1"
),
__tg_k1 AS NOT MATERIALIZED (
  SELECT * FROM temp.main."__tg_keys1_1"
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

-- 14. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 15. free the failing keys: run
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 16. count failures: read the counts
SELECT coalesce(count_if(NOT ("tags|nullability" AND "tags|min_length" AND "tags|max_length" AND "tags|inner_nullability" AND "tags|inner_unique" AND "tags|inner_min_length" AND "tags|inner_regex" AND "scores|inner_min" AND "scores|inner_max" AND "scores|inner_inf" AND "scores|inner_nan" AND "point|nullability" AND "point|inner_nullability" AND "point|inner_min" AND "grid|nullability" AND "grid|inner_nullability" AND "grid|inner_inner_is_in" AND "address|nullability" AND "address|inner_city_nullability" AND "address|inner_city_min_length" AND "address|inner_geo_inner_lat_nullability" AND "address|inner_geo_inner_lat_min" AND "address|inner_geo_inner_lat_max" AND "address|inner_geo_inner_lat_inf" AND "address|inner_geo_inner_lat_nan" AND "address|inner_geo_inner_lon_nullability" AND "address|inner_geo_inner_lon_inf" AND "address|inner_geo_inner_lon_nan" AND "lines|nullability" AND "lines|primary_key" AND "lines|inner_nullability" AND "lines|inner_inner_sku_nullability" AND "lines|inner_inner_qty_nullability" AND "lines|inner_inner_qty_min" AND "ids|nullability" AND "ids|unique" AND "ids|check" AND "ids|primary_key" AND "ids|inner_nullability")), 0), count(*) FROM "__tg_failed_1";

-- 17. count failures per rule (1 to 41): read the counts of the next rules; when some rule fails
SELECT coalesce(count_if(NOT "tags|nullability"), 0), coalesce(count_if(NOT "tags|min_length"), 0), coalesce(count_if(NOT "tags|max_length"), 0), coalesce(count_if(NOT "tags|inner_nullability"), 0), coalesce(count_if(NOT "tags|inner_unique"), 0), coalesce(count_if(NOT "tags|inner_min_length"), 0), coalesce(count_if(NOT "tags|inner_regex"), 0), coalesce(count_if(NOT "scores|inner_min"), 0), coalesce(count_if(NOT "scores|inner_max"), 0), coalesce(count_if(NOT "scores|inner_inf"), 0), coalesce(count_if(NOT "scores|inner_nan"), 0), coalesce(count_if(NOT "point|nullability"), 0), coalesce(count_if(NOT "point|inner_nullability"), 0), coalesce(count_if(NOT "point|inner_min"), 0), coalesce(count_if(NOT "grid|nullability"), 0), coalesce(count_if(NOT "grid|inner_nullability"), 0), coalesce(count_if(NOT "grid|inner_inner_is_in"), 0), coalesce(count_if(NOT "address|nullability"), 0), coalesce(count_if(NOT "address|inner_city_nullability"), 0), coalesce(count_if(NOT "address|inner_city_min_length"), 0), coalesce(count_if(NOT "address|inner_zip_unique"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lat_nullability"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lat_min"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lat_max"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lat_inf"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lat_nan"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lon_nullability"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lon_check"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lon_inf"), 0), coalesce(count_if(NOT "address|inner_geo_inner_lon_nan"), 0), coalesce(count_if(NOT "lines|nullability"), 0), coalesce(count_if(NOT "lines|primary_key"), 0), coalesce(count_if(NOT "lines|inner_nullability"), 0), coalesce(count_if(NOT "lines|inner_inner_sku_nullability"), 0), coalesce(count_if(NOT "lines|inner_inner_qty_nullability"), 0), coalesce(count_if(NOT "lines|inner_inner_qty_min"), 0), coalesce(count_if(NOT "ids|nullability"), 0), coalesce(count_if(NOT "ids|unique"), 0), coalesce(count_if(NOT "ids|check"), 0), coalesce(count_if(NOT "ids|primary_key"), 0), coalesce(count_if(NOT "ids|inner_nullability"), 0) FROM "__tg_failed_1";

-- 18. sample failing rows: read the sampled ordinals; when some check shows failing rows
SELECT k, CAST(__tg_rid AS VARCHAR) FROM (SELECT __tg_rid, unnest(list_filter([CASE WHEN NOT "tags|nullability" THEN 1 END, CASE WHEN NOT "tags|min_length" THEN 2 END, CASE WHEN NOT "tags|max_length" THEN 3 END, CASE WHEN NOT "tags|inner_nullability" THEN 4 END, CASE WHEN NOT "tags|inner_unique" THEN 5 END, CASE WHEN NOT "tags|inner_min_length" THEN 6 END, CASE WHEN NOT "tags|inner_regex" THEN 7 END, CASE WHEN NOT "scores|inner_min" THEN 8 END, CASE WHEN NOT "scores|inner_max" THEN 9 END, CASE WHEN NOT "scores|inner_inf" THEN 10 END, CASE WHEN NOT "scores|inner_nan" THEN 11 END, CASE WHEN NOT "point|nullability" THEN 12 END, CASE WHEN NOT "point|inner_nullability" THEN 13 END, CASE WHEN NOT "point|inner_min" THEN 14 END, CASE WHEN NOT "grid|nullability" THEN 15 END, CASE WHEN NOT "grid|inner_nullability" THEN 16 END, CASE WHEN NOT "grid|inner_inner_is_in" THEN 17 END, CASE WHEN NOT "address|nullability" THEN 18 END, CASE WHEN NOT "address|inner_city_nullability" THEN 19 END, CASE WHEN NOT "address|inner_city_min_length" THEN 20 END, CASE WHEN NOT "address|inner_zip_unique" THEN 21 END, CASE WHEN NOT "address|inner_geo_inner_lat_nullability" THEN 22 END, CASE WHEN NOT "address|inner_geo_inner_lat_min" THEN 23 END, CASE WHEN NOT "address|inner_geo_inner_lat_max" THEN 24 END, CASE WHEN NOT "address|inner_geo_inner_lat_inf" THEN 25 END, CASE WHEN NOT "address|inner_geo_inner_lat_nan" THEN 26 END, CASE WHEN NOT "address|inner_geo_inner_lon_nullability" THEN 27 END, CASE WHEN NOT "address|inner_geo_inner_lon_check" THEN 28 END, CASE WHEN NOT "address|inner_geo_inner_lon_inf" THEN 29 END, CASE WHEN NOT "address|inner_geo_inner_lon_nan" THEN 30 END, CASE WHEN NOT "lines|nullability" THEN 31 END, CASE WHEN NOT "lines|primary_key" THEN 32 END, CASE WHEN NOT "lines|inner_nullability" THEN 33 END, CASE WHEN NOT "lines|inner_inner_sku_nullability" THEN 34 END, CASE WHEN NOT "lines|inner_inner_qty_nullability" THEN 35 END, CASE WHEN NOT "lines|inner_inner_qty_min" THEN 36 END, CASE WHEN NOT "ids|nullability" THEN 37 END, CASE WHEN NOT "ids|unique" THEN 38 END, CASE WHEN NOT "ids|check" THEN 39 END, CASE WHEN NOT "ids|primary_key" THEN 40 END, CASE WHEN NOT "ids|inner_nullability" THEN 41 END], lambda x: x IS NOT NULL AND ($1::BIGINT[])[x] > 0)) AS k FROM "__tg_failed_1") QUALIFY row_number() OVER (PARTITION BY k ORDER BY __tg_rid) <= ($1::BIGINT[])[k] ORDER BY k, __tg_rid;

-- 19. sample failing rows: read the sampled rows, per batch of ordinals; when some check shows failing rows
SELECT CAST(__tg_rid AS VARCHAR), CAST(to_json(struct_pack("tags" := CASE WHEN strlen(CAST(to_json("tags") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("tags") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("tags") AS VARCHAR)) || ' bytes)') ELSE to_json("tags") END, "scores" := CASE WHEN strlen(CAST(to_json("scores") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("scores") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("scores") AS VARCHAR)) || ' bytes)') ELSE to_json("scores") END, "point" := CASE WHEN strlen(CAST(to_json("point") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("point") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("point") AS VARCHAR)) || ' bytes)') ELSE to_json("point") END, "grid" := CASE WHEN strlen(CAST(to_json("grid") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("grid") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("grid") AS VARCHAR)) || ' bytes)') ELSE to_json("grid") END, "address" := CASE WHEN strlen(CAST(to_json("address") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("address") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("address") AS VARCHAR)) || ' bytes)') ELSE to_json("address") END, "lines" := CASE WHEN strlen(CAST(to_json("lines") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("lines") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("lines") AS VARCHAR)) || ' bytes)') ELSE to_json("lines") END, "ids" := CASE WHEN strlen(CAST(to_json("ids") AS VARCHAR)) > 1024 THEN to_json(left(CAST(to_json("ids") AS VARCHAR), 1024) || '… (cut, ' || strlen(CAST(to_json("ids") AS VARCHAR)) || ' bytes)') ELSE to_json("ids") END)) AS VARCHAR) FROM "__tg_failed_1" WHERE __tg_rid IN (SELECT CAST(unnest(?::VARCHAR[]) AS HUGEINT));

-- 20. count invalid rows by rules: read the invalid rows by rules; when some row is invalid
SELECT concat_ws(', ', CASE WHEN NOT "address|inner_city_min_length" THEN 'dy_rule__address__inner_city_min_length' END, CASE WHEN NOT "address|inner_city_nullability" THEN 'dy_rule__address__inner_city_nullability' END, CASE WHEN NOT "address|inner_geo_inner_lat_inf" THEN 'dy_rule__address__inner_geo_inner_lat_inf' END, CASE WHEN NOT "address|inner_geo_inner_lat_max" THEN 'dy_rule__address__inner_geo_inner_lat_max' END, CASE WHEN NOT "address|inner_geo_inner_lat_min" THEN 'dy_rule__address__inner_geo_inner_lat_min' END, CASE WHEN NOT "address|inner_geo_inner_lat_nan" THEN 'dy_rule__address__inner_geo_inner_lat_nan' END, CASE WHEN NOT "address|inner_geo_inner_lat_nullability" THEN 'dy_rule__address__inner_geo_inner_lat_nullability' END, CASE WHEN NOT "address|inner_geo_inner_lon_check" THEN 'dy_rule__address__inner_geo_inner_lon_check' END, CASE WHEN NOT "address|inner_geo_inner_lon_inf" THEN 'dy_rule__address__inner_geo_inner_lon_inf' END, CASE WHEN NOT "address|inner_geo_inner_lon_nan" THEN 'dy_rule__address__inner_geo_inner_lon_nan' END, CASE WHEN NOT "address|inner_geo_inner_lon_nullability" THEN 'dy_rule__address__inner_geo_inner_lon_nullability' END, CASE WHEN NOT "address|inner_zip_unique" THEN 'dy_rule__address__inner_zip_unique' END, CASE WHEN NOT "address|nullability" THEN 'dy_rule__address__nullability' END, CASE WHEN NOT "grid|inner_inner_is_in" THEN 'dy_rule__grid__inner_inner_is_in' END, CASE WHEN NOT "grid|inner_nullability" THEN 'dy_rule__grid__inner_nullability' END, CASE WHEN NOT "grid|nullability" THEN 'dy_rule__grid__nullability' END, CASE WHEN NOT "ids|check" THEN 'dy_rule__ids__check' END, CASE WHEN NOT "ids|inner_nullability" THEN 'dy_rule__ids__inner_nullability' END, CASE WHEN NOT "ids|nullability" THEN 'dy_rule__ids__nullability' END, CASE WHEN NOT "ids|primary_key" THEN 'dy_rule__ids__primary_key' END, CASE WHEN NOT "ids|unique" THEN 'dy_rule__ids__unique' END, CASE WHEN NOT "lines|inner_inner_qty_min" THEN 'dy_rule__lines__inner_inner_qty_min' END, CASE WHEN NOT "lines|inner_inner_qty_nullability" THEN 'dy_rule__lines__inner_inner_qty_nullability' END, CASE WHEN NOT "lines|inner_inner_sku_nullability" THEN 'dy_rule__lines__inner_inner_sku_nullability' END, CASE WHEN NOT "lines|inner_nullability" THEN 'dy_rule__lines__inner_nullability' END, CASE WHEN NOT "lines|nullability" THEN 'dy_rule__lines__nullability' END, CASE WHEN NOT "lines|primary_key" THEN 'dy_rule__lines__primary_key' END, CASE WHEN NOT "point|inner_min" THEN 'dy_rule__point__inner_min' END, CASE WHEN NOT "point|inner_nullability" THEN 'dy_rule__point__inner_nullability' END, CASE WHEN NOT "point|nullability" THEN 'dy_rule__point__nullability' END, CASE WHEN NOT "scores|inner_inf" THEN 'dy_rule__scores__inner_inf' END, CASE WHEN NOT "scores|inner_max" THEN 'dy_rule__scores__inner_max' END, CASE WHEN NOT "scores|inner_min" THEN 'dy_rule__scores__inner_min' END, CASE WHEN NOT "scores|inner_nan" THEN 'dy_rule__scores__inner_nan' END, CASE WHEN NOT "tags|inner_min_length" THEN 'dy_rule__tags__inner_min_length' END, CASE WHEN NOT "tags|inner_nullability" THEN 'dy_rule__tags__inner_nullability' END, CASE WHEN NOT "tags|inner_regex" THEN 'dy_rule__tags__inner_regex' END, CASE WHEN NOT "tags|inner_unique" THEN 'dy_rule__tags__inner_unique' END, CASE WHEN NOT "tags|max_length" THEN 'dy_rule__tags__max_length' END, CASE WHEN NOT "tags|min_length" THEN 'dy_rule__tags__min_length' END, CASE WHEN NOT "tags|nullability" THEN 'dy_rule__tags__nullability' END) AS rules, count(*) AS n FROM "__tg_failed_1" WHERE NOT ("tags|nullability" AND "tags|min_length" AND "tags|max_length" AND "tags|inner_nullability" AND "tags|inner_unique" AND "tags|inner_min_length" AND "tags|inner_regex" AND "scores|inner_min" AND "scores|inner_max" AND "scores|inner_inf" AND "scores|inner_nan" AND "point|nullability" AND "point|inner_nullability" AND "point|inner_min" AND "grid|nullability" AND "grid|inner_nullability" AND "grid|inner_inner_is_in" AND "address|nullability" AND "address|inner_city_nullability" AND "address|inner_city_min_length" AND "address|inner_geo_inner_lat_nullability" AND "address|inner_geo_inner_lat_min" AND "address|inner_geo_inner_lat_max" AND "address|inner_geo_inner_lat_inf" AND "address|inner_geo_inner_lat_nan" AND "address|inner_geo_inner_lon_nullability" AND "address|inner_geo_inner_lon_inf" AND "address|inner_geo_inner_lon_nan" AND "lines|nullability" AND "lines|primary_key" AND "lines|inner_nullability" AND "lines|inner_inner_sku_nullability" AND "lines|inner_inner_qty_nullability" AND "lines|inner_inner_qty_min" AND "ids|nullability" AND "ids|unique" AND "ids|check" AND "ids|primary_key" AND "ids|inner_nullability") GROUP BY ALL ORDER BY n DESC, rules;

-- 21. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
CREATE OR REPLACE TEMP TABLE temp.main."__tg_invalid_blocks_1" AS SELECT __tg_rid >> 20 AS block, bitstring_agg(__tg_rid & 1048575, 0, 1048575) AS bits FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("tags|nullability" AND "tags|min_length" AND "tags|max_length" AND "tags|inner_nullability" AND "tags|inner_unique" AND "tags|inner_min_length" AND "tags|inner_regex" AND "scores|inner_min" AND "scores|inner_max" AND "scores|inner_inf" AND "scores|inner_nan" AND "point|nullability" AND "point|inner_nullability" AND "point|inner_min" AND "grid|nullability" AND "grid|inner_nullability" AND "grid|inner_inner_is_in" AND "address|nullability" AND "address|inner_city_nullability" AND "address|inner_city_min_length" AND "address|inner_geo_inner_lat_nullability" AND "address|inner_geo_inner_lat_min" AND "address|inner_geo_inner_lat_max" AND "address|inner_geo_inner_lat_inf" AND "address|inner_geo_inner_lat_nan" AND "address|inner_geo_inner_lon_nullability" AND "address|inner_geo_inner_lon_inf" AND "address|inner_geo_inner_lon_nan" AND "lines|nullability" AND "lines|primary_key" AND "lines|inner_nullability" AND "lines|inner_inner_sku_nullability" AND "lines|inner_inner_qty_nullability" AND "lines|inner_inner_qty_min" AND "ids|nullability" AND "ids|unique" AND "ids|check" AND "ids|primary_key" AND "ids|inner_nullability")) GROUP BY block;

-- 22. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_0 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 0);

-- 23. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_1 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 1);

-- 24. index the invalid rows: run; when some row is invalid, the valid rows are written or sampled
SET VARIABLE __tg_invalid_1_2 = (SELECT bits FROM temp.main."__tg_invalid_blocks_1" WHERE block = 2);

-- 25. size the valid rows' row groups: read the valid rows' row group size; when some row is invalid, the valid rows are written
WITH g(start, n) AS (VALUES (0, 1000000), (1000000, 1000000), (2000000, 500000)),
valid AS (
	SELECT g.n - coalesce(c.bad, 0) AS rows FROM g LEFT JOIN (
		SELECT g.start, count(*) AS bad FROM (SELECT __tg_rid FROM "__tg_failed_1" WHERE NOT ("tags|nullability" AND "tags|min_length" AND "tags|max_length" AND "tags|inner_nullability" AND "tags|inner_unique" AND "tags|inner_min_length" AND "tags|inner_regex" AND "scores|inner_min" AND "scores|inner_max" AND "scores|inner_inf" AND "scores|inner_nan" AND "point|nullability" AND "point|inner_nullability" AND "point|inner_min" AND "grid|nullability" AND "grid|inner_nullability" AND "grid|inner_inner_is_in" AND "address|nullability" AND "address|inner_city_nullability" AND "address|inner_city_min_length" AND "address|inner_geo_inner_lat_nullability" AND "address|inner_geo_inner_lat_min" AND "address|inner_geo_inner_lat_max" AND "address|inner_geo_inner_lat_inf" AND "address|inner_geo_inner_lat_nan" AND "address|inner_geo_inner_lon_nullability" AND "address|inner_geo_inner_lon_inf" AND "address|inner_geo_inner_lon_nan" AND "lines|nullability" AND "lines|primary_key" AND "lines|inner_nullability" AND "lines|inner_inner_sku_nullability" AND "lines|inner_inner_qty_nullability" AND "lines|inner_inner_qty_min" AND "ids|nullability" AND "ids|unique" AND "ids|check" AND "ids|primary_key" AND "ids|inner_nullability")) AS b ASOF JOIN g ON b.__tg_rid >= g.start GROUP BY g.start
	) AS c USING (start) WHERE g.start < 1000001),
taken AS (
	SELECT a.rows, count(*) AS batches FROM (SELECT DISTINCT rows FROM valid WHERE rows BETWEEN 122880 / 2 AND 122880) AS a
	JOIN valid AS b ON abs(a.rows - b.rows) < 2048 GROUP BY a.rows)
SELECT rows, batches, (SELECT count(*) FROM valid WHERE abs(rows - 122880) < 2048) FROM taken ORDER BY batches DESC, rows DESC LIMIT 1;

-- 26. write the valid rows: write (the valid rows); when no row is invalid, the valid rows are written
COPY (SELECT s."tags", s."scores", s."point", s."grid", s."address", s."lines", s."ids" FROM (SELECT "tags", "scores", "point", "grid", "address", "lines", "ids", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 27. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, a row group size is set
COPY (SELECT s."tags", s."scores", s."point", s."grid", s."address", s."lines", s."ids" FROM (SELECT "tags", "scores", "point", "grid", "address", "lines", "ids", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet, ROW_GROUP_SIZE $1);

-- 28. write the valid rows: write (the valid rows); when some row is invalid, the valid rows are written, no row group size is set
COPY (SELECT s."tags", s."scores", s."point", s."grid", s."address", s."lines", s."ids" FROM (SELECT "tags", "scores", "point", "grid", "address", "lines", "ids", file_row_number AS __tg_rid FROM read_parquet('in.parquet', can_have_nan = true)) AS s WHERE NOT (CASE WHEN s.__tg_rid < 1048576 THEN CASE WHEN s.__tg_rid >= 0 AND s.__tg_rid < 1048576 THEN coalesce(get_bit(getvariable('__tg_invalid_1_0'), CAST(s.__tg_rid - 0 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid < 2097152 THEN CASE WHEN s.__tg_rid >= 1048576 AND s.__tg_rid < 2097152 THEN coalesce(get_bit(getvariable('__tg_invalid_1_1'), CAST(s.__tg_rid - 1048576 AS INTEGER)) = 1, FALSE) ELSE FALSE END ELSE CASE WHEN s.__tg_rid >= 2097152 AND s.__tg_rid < 3145728 THEN coalesce(get_bit(getvariable('__tg_invalid_1_2'), CAST(s.__tg_rid - 2097152 AS INTEGER)) = 1, FALSE) ELSE FALSE END END END)) TO 'out/.orders.parquet.tablegate-1-table.tmp' (FORMAT parquet);

-- 29. write the invalid rows: write (the invalid rows); when the invalid rows are written
COPY (SELECT "tags", "scores", "point", "grid", "address", "lines", "ids", CASE WHEN "tags|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__tags__nullability", CASE WHEN "tags|min_length" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__tags__min_length", CASE WHEN "tags|max_length" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__tags__max_length", CASE WHEN "tags|inner_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__tags__inner_nullability", CASE WHEN "tags|inner_unique" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__tags__inner_unique", CASE WHEN "tags|inner_min_length" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__tags__inner_min_length", CASE WHEN "tags|inner_regex" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__tags__inner_regex", CASE WHEN "scores|inner_min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__scores__inner_min", CASE WHEN "scores|inner_max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__scores__inner_max", CASE WHEN "scores|inner_inf" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__scores__inner_inf", CASE WHEN "scores|inner_nan" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__scores__inner_nan", CASE WHEN "point|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__point__nullability", CASE WHEN "point|inner_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__point__inner_nullability", CASE WHEN "point|inner_min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__point__inner_min", CASE WHEN "grid|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__grid__nullability", CASE WHEN "grid|inner_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__grid__inner_nullability", CASE WHEN "grid|inner_inner_is_in" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__grid__inner_inner_is_in", CASE WHEN "address|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__nullability", CASE WHEN "address|inner_city_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_city_nullability", CASE WHEN "address|inner_city_min_length" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_city_min_length", CASE WHEN "address|inner_zip_unique" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_zip_unique", CASE WHEN "address|inner_geo_inner_lat_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lat_nullability", CASE WHEN "address|inner_geo_inner_lat_min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lat_min", CASE WHEN "address|inner_geo_inner_lat_max" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lat_max", CASE WHEN "address|inner_geo_inner_lat_inf" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lat_inf", CASE WHEN "address|inner_geo_inner_lat_nan" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lat_nan", CASE WHEN "address|inner_geo_inner_lon_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lon_nullability", CASE WHEN "address|inner_geo_inner_lon_check" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lon_check", CASE WHEN "address|inner_geo_inner_lon_inf" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lon_inf", CASE WHEN "address|inner_geo_inner_lon_nan" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__address__inner_geo_inner_lon_nan", CASE WHEN "lines|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__lines__nullability", CASE WHEN "lines|primary_key" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__lines__primary_key", CASE WHEN "lines|inner_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__lines__inner_nullability", CASE WHEN "lines|inner_inner_sku_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__lines__inner_inner_sku_nullability", CASE WHEN "lines|inner_inner_qty_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__lines__inner_inner_qty_nullability", CASE WHEN "lines|inner_inner_qty_min" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__lines__inner_inner_qty_min", CASE WHEN "ids|nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ids__nullability", CASE WHEN "ids|unique" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ids__unique", CASE WHEN "ids|check" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ids__check", CASE WHEN "ids|primary_key" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ids__primary_key", CASE WHEN "ids|inner_nullability" THEN CAST('valid' AS ENUM('valid', 'invalid')) ELSE CAST('invalid' AS ENUM('valid', 'invalid')) END AS "dy_rule__ids__inner_nullability" FROM "__tg_failed_1" WHERE NOT ("tags|nullability" AND "tags|min_length" AND "tags|max_length" AND "tags|inner_nullability" AND "tags|inner_unique" AND "tags|inner_min_length" AND "tags|inner_regex" AND "scores|inner_min" AND "scores|inner_max" AND "scores|inner_inf" AND "scores|inner_nan" AND "point|nullability" AND "point|inner_nullability" AND "point|inner_min" AND "grid|nullability" AND "grid|inner_nullability" AND "grid|inner_inner_is_in" AND "address|nullability" AND "address|inner_city_nullability" AND "address|inner_city_min_length" AND "address|inner_geo_inner_lat_nullability" AND "address|inner_geo_inner_lat_min" AND "address|inner_geo_inner_lat_max" AND "address|inner_geo_inner_lat_inf" AND "address|inner_geo_inner_lat_nan" AND "address|inner_geo_inner_lon_nullability" AND "address|inner_geo_inner_lon_inf" AND "address|inner_geo_inner_lon_nan" AND "lines|nullability" AND "lines|primary_key" AND "lines|inner_nullability" AND "lines|inner_inner_sku_nullability" AND "lines|inner_inner_qty_nullability" AND "lines|inner_inner_qty_min" AND "ids|nullability" AND "ids|unique" AND "ids|check" AND "ids|primary_key" AND "ids|inner_nullability") ORDER BY __tg_rid) TO 'out/.orders.parquet.tablegate-1-quarantine.tmp' (FORMAT parquet);

-- 30. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_failed_1";

-- 31. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys0_1";

-- 32. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_keys1_1";

-- 33. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspects_1";

-- 34. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_suspect_blocks_1";

-- 35. drop the run's temp table: clean up (also when the run fails)
DROP TABLE IF EXISTS temp.main."__tg_invalid_blocks_1";

-- 36. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_0;

-- 37. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_1;

-- 38. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_suspect_1_2;

-- 39. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_0;

-- 40. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_1;

-- 41. reset the run's variable: clean up (also when the run fails)
RESET VARIABLE __tg_invalid_1_2;
