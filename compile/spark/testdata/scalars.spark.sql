WITH __tg_src AS (
  SELECT `id`, `select`, `qty`, `score`, `ratio`, `price`, `name`, `code`, `order`, `none_allowed`, `day`, `ts`, `ts_month`, `ts_tz`, `flag`, `blob`, __tg_rid AS __tg_rid FROM __tg_input
),
__tg_k0 AS (
  SELECT `id` AS __tg_k0_0, (count(*) > 1) AS __tg_m0
  FROM __tg_src
  GROUP BY `id`
  HAVING (count(*) > 1)
)
SELECT
  __tg_src.`id`, __tg_src.`select`, __tg_src.`qty`, __tg_src.`score`, __tg_src.`ratio`, __tg_src.`price`, __tg_src.`name`, __tg_src.`code`, __tg_src.`order`, __tg_src.`none_allowed`, __tg_src.`day`, __tg_src.`ts`, __tg_src.`ts_month`, __tg_src.`ts_tz`, __tg_src.`flag`, __tg_src.`blob`, __tg_src.__tg_rid,
  COALESCE(NOT __tg_k0.__tg_m0, TRUE) AS `primary_key`,
  COALESCE(`id` IS NOT NULL, TRUE) AS `id|nullability`,
  COALESCE(`select` >= -5, TRUE) AS `select|min`,
  COALESCE(`select` < 100, TRUE) AS `select|max_exclusive`,
  COALESCE(`qty` IN (1, 2, 3, 99), TRUE) AS `qty|is_in`,
  COALESCE(`score` > CAST('0.1' AS FLOAT), TRUE) AS `score|min_exclusive`,
  COALESCE(`score` <= CAST('1e+30' AS FLOAT), TRUE) AS `score|max`,
  COALESCE(NOT (abs(`score`) = CAST('Infinity' AS DOUBLE)), TRUE) AS `score|inf`,
  COALESCE(NOT isnan(`score`), TRUE) AS `score|nan`,
  COALESCE(`ratio` >= (CASE WHEN typeof(`ratio`) = 'float' THEN CAST('-0' AS FLOAT) ELSE CAST('-0' AS DOUBLE) END), TRUE) AS `ratio|min`,
  COALESCE(`ratio` <= (CASE WHEN typeof(`ratio`) = 'float' THEN CAST('5' AS FLOAT) ELSE CAST('5' AS DOUBLE) END), TRUE) AS `ratio|max`,
  COALESCE(NOT (abs(`ratio`) = CAST('Infinity' AS DOUBLE)), TRUE) AS `ratio|inf`,
  COALESCE(NOT isnan(`ratio`), TRUE) AS `ratio|nan`,
  COALESCE(`price` >= CAST('0.00' AS DECIMAL(10,2)), TRUE) AS `price|min`,
  COALESCE(`price` <= CAST('99999.99' AS DECIMAL(10,2)), TRUE) AS `price|max`,
  COALESCE(octet_length(`name`) >= 2, TRUE) AS `name|min_length`,
  COALESCE(octet_length(`name`) <= 12, TRUE) AS `name|max_length`,
  COALESCE(`name` RLIKE '\\A[\\x{41}-\\x{5A}](?:[\\x{61}-\\x{7A}])+\\z', TRUE) AS `name|regex`,
  COALESCE(`code` IN ('it\'s', 'back\\slash', '日本'), TRUE) AS `code|is_in`,
  COALESCE(`order` RLIKE '(?:[\\x{53}\\x{73}\\x{17F}][\\x{54}\\x{74}][\\x{52}\\x{72}][\\x{41}\\x{61}][\\x{DF}\\x{1E9E}][\\x{45}\\x{65}]|(?:(?<=[0-9A-Z_a-z])(?![0-9A-Z_a-z])|(?<![0-9A-Z_a-z])(?=[0-9A-Z_a-z]))[\\x{43}\\x{63}][\\x{41}\\x{61}][\\x{54}\\x{74}](?:(?<=[0-9A-Z_a-z])(?![0-9A-Z_a-z])|(?<![0-9A-Z_a-z])(?=[0-9A-Z_a-z])))', TRUE) AS `order|regex`,
  COALESCE((`none_allowed` IS NULL AND NULL), TRUE) AS `none_allowed|is_in`,
  COALESCE(`day` >= DATE '2020-01-06', TRUE) AS `day|min`,
  COALESCE(`day` < DATE '2029-12-31', TRUE) AS `day|max_exclusive`,
  COALESCE(datediff(`day`, DATE '1970-01-05') % 7 = 0, TRUE) AS `day|resolution`,
  COALESCE(`ts` >= TIMESTAMP_NTZ '2020-01-01 00:00:00', TRUE) AS `ts|min`,
  COALESCE(timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', `ts`) % 3600000000 = 0, TRUE) AS `ts|resolution`,
  COALESCE((day(`ts_month`) = 1 AND timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', `ts_month`) % 86400000000 = 0 AND (year(`ts_month`) * 12 + month(`ts_month`) - 1) % 3 = 0), TRUE) AS `ts_month|resolution`,
  COALESCE(`ts_tz` >= TIMESTAMP '2020-03-01 11:00:00+00:00', TRUE) AS `ts_tz|min`,
  COALESCE((unix_micros(from_utc_timestamp(`ts_tz`, 'Asia/Kolkata')) % 1800000000 = 0 OR (unix_micros(from_utc_timestamp(`ts_tz`, 'Asia/Kolkata')) - ((unix_micros(from_utc_timestamp(`ts_tz`, 'Asia/Kolkata')) - 0) % 1800000000 + 1800000000) % 1800000000) > unix_micros(from_utc_timestamp(`ts_tz` - INTERVAL 1 MICROSECOND, 'Asia/Kolkata'))), TRUE) AS `ts_tz|resolution`
FROM __tg_src
LEFT JOIN __tg_k0 ON __tg_src.`id` <=> __tg_k0.__tg_k0_0;

-- rules
primary_key	count(*) = 1 per (`id`)
id|nullability	`id` IS NOT NULL
select|min	`select` >= -5
select|max_exclusive	`select` < 100
qty|is_in	`qty` IN (1, 2, 3, 99)
score|min_exclusive	`score` > CAST('0.1' AS FLOAT)
score|max	`score` <= CAST('1e+30' AS FLOAT)
score|inf	NOT (abs(`score`) = CAST('Infinity' AS DOUBLE))
score|nan	NOT isnan(`score`)
ratio|min	`ratio` >= (CASE WHEN typeof(`ratio`) = 'float' THEN CAST('-0' AS FLOAT) ELSE CAST('-0' AS DOUBLE) END)
ratio|max	`ratio` <= (CASE WHEN typeof(`ratio`) = 'float' THEN CAST('5' AS FLOAT) ELSE CAST('5' AS DOUBLE) END)
ratio|inf	NOT (abs(`ratio`) = CAST('Infinity' AS DOUBLE))
ratio|nan	NOT isnan(`ratio`)
price|min	`price` >= CAST('0.00' AS DECIMAL(10,2))
price|max	`price` <= CAST('99999.99' AS DECIMAL(10,2))
name|min_length	octet_length(`name`) >= 2
name|max_length	octet_length(`name`) <= 12
name|regex	`name` RLIKE '\\A[\\x{41}-\\x{5A}](?:[\\x{61}-\\x{7A}])+\\z'
code|is_in	`code` IN ('it\'s', 'back\\slash', '日本')
order|regex	`order` RLIKE '(?:[\\x{53}\\x{73}\\x{17F}][\\x{54}\\x{74}][\\x{52}\\x{72}][\\x{41}\\x{61}][\\x{DF}\\x{1E9E}][\\x{45}\\x{65}]|(?:(?<=[0-9A-Z_a-z])(?![0-9A-Z_a-z])|(?<![0-9A-Z_a-z])(?=[0-9A-Z_a-z]))[\\x{43}\\x{63}][\\x{41}\\x{61}][\\x{54}\\x{74}](?:(?<=[0-9A-Z_a-z])(?![0-9A-Z_a-z])|(?<![0-9A-Z_a-z])(?=[0-9A-Z_a-z])))'
none_allowed|is_in	(`none_allowed` IS NULL AND NULL)
day|min	`day` >= DATE '2020-01-06'
day|max_exclusive	`day` < DATE '2029-12-31'
day|resolution	datediff(`day`, DATE '1970-01-05') % 7 = 0
ts|min	`ts` >= TIMESTAMP_NTZ '2020-01-01 00:00:00'
ts|resolution	timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', `ts`) % 3600000000 = 0
ts_month|resolution	(day(`ts_month`) = 1 AND timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', `ts_month`) % 86400000000 = 0 AND (year(`ts_month`) * 12 + month(`ts_month`) - 1) % 3 = 0)
ts_tz|min	`ts_tz` >= TIMESTAMP '2020-03-01 11:00:00+00:00'
ts_tz|resolution	(unix_micros(from_utc_timestamp(`ts_tz`, 'Asia/Kolkata')) % 1800000000 = 0 OR (unix_micros(from_utc_timestamp(`ts_tz`, 'Asia/Kolkata')) - ((unix_micros(from_utc_timestamp(`ts_tz`, 'Asia/Kolkata')) - 0) % 1800000000 + 1800000000) % 1800000000) > unix_micros(from_utc_timestamp(`ts_tz` - INTERVAL 1 MICROSECOND, 'Asia/Kolkata')))
