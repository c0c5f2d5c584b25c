WITH __tg_src AS NOT MATERIALIZED (
  SELECT "day", "week_start", "month_start", "opens", "created", "created_ms", "created_ns", "created_local", "created_monthly", "created_weekly", "took", rowid AS __tg_rid FROM __tg_input
)
SELECT
  __tg_src."day", __tg_src."week_start", __tg_src."month_start", __tg_src."opens", __tg_src."created", __tg_src."created_ms", __tg_src."created_ns", __tg_src."created_local", __tg_src."created_monthly", __tg_src."created_weekly", __tg_src."took", __tg_src.__tg_rid,
  COALESCE("day" IS NOT NULL, TRUE) AS "day|nullability",
  COALESCE("day" >= DATE '2020-01-01', TRUE) AS "day|min",
  COALESCE("day" < DATE '2030-01-01', TRUE) AS "day|max_exclusive",
  COALESCE("week_start" IS NOT NULL, TRUE) AS "week_start|nullability",
  COALESCE(("week_start" - DATE '1970-01-05') % 7 = 0, TRUE) AS "week_start|resolution",
  COALESCE((day("month_start") = 1 AND (year("month_start") * 12 + month("month_start") - 1) % 3 = 0), TRUE) AS "month_start|resolution",
  COALESCE("opens" IS NOT NULL, TRUE) AS "opens|nullability",
  COALESCE("opens" >= TIME '06:00:00', TRUE) AS "opens|min",
  COALESCE("opens" <= TIME '22:30:00', TRUE) AS "opens|max",
  COALESCE(epoch_us("opens") % 900000000 = 0, TRUE) AS "opens|resolution",
  COALESCE("created" IS NOT NULL, TRUE) AS "created|nullability",
  COALESCE("created" >= TIMESTAMP '2020-03-01 12:00:00', TRUE) AS "created|min",
  COALESCE(epoch_us("created") % 1000000 = 0, TRUE) AS "created|resolution",
  COALESCE("created_ms" IS NOT NULL, TRUE) AS "created_ms|nullability",
  COALESCE("created_ms" <= TIMESTAMP_MS '2099-12-31 00:00:00', TRUE) AS "created_ms|max",
  COALESCE(epoch_ms("created_ms") % 86400000 = 0, TRUE) AS "created_ms|resolution",
  COALESCE("created_ns" IS NOT NULL, TRUE) AS "created_ns|nullability",
  COALESCE("created_ns" > TIMESTAMP_NS '1970-01-01 00:00:00', TRUE) AS "created_ns|min_exclusive",
  COALESCE(epoch_ns("created_ns") % 500000000 = 0, TRUE) AS "created_ns|resolution",
  COALESCE("created_local" IS NOT NULL, TRUE) AS "created_local|nullability",
  COALESCE("created_local" >= TIMESTAMPTZ '2020-03-01 11:00:00+00', TRUE) AS "created_local|min",
  COALESCE((epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) % 3600000000 = 0 OR make_timestamp(epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) - ((epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) - 0) % 3600000000 + 3600000000) % 3600000000) > (("created_local" - INTERVAL 1 MICROSECOND) AT TIME ZONE 'Europe/Berlin')), TRUE) AS "created_local|resolution",
  COALESCE("created_monthly" IS NOT NULL, TRUE) AS "created_monthly|nullability",
  COALESCE((day("created_monthly") = 1 AND "created_monthly" = date_trunc('day', "created_monthly") AND (year("created_monthly") * 12 + month("created_monthly") - 1) % 1 = 0), TRUE) AS "created_monthly|resolution",
  COALESCE("created_weekly" IS NOT NULL, TRUE) AS "created_weekly|nullability",
  COALESCE((epoch_ns("created_weekly") - 345600000000000) % 1209600000000000 = 0, TRUE) AS "created_weekly|resolution",
  COALESCE("took" IS NOT NULL, TRUE) AS "took|nullability",
  COALESCE("took" >= to_microseconds(0), TRUE) AS "took|min",
  COALESCE("took" <= to_microseconds(100800000000), TRUE) AS "took|max",
  COALESCE(epoch_us("took") % 1000 = 0, TRUE) AS "took|resolution"
FROM __tg_src
WHERE (NOT ("day" IS NOT NULL))
   OR (NOT ("day" >= DATE '2020-01-01'))
   OR (NOT ("day" < DATE '2030-01-01'))
   OR (NOT ("week_start" IS NOT NULL))
   OR (NOT (("week_start" - DATE '1970-01-05') % 7 = 0))
   OR (NOT ((day("month_start") = 1 AND (year("month_start") * 12 + month("month_start") - 1) % 3 = 0)))
   OR (NOT ("opens" IS NOT NULL))
   OR (NOT ("opens" >= TIME '06:00:00'))
   OR (NOT ("opens" <= TIME '22:30:00'))
   OR (NOT (epoch_us("opens") % 900000000 = 0))
   OR (NOT ("created" IS NOT NULL))
   OR (NOT ("created" >= TIMESTAMP '2020-03-01 12:00:00'))
   OR (NOT (epoch_us("created") % 1000000 = 0))
   OR (NOT ("created_ms" IS NOT NULL))
   OR (NOT ("created_ms" <= TIMESTAMP_MS '2099-12-31 00:00:00'))
   OR (NOT (epoch_ms("created_ms") % 86400000 = 0))
   OR (NOT ("created_ns" IS NOT NULL))
   OR (NOT ("created_ns" > TIMESTAMP_NS '1970-01-01 00:00:00'))
   OR (NOT (epoch_ns("created_ns") % 500000000 = 0))
   OR (NOT ("created_local" IS NOT NULL))
   OR (NOT ("created_local" >= TIMESTAMPTZ '2020-03-01 11:00:00+00'))
   OR (NOT ((epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) % 3600000000 = 0 OR make_timestamp(epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) - ((epoch_us(("created_local" AT TIME ZONE 'Europe/Berlin')) - 0) % 3600000000 + 3600000000) % 3600000000) > (("created_local" - INTERVAL 1 MICROSECOND) AT TIME ZONE 'Europe/Berlin'))))
   OR (NOT ("created_monthly" IS NOT NULL))
   OR (NOT ((day("created_monthly") = 1 AND "created_monthly" = date_trunc('day', "created_monthly") AND (year("created_monthly") * 12 + month("created_monthly") - 1) % 1 = 0)))
   OR (NOT ("created_weekly" IS NOT NULL))
   OR (NOT ((epoch_ns("created_weekly") - 345600000000000) % 1209600000000000 = 0))
   OR (NOT ("took" IS NOT NULL))
   OR (NOT ("took" >= to_microseconds(0)))
   OR (NOT ("took" <= to_microseconds(100800000000)))
   OR (NOT (epoch_us("took") % 1000 = 0));
