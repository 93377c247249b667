-- Write corpus of the sharding differential tests (ShardingWriteDifferentialTest).
-- Entries run in order on one client session through the proxy and one against the reference; each statement
-- runs through the proxy first, then against the reference (not at all when the proxy refuses as allowed).
-- \reset      empties every table, loads TestData straight into the shards (where the rules put each row) and the
--             reference, and opens fresh sessions: each section starts from the same rows.
-- \contents t reads the shards directly and checks they hold exactly the reference's rows of t, each where the
--             rules put it (both copies of a broadcast table); inside an open transaction this is what others see.
-- Base data: order_id 1000 + 7k (k < 300) and 3000000300..3000000304; user 3 has orders 1091, 1168, 1224, 1420,
-- 1819, 2022, 2407 (ds_1); user 4 has 1126, 1266, ... (ds_0). New rows use ids from 5000 up.

\reset
-- ## INSERT one row
INSERT INTO t_order (order_id, user_id, status, amount) VALUES (5001, 3, 'NEW', 12.50);
INSERT INTO t_order (order_id, user_id, status, amount) VALUES (5002, 4, 'NEW', 1.5) RETURNING *;
INSERT INTO t_order (user_id, order_id, status) VALUES (6, 5003, 'reordered');
INSERT INTO "t_order" ("order_id", "user_id") VALUES (5005, 8);
INSERT INTO public.t_order (order_id, user_id, note) VALUES (5006, 9, 'schema-qualified, ünïcode, ''quoted''');
-- @params long:5007, int:10, text:NEW, numeric:3.125
INSERT INTO t_order (order_id, user_id, status, discount) VALUES (?, ?, ?, ?);
-- @params long:5008, int:11
INSERT INTO t_order (order_id, user_id) VALUES (?, ?) RETURNING order_id, user_id, status;
INSERT INTO t_order (order_id, user_id, amount) VALUES (5009, 12, 1 + 2.5);
INSERT INTO t_order (order_id, user_id, amount) VALUES (5010::bigint, '13', '4.25');
INSERT INTO t_order (order_id, user_id) VALUES (3000000999, 15) RETURNING order_id;
-- @params text:5012, text:16
INSERT INTO t_order (order_id, user_id) VALUES (?::bigint, ?::int);
\contents t_order
SELECT * FROM t_order WHERE order_id > 5000 AND order_id < 6000;


\reset
-- ## INSERT forms PostgreSQL accepts that name the sharding values less plainly
INSERT INTO t_order (order_id, user_id, status, amount, discount, weight, rate, note, created_at) VALUES (5004, 7, 'NEW', 1.00, 0.5, 1.25, 0.5, 'no column list', '2024-01-01 00:00');
-- Without a column list the values fill the table's columns in order (the proxy writes the column list out from the
-- logical table's definition); a duplicate key fails on both sides.
INSERT INTO t_order VALUES (5004, 7, 'NEW', 1.00, 0.5, 1.25, 0.5, 'no column list', '2024-01-01 00:00');
INSERT INTO t_order VALUES (5016, 18, 'NEW', 1.00, 0.5, 1.25, 0.5, 'no column list', '2024-01-01 00:00'), (5017, 19, 'PAID');
INSERT INTO t_dict VALUES ('nocols', 'no column list', 9);
INSERT INTO t_order (order_id, user_id, amount) VALUES (5011, 14.0, 0);
INSERT INTO t_order (order_id, user_id, amount) VALUES (5014, '15', 0), ('5015', 16.00, 1);
\contents t_order

\reset
-- ## INSERT many rows spanning shards
INSERT INTO t_order (order_id, user_id, status, amount) VALUES (5101, 0, 'NEW', 1), (5102, 1, 'PAID', 2), (5103, 2, NULL, NULL), (5104, 3, 'x', -3.25);
INSERT INTO t_order (order_id, user_id, status) VALUES (5105, 0, 'a'), (5106, 0, 'b'), (5107, 1, 'c'), (5108, 1, 'd') RETURNING order_id, user_id, status;
-- @params long:5109, int:2, long:5110, int:3, long:5111, int:4
INSERT INTO t_order (order_id, user_id) VALUES (?, ?), (?, ?), (?, ?);
INSERT INTO t_order_item (order_item_id, order_id, user_id, product_id, quantity, price) VALUES (51010, 5101, 0, 1, 2, 9.990), (51020, 5102, 1, 2, 1, 0.001), (51030, 5103, 2, NULL, -1, NULL), (51040, 5104, 3, 4, 4, 100.5) RETURNING order_item_id, price;
INSERT INTO t_user (user_id, name) VALUES (-11, 'negative'), (100, 'hundred'), (101, 'Hundred and one') RETURNING user_id, name;
INSERT INTO t_log (id, user_id, level, cost, logged_at) VALUES (1001, 1, 'INFO', 1.5, '2024-06-01 00:00:00+02'), (1002, 2, 'WARN', -0.0001, '2024-06-02 00:00:00+00'), (1003, NULL, NULL, NULL, '2024-06-03 12:00:00-05'), (1004, 4, 'ERROR', 9999.9999, '2024-06-04 00:00:00+00');
INSERT INTO t_event (id, kind, qty) VALUES (41, 'z', 1), (42, 'z', 2);
\contents t_order t_order_item t_user t_log t_event
SELECT count(*), sum(amount) FROM t_order WHERE order_id > 5100 AND order_id < 5200;

-- ## INSERT into broadcast and single tables
INSERT INTO t_dict (code, label, rank) VALUES ('HELD', 'On hold', 6);
INSERT INTO t_dict VALUES ('LOST', 'Lost', 7), ('FOUND', 'Found', 8) RETURNING code;
INSERT INTO t_single (id, name, value) VALUES (100, 'new', 1.50) RETURNING *;
INSERT INTO t_single (id, name, value) VALUES (101, 'a', 1), (102, 'b', 2);
\contents t_dict t_single
SELECT count(*) FROM t_dict;

\reset
-- ## INSERT errors and conflicts
INSERT INTO t_order (order_id, user_id) VALUES (1091, 3);
\contents t_order
INSERT INTO t_order (order_id, user_id, status) VALUES (6001, 0, 'must vanish'), (1091, 3, 'dup');
\contents t_order
INSERT INTO t_order (order_id, user_id, status) VALUES (6002, 0, 'ok'), (6002, 0, 'dup in statement');
-- a row whose sharding value is NULL or missing has no shard: refusing it is no wrong answer (PostgreSQL says 23502)
-- @may-refuse
INSERT INTO t_order (order_id, user_id) VALUES (6003, NULL);
-- @may-refuse
INSERT INTO t_order (order_id, status) VALUES (6004, 'no user_id');
INSERT INTO t_order (order_id, user_id, amount) VALUES (6005, 0, 'abc');
-- A sharding value that does not convert to its column's type: PostgreSQL's 22P02 at its position, not the route's 22023.
INSERT INTO t_order (order_id, user_id) VALUES (6009, 'abc');
INSERT INTO t_order (order_id, user_id, status) VALUES (6010, 1, 'a'), (6011, '1.5x', 'b');
INSERT INTO t_order (order_id, user_id, amount) VALUES (6006, 0, 12345678901.00);
INSERT INTO t_order (order_id, user_id, missing) VALUES (6007, 0, 1);
INSERT INTO t_order (order_id, user_id) VALUES (6008);
INSERT INTO t_nonexistent VALUES (1);
INSERT INTO t_dict (code, label) VALUES ('PAID', 'duplicate code');
INSERT INTO t_dict (code, label) VALUES ('X1', NULL);
\contents t_order t_dict
INSERT INTO t_order (order_id, user_id, status) VALUES (1091, 3, 'dup') ON CONFLICT DO NOTHING;
INSERT INTO t_order (order_id, user_id, status) VALUES (1091, 3, 'dup'), (6010, 1, 'fresh') ON CONFLICT DO NOTHING RETURNING order_id;
INSERT INTO t_order (order_id, user_id, status) VALUES (1091, 3, 'upserted') ON CONFLICT (order_id) DO UPDATE SET status = EXCLUDED.status RETURNING order_id, status;
INSERT INTO t_dict (code, label, rank) VALUES ('PAID', 'Paid (upserted)', 2) ON CONFLICT (code) DO UPDATE SET label = EXCLUDED.label;
INSERT INTO t_order (order_id, user_id, status) VALUES (1091, 3, 'u1'), (1126, 4, 'u2'), (6011, 0, 'new') ON CONFLICT (order_id) DO UPDATE SET status = EXCLUDED.status RETURNING order_id, status;
INSERT INTO t_order (order_id, user_id, status) VALUES (6012, 3, DEFAULT), (6013, 4, 'x') RETURNING order_id, status;
\contents t_order t_dict

-- ## INSERT ... SELECT
-- @may-refuse
INSERT INTO t_order_item (order_item_id, order_id, user_id, quantity) SELECT order_id * 10 + 9, order_id, user_id, 1 FROM t_order WHERE user_id = 3 AND order_id = 1091;
-- @may-refuse
INSERT INTO t_order_item (order_item_id, order_id, user_id, quantity) SELECT order_id * 10 + 8, order_id, user_id, 2 FROM t_order WHERE user_id = 4;
-- @may-refuse
INSERT INTO t_log (id, user_id, level) SELECT order_id, user_id, status FROM t_order WHERE user_id = 5;
INSERT INTO t_single (id, name) SELECT rank + 200, code FROM t_dict;
\contents t_order_item t_log t_single
-- INSERT ... SELECT whose SELECT spans shards: the SELECT is read (merged, or finished by PostgreSQL), its rows are
-- inserted by the target's sharding column in one transaction
INSERT INTO t_order_item (order_item_id, order_id, user_id, quantity) SELECT order_id * 10 + 7, order_id, user_id, 3 FROM t_order WHERE order_id < 1100;
INSERT INTO t_log (id, user_id, level, cost, logged_at) SELECT order_id + 100000, user_id, status, discount, created_at FROM t_order WHERE order_id BETWEEN 1100 AND 1300 ORDER BY order_id RETURNING id, user_id, level, logged_at;
INSERT INTO t_order (order_id, user_id, status, amount, weight, rate) SELECT o.order_id + 20000, u.user_id + 1, 'copied', o.amount, o.weight, o.rate FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.order_id < 1200;
INSERT INTO t_log (id, user_id, level, message) SELECT 900000 + user_id, user_id, 'count', count(*)::text || ' orders' FROM t_order GROUP BY user_id;
INSERT INTO t_order_item (order_item_id, order_id, user_id) SELECT order_id, order_id, user_id FROM t_order WHERE order_id < 0;
-- @params int:5
INSERT INTO t_order_item (order_item_id, order_id, user_id, quantity) SELECT order_id * 10 + 5, order_id, user_id, ? FROM t_order WHERE order_id > 2000 AND order_id < 2100;
INSERT INTO t_order (order_id, user_id, status) SELECT order_id, user_id, 'conflict' FROM t_order WHERE order_id < 1050 ON CONFLICT (order_id) DO NOTHING;
INSERT INTO t_log SELECT order_id + 300000, user_id, status FROM t_order WHERE order_id < 1030;
INSERT INTO t_order_item (order_item_id, order_id, user_id, quantity) SELECT order_id * 10 + 7, order_id, user_id, 3 FROM t_order WHERE order_id < 1100;
\contents t_order t_order_item t_log

\reset
-- ## UPDATE
UPDATE t_order SET status = 'SHIPPED' WHERE user_id = 3;
UPDATE t_order SET amount = amount + 1 WHERE order_id = 1091 RETURNING order_id, amount;
UPDATE t_order SET amount = amount + 1 WHERE order_id = 1091 AND user_id = 3 RETURNING *;
UPDATE t_order SET note = 'bulk' WHERE amount < 0;
UPDATE t_order SET note = 'in list' WHERE order_id IN (1000, 1007, 1014, 1021) RETURNING order_id, user_id, note;
UPDATE t_order SET status = NULL WHERE status = 'paid' RETURNING order_id;
UPDATE t_order SET weight = weight * 2, rate = -rate WHERE user_id BETWEEN 10 AND 12;
UPDATE t_order SET discount = discount + 0.001 WHERE discount IS NOT NULL AND user_id IN (1, 2);
-- @params text:param, int:7
UPDATE t_order SET note = ? WHERE user_id = ?;
-- @params numeric:0.5, long:1126
UPDATE t_order SET amount = amount * ? WHERE order_id = ? RETURNING amount;
UPDATE t_order SET status = 'none' WHERE user_id = 99;
UPDATE t_order o SET note = d.label FROM t_dict d WHERE d.code = o.status AND o.user_id = 5;
UPDATE t_order o SET note = 'has big items' FROM t_order_item i WHERE i.order_id = o.order_id AND i.user_id = o.user_id AND i.quantity > 10;
-- Joined on order_id alone, the binding key: node by node, the binding declaration vouching for user_id.
UPDATE t_order o SET note = 'has an empty item' FROM t_order_item i WHERE i.order_id = o.order_id AND i.quantity = 0;
UPDATE t_order_item i SET price = i.price + 1 FROM t_order o WHERE o.order_id = i.order_id AND o.status = 'NEW' RETURNING i.order_item_id, i.price;
UPDATE t_order_item SET quantity = quantity + 1 WHERE order_id = 1007 RETURNING order_item_id, quantity;
UPDATE t_order_item SET price = NULL WHERE quantity < 0;
UPDATE t_user SET score = score - 1 WHERE user_id = -7 RETURNING user_id, score;
UPDATE t_user SET city = 'Nowhere' WHERE user_id > 30;
UPDATE t_log SET level = 'X' WHERE id BETWEEN 10 AND 20;
UPDATE t_log SET cost = cost / 2 WHERE level = 'ERROR' RETURNING id, cost;
UPDATE t_event SET qty = 0 WHERE id = 7;
UPDATE t_event SET qty = qty + 1 WHERE kind = 'a';
UPDATE t_dict SET label = 'Paid!' WHERE code = 'PAID';
UPDATE t_dict SET rank = rank * 10 RETURNING code, rank;
UPDATE t_single SET value = value * 2 WHERE id < 5 RETURNING id, value;
\contents t_order t_order_item t_user t_log t_event t_dict t_single
UPDATE t_order SET user_id = 3 WHERE order_id = 1091 AND user_id = 3;
-- @may-refuse
UPDATE t_order SET user_id = 4 WHERE order_id = 1168;
-- @may-refuse
UPDATE t_order SET order_id = 1171 WHERE order_id = 1224;
\contents t_order
-- An ORM saving a whole row (Django's save(), Hibernate without @DynamicUpdate) sets the sharding column to the value
-- the row has, with a WHERE on the key alone: the UPDATE runs where the WHERE leads, and as on PostgreSQL.
UPDATE t_order SET user_id = 3, status = 'SAVED', amount = 2.00 WHERE order_id = 1091;
-- @params int:4, text:SAVED2, long:1126
UPDATE t_order SET user_id = ?, status = ? WHERE order_id = ?;
UPDATE t_order SET user_id = 3, status = 'SAVED3' WHERE order_id = 1168 RETURNING order_id, user_id, status;
UPDATE t_order SET user_id = 3, status = 'SAVED4' WHERE status = 'SAVED' OR order_id = 1224;
UPDATE t_order SET user_id = 3, order_id = 1091, note = 'both' WHERE order_id = 1091;
UPDATE t_order SET user_id = 4, status = 'none' WHERE order_id = 999999;
\contents t_order
-- A row the UPDATE would move to another shard is refused, and nothing changes: here order 1126 (user 4, ds_0) would
-- move, and order 1091 (user 3, ds_1), which stays, is not changed either.
-- @refused move t_order
UPDATE t_order SET user_id = 3, status = 'MOVED' WHERE order_id IN (1091, 1126);
-- @refused move t_order
UPDATE t_order SET user_id = 4 WHERE order_id = 1091;
-- @params int:4, long:1091
-- @refused move t_order
UPDATE t_order SET user_id = ?, status = 'MOVED' WHERE order_id = ?;
\contents t_order
UPDATE t_order SET amount = 'abc' WHERE user_id = 3;
UPDATE t_order SET nonexistent = 1;
-- @may-refuse
UPDATE t_order SET user_id = NULL WHERE order_id = 1091;
UPDATE t_order SET status = repeat('x', 30) WHERE user_id = 3;
\contents t_order

-- ## a statement that fails on one shard changes no shard
INSERT INTO t_order (order_id, user_id, amount) VALUES (7001, 0, 0.01), (7002, 1, 99999.00);
UPDATE t_order SET amount = amount * 1000000 WHERE order_id IN (7001, 7002);
\contents t_order
UPDATE t_order SET amount = 1 / (user_id - 1) WHERE order_id IN (7001, 7002);
\contents t_order
DELETE FROM t_order WHERE order_id IN (7001, 7002) AND 1 / (user_id - 1) > -100;
\contents t_order
UPDATE t_dict SET rank = rank / (rank - 3);
\contents t_dict
INSERT INTO t_order (order_id, user_id, amount) VALUES (7003, 0, 1), (7004, 1, 99999999999);
\contents t_order

\reset
-- ## DELETE
DELETE FROM t_order WHERE order_id = 1091;
DELETE FROM t_order WHERE order_id = 1091;
DELETE FROM t_order WHERE user_id = 3 RETURNING order_id;
DELETE FROM t_order WHERE user_id = 4 AND order_id = 1126 RETURNING *;
DELETE FROM t_order WHERE status = 'CANCELLED' RETURNING order_id, user_id;
DELETE FROM t_order WHERE order_id IN (1000, 1007, 3000000303);
DELETE FROM t_order WHERE order_id BETWEEN 2000 AND 2100;
-- @params int:5
DELETE FROM t_order WHERE user_id = ? RETURNING order_id;
DELETE FROM t_order_item WHERE quantity < 0;
DELETE FROM t_order_item i USING t_order o WHERE o.order_id = i.order_id AND o.user_id = i.user_id AND o.status IS NULL;
DELETE FROM t_order_item i USING t_order o WHERE o.order_id = i.order_id AND o.status = 'SHIPPED' RETURNING i.order_item_id;
DELETE FROM t_order o WHERE o.user_id = 6 AND NOT EXISTS (SELECT 1 FROM t_order_item i WHERE i.order_id = o.order_id) RETURNING o.order_id;
-- @may-refuse
DELETE FROM t_order_item WHERE order_id NOT IN (SELECT order_id FROM t_order);
DELETE FROM t_user WHERE user_id IN (-3, -7) RETURNING user_id;
DELETE FROM t_log WHERE id % 4 = 1;
DELETE FROM t_event WHERE id = 3;
DELETE FROM t_dict WHERE code = 'RETURNED';
DELETE FROM t_single WHERE id > 15 RETURNING id;
\contents t_order t_order_item t_user t_log t_event t_dict t_single
DELETE FROM t_order WHERE nonexistent = 1;
DELETE FROM t_order_item;
DELETE FROM t_dict;
\contents t_order t_order_item t_dict

\reset
-- ## transactions: ROLLBACK undoes the writes on every shard
BEGIN;
INSERT INTO t_order (order_id, user_id, status) VALUES (8001, 0, 'TX'), (8002, 1, 'TX');
INSERT INTO t_order_item (order_item_id, order_id, user_id) VALUES (80010, 8001, 0);
UPDATE t_order SET status = 'TX' WHERE user_id IN (2, 3);
DELETE FROM t_order WHERE user_id = 4;
UPDATE t_dict SET label = 'in tx' WHERE code = 'NEW';
INSERT INTO t_single (id, name) VALUES (300, 'tx');
SELECT count(*) FROM t_order WHERE status = 'TX';
-- @ordered
SELECT order_id, status FROM t_order WHERE user_id IN (0, 1, 2, 3, 4) ORDER BY order_id;
\contents t_order t_order_item t_dict t_single
ROLLBACK;
\contents t_order t_order_item t_dict t_single
SELECT count(*) FROM t_order WHERE status = 'TX';

-- ## transactions: COMMIT makes the writes on every shard visible
BEGIN;
INSERT INTO t_order (order_id, user_id, status) VALUES (8003, 0, 'TX'), (8004, 1, 'TX');
UPDATE t_order SET status = 'TX2' WHERE user_id IN (2, 3);
UPDATE t_dict SET label = 'in tx' WHERE code = 'NEW';
INSERT INTO t_single (id, name) VALUES (301, 'tx');
COMMIT;
\contents t_order t_dict t_single
SELECT count(*) FROM t_order WHERE status LIKE 'TX%';
START TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SHOW transaction_isolation;
SELECT count(*) FROM t_order;
INSERT INTO t_order (order_id, user_id) VALUES (8005, 0), (8006, 1);
SELECT count(*) FROM t_order;
COMMIT;
SHOW transaction_isolation;
\contents t_order
BEGIN READ ONLY;
SELECT count(*) FROM t_order WHERE user_id = 0;
INSERT INTO t_order (order_id, user_id) VALUES (8007, 0);
ROLLBACK;
START TRANSACTION;
UPDATE t_order SET note = 'started' WHERE order_id IN (8005, 8006);
END;
\contents t_order

-- ## transactions: an error aborts the whole transaction
BEGIN;
INSERT INTO t_order (order_id, user_id, status) VALUES (8101, 0, 'lost'), (8102, 1, 'lost');
INSERT INTO t_order (order_id, user_id) VALUES (1091, 3);
SELECT 1;
SELECT count(*) FROM t_order;
ROLLBACK;
\contents t_order
BEGIN;
INSERT INTO t_order (order_id, user_id) VALUES (8103, 0);
SELECT 1/0;
COMMIT;
\contents t_order
BEGIN;
INSERT INTO t_order (order_id, user_id) VALUES (8104, 0), (8105, 1);
SELECT order_id, 100 / (user_id - 3) FROM t_order;
SELECT 1;
ROLLBACK;
\contents t_order
SELECT count(*) FROM t_order WHERE order_id > 8100 AND order_id < 8200;

-- ## transactions: savepoints
BEGIN;
INSERT INTO t_order (order_id, user_id, status) VALUES (8201, 0, 'before the savepoint');
SAVEPOINT s1;
INSERT INTO t_order (order_id, user_id, status) VALUES (8202, 1, 'first write on ds_1');
INSERT INTO t_order (order_id, user_id, status) VALUES (8203, 0, 'rolled back');
ROLLBACK TO SAVEPOINT s1;
INSERT INTO t_order (order_id, user_id, status) VALUES (8204, 1, 'after ROLLBACK TO');
RELEASE SAVEPOINT s1;
COMMIT;
\contents t_order
BEGIN;
SAVEPOINT a;
INSERT INTO t_order (order_id, user_id) VALUES (8301, 0), (8302, 1);
SAVEPOINT b;
INSERT INTO t_order (order_id, user_id) VALUES (1091, 3);
SELECT 1;
ROLLBACK TO b;
INSERT INTO t_order (order_id, user_id) VALUES (8303, 1);
-- @ordered
SELECT order_id FROM t_order WHERE order_id > 8300 AND order_id < 8400 ORDER BY order_id;
RELEASE a;
COMMIT;
\contents t_order
BEGIN;
INSERT INTO t_order (order_id, user_id) VALUES (8401, 0), (8402, 1);
SAVEPOINT s;
UPDATE t_order SET status = 'gone' WHERE order_id IN (8401, 8402);
DELETE FROM t_dict WHERE code = 'NEW';
ROLLBACK TO SAVEPOINT s;
ROLLBACK TO SAVEPOINT s;
RELEASE SAVEPOINT s;
ROLLBACK TO SAVEPOINT s;
ROLLBACK;
\contents t_order t_dict
SAVEPOINT outside;
ROLLBACK TO SAVEPOINT nowhere;
RELEASE SAVEPOINT nowhere;
COMMIT;
ROLLBACK;

-- ## transactions: locking reads
BEGIN;
-- @ordered
SELECT order_id FROM t_order WHERE user_id = 3 ORDER BY order_id FOR UPDATE;
UPDATE t_order SET status = 'locked' WHERE user_id = 3;
COMMIT;
\contents t_order

\reset
-- ## session settings reach every shard
SET TimeZone = 'Asia/Tokyo';
-- @ordered
SELECT id, logged_at FROM t_log ORDER BY id LIMIT 5;
SELECT min(logged_at), max(logged_at) FROM t_log;
SELECT logged_at FROM t_log WHERE id = 2;
SHOW TimeZone;
SET extra_float_digits = 0;
-- With extra_float_digits 0, float sums and averages merged across shards are refused (the merge prints shortest exact digits only).
-- @may-refuse
SELECT sum(weight), avg(rate::float8), avg(weight) FROM t_order;
-- @ordered
SELECT order_id, weight, rate FROM t_order WHERE user_id = 3 ORDER BY order_id;
RESET TimeZone;
SELECT min(logged_at) FROM t_log;
BEGIN;
SET LOCAL TimeZone = 'America/New_York';
SELECT max(logged_at) FROM t_log;
COMMIT;
SELECT max(logged_at) FROM t_log;
PREPARE by_user (int) AS SELECT order_id FROM t_order WHERE user_id = $1;
EXECUTE by_user(3);
PREPARE by_status AS SELECT user_id, count(*) FROM t_order WHERE status = $1 OR user_id = $2 GROUP BY user_id ORDER BY user_id;
-- @ordered
EXECUTE by_status('PAID', 4);
EXECUTE by_user(1, 2);
EXECUTE nobody(1);
PREPARE by_user AS SELECT 1;
DEALLOCATE by_user;
EXECUTE by_user(3);
DEALLOCATE ALL;
EXECUTE by_status('PAID', 4);

\reset
-- ## DDL on a sharded logical table
CREATE TABLE t_ddl (id INT PRIMARY KEY, label TEXT);
\contents t_ddl
INSERT INTO t_ddl (id, label) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f'), (7, 'g'), (8, 'h');
\contents t_ddl
-- @ordered
SELECT * FROM t_ddl ORDER BY id;
SELECT * FROM t_ddl WHERE id = 6;
SELECT * FROM t_ddl WHERE id IN (2, 3, 4, 5);
CREATE INDEX idx_ddl_label ON t_ddl (label);
SELECT * FROM t_ddl WHERE label = 'c';
ALTER TABLE t_ddl ADD COLUMN extra INT DEFAULT 7;
-- @ordered
SELECT * FROM t_ddl ORDER BY id;
INSERT INTO t_ddl (id, label, extra) VALUES (9, 'i', -1), (10, 'j', NULL);
\contents t_ddl
CREATE INDEX idx_ddl_label ON t_ddl (label);
CREATE INDEX IF NOT EXISTS idx_ddl_label ON t_ddl (label);
DROP INDEX idx_ddl_label;
DROP INDEX idx_ddl_label;
DROP INDEX IF EXISTS idx_ddl_label;
CREATE UNIQUE INDEX idx_ddl_extra ON t_ddl (extra, id);
ALTER TABLE t_ddl DROP COLUMN extra;
-- @ordered
SELECT * FROM t_ddl ORDER BY id;
TRUNCATE t_ddl;
SELECT count(*) FROM t_ddl;
\contents t_ddl
TRUNCATE TABLE t_order_item;
\contents t_order_item
DROP TABLE t_ddl;
SELECT * FROM t_ddl;
\contents t_ddl
DROP TABLE t_ddl;
DROP TABLE IF EXISTS t_ddl;

-- ## a single table created through the proxy
CREATE TABLE t_fresh (id INT PRIMARY KEY, v TEXT);
INSERT INTO t_fresh VALUES (1, 'one'), (2, 'two');
-- @ordered
SELECT * FROM t_fresh ORDER BY id;
SELECT count(*) FROM t_fresh;
UPDATE t_fresh SET v = upper(v) RETURNING *;
SELECT f.v, d.label FROM t_fresh f JOIN t_dict d ON d.rank = f.id;
DROP TABLE t_fresh;
SELECT * FROM t_fresh;
