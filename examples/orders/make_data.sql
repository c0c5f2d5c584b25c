-- Regenerate orders.parquet: duckdb < make_data.sql (or the Go test helper does the same).
COPY (
  SELECT order_id, CAST(customer_id AS BIGINT) AS customer_id, CAST(amount AS DOUBLE) AS amount,
         status, email, note, placed_at
  FROM (VALUES
    ('ORD-0001', 101, 25.00,  'paid',      'ann@example.com',   NULL,                         TIMESTAMP '2024-03-01 10:00:00'),
    ('ORD-0002', 102, 12.50,  'placed',    'bob@example.com',   'leave at the door',          TIMESTAMP '2024-03-01 11:30:00'),
    ('ORD-0003', 101, 99.99,  'shipped',   'ann@example.com',   NULL,                         TIMESTAMP '2024-03-02 09:15:00'),
    ('ORD-0004', 103, -5.00,  'paid',      'cy@example.com',    NULL,                         TIMESTAMP '2024-03-02 14:00:00'),
    ('ORD-0005', 104, 42.10,  'paid',      'Dee@Example.com',   NULL,                         TIMESTAMP '2024-03-03 08:45:00'),
    ('ORD-0006', 105, 7.25,   'cancelled', 'eve@example.com',   NULL,                         TIMESTAMP '2024-03-03 16:20:00'),
    ('ORD-0007', 106, 15.333, 'placed',    'fay@example.com',   NULL,                         TIMESTAMP '2024-03-04 12:00:00'),
    ('ORD-0008', 107, 60.00,  'paid',      'gus@example.com',   'gift wrap, and a card saying happy birthday', TIMESTAMP '2024-03-04 13:10:00'),
    ('ORD-0008', 108, 18.00,  'placed',    'hal@example.com',   NULL,                         TIMESTAMP '2024-03-05 10:05:00'),
    ('ord-9',    109, 33.00,  'shipped',   'ivy@example.com',   NULL,                         TIMESTAMP '2024-03-05 17:40:00'),
    ('ORD-0011', 110, 0.00,   'paid',      'jon@example.com',   NULL,                         TIMESTAMP '2024-03-06 09:00:00'),
    ('ORD-0012', 111, 21.00,  'returned',  'kim@example.com',   NULL,                         TIMESTAMP '2024-03-06 10:30:00'),
    ('ORD-0013', 112, 8.80,   'placed',    'lee@example.com',   NULL,                         TIMESTAMP '2024-03-07 11:11:00'),
    ('ORD-0014', 113, 120.00, 'shipped',   'max@example.com',   'fragile',                    TIMESTAMP '2024-03-07 15:45:00'),
    ('ORD-0015', 114, 5.00,   'paid',      'ned@example.com',   NULL,                         TIMESTAMP '2019-12-31 23:59:00'),
    ('ORD-0016', NULL, 14.00, 'placed',    'oli@example.com',   NULL,                         TIMESTAMP '2024-03-08 08:00:00')
  ) AS t(order_id, customer_id, amount, status, email, note, placed_at)
) TO 'orders.parquet' (FORMAT parquet);
