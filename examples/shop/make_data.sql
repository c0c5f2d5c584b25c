-- Regenerate the shop's members: duckdb < make_data.sql
COPY (SELECT order_id::BIGINT AS order_id, customer, total::DOUBLE AS total FROM (VALUES
    (1, 'ann', 30.0), (2, 'bob', 12.5), (3, 'cy', -4.0), (4, 'dee', 8.0), (5, 'eve', 20.0), (6, 'fay', 9.0)
  ) t(order_id, customer, total)) TO 'orders.parquet' (FORMAT parquet);
COPY (SELECT order_id::BIGINT AS order_id, line::BIGINT AS line, product_id, quantity::BIGINT AS quantity FROM (VALUES
    (1, 1, 'P1', 2), (1, 2, 'P2', 1), (2, 1, 'P1', 1), (3, 1, 'P2', 1), (5, 1, 'P9', 1), (6, 1, NULL, 0)
  ) t(order_id, line, product_id, quantity)) TO 'items.parquet' (FORMAT parquet);
COPY (SELECT order_id::BIGINT AS order_id, amount::DOUBLE AS amount FROM (VALUES
    (1, 30.0), (2, 12.5), (3, 4.0), (4, 8.0), (4, 8.0), (5, 20.0), (6, 9.0)
  ) t(order_id, amount)) TO 'invoices.parquet' (FORMAT parquet);
COPY (SELECT order_id::BIGINT AS order_id, refund_id::BIGINT AS refund_id, amount::DOUBLE AS amount FROM (VALUES
    (2, 1, 2.5), (6, 1, -1.0)
  ) t(order_id, refund_id, amount)) TO 'refunds.parquet' (FORMAT parquet);
COPY (SELECT * FROM (VALUES ('P1', 'mug'), ('P2', 'plate')) t(product_id, name)) TO 'products.parquet' (FORMAT parquet);
