WITH __tg_src AS NOT MATERIALIZED (
  SELECT "name", "path", "label", "mood", "memo", rowid AS __tg_rid FROM __tg_input
)
SELECT
  __tg_src."name", __tg_src."path", __tg_src."label", __tg_src."mood", __tg_src."memo", __tg_src.__tg_rid,
  COALESCE("name" IS NOT NULL, TRUE) AS "name|nullability",
  COALESCE(regexp_matches("name", '^O''Brien\\d?''; DROP TABLE t; --$'), TRUE) AS "name|regex",
  COALESCE("path" IS NOT NULL, TRUE) AS "path|nullability",
  COALESCE(strlen("path") <= 260, TRUE) AS "path|max_length",
  COALESCE(regexp_matches("path", 'C:\\Users\\[^\\]+\\\.txt$'), TRUE) AS "path|regex",
  COALESCE("label" IN ('it''s', 'a;b', '"dq"', '''); DROP TABLE t; --', 'back\slash', '_'), TRUE) AS "label|is_in",
  COALESCE("mood" IS NOT NULL, TRUE) AS "mood|nullability",
  COALESCE(("position"(memo, '''') = 0), TRUE) AS "memo|check__no_quote",
  COALESCE(((memo != '_') AND (memo != '"_"')), TRUE) AS "memo|check__not_underscore"
FROM __tg_src;
