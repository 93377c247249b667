-- Run with psql -X -A -v ON_ERROR_STOP=1 -f by PsqlAndPgbenchTest, through the proxy and directly.
CREATE TABLE psql_items (id int PRIMARY KEY, name text NOT NULL, price numeric(8, 2));
INSERT INTO psql_items VALUES (1, 'tea', 3.50); INSERT INTO psql_items VALUES (2, 'cake', 4.25); SELECT count(*) AS after_two FROM psql_items;
\copy psql_items FROM STDIN WITH (FORMAT csv)
3,coffee,2.80
4,"scone, plain",1.95
\.
COPY psql_items (id, name, price) FROM STDIN;
5	juice	3.10
\.
SELECT id, name, price FROM psql_items ORDER BY id;
\set ON_ERROR_STOP 0
INSERT INTO psql_items VALUES (1, 'duplicate', 0);
SELECT * FROM no_such_table;
SELECT 1 / 0 AS boom \; SELECT 2 AS never;
\set ON_ERROR_STOP 1
BEGIN;
UPDATE psql_items SET price = price * 2 WHERE id <= 2;
SAVEPOINT s1;
DELETE FROM psql_items;
ROLLBACK TO SAVEPOINT s1;
COMMIT;
SELECT sum(price) AS total FROM psql_items;
\copy (SELECT id, name FROM psql_items WHERE id > 3 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER true)
SELECT 1 AS a \; SELECT 2 AS b;
SET application_name = 'psql_it';
SHOW application_name;
SELECT E'multi\nline' AS text, NULL AS nothing, ARRAY[1, 2] AS arr, '2024-02-29 13:45:30+00'::timestamptz AT TIME ZONE 'UTC' AS at;
\echo done
