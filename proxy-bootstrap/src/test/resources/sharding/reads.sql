-- Read corpus of the sharding differential tests (ShardingReadDifferentialTest).
-- Each statement runs through the proxy (sharding_db over ds_0 and ds_1) and against the reference database,
-- which holds the same rows in plain tables; the answers must be the same. Directives above a statement (see
-- Corpus.java and CorpusEntry.java): ordered, ordered N,M, rowcount, params, may-refuse, refused WORDS.
-- Statements here must not change data:
-- the whole file runs three times on the same rows (extended, simple, and named prepared statements).
-- Data: TestData.java. Layout: config-sharding.yaml. Grow this file from every bug found.

-- ## point selects
SELECT * FROM t_order WHERE user_id = 3;
SELECT * FROM t_order WHERE order_id = 1091;
SELECT * FROM t_order WHERE user_id = 3 AND order_id = 1091;
SELECT * FROM t_order WHERE user_id = 4 AND order_id = 1091;
SELECT * FROM t_order WHERE order_id = 1091 AND user_id = 3 AND status = 'SHIPPED';
SELECT order_id, status FROM t_order WHERE user_id IN (1, 2, 5);
SELECT * FROM t_order WHERE order_id IN (1000, 1007, 1014, 1021, 99999);
SELECT * FROM t_order WHERE order_id IN (1091) AND user_id IN (3, 4);
SELECT * FROM t_order WHERE user_id BETWEEN 3 AND 6;
SELECT * FROM t_order WHERE order_id BETWEEN 1100 AND 1200;
SELECT * FROM t_order WHERE order_id NOT BETWEEN 1100 AND 3000;
SELECT order_id FROM t_order WHERE order_id > 3000;
SELECT order_id FROM t_order WHERE order_id >= 3093;
SELECT order_id FROM t_order WHERE order_id < 1050;
SELECT order_id FROM t_order WHERE order_id <= 1049;
SELECT order_id FROM t_order WHERE 1049 >= order_id;
SELECT order_id FROM t_order WHERE order_id > 1100 AND order_id < 1150;
SELECT order_id FROM t_order WHERE user_id > 40 AND order_id < 1500;
SELECT * FROM t_order WHERE user_id = 3 OR user_id = 8;
SELECT * FROM t_order WHERE user_id = 3 OR order_id = 1126;
SELECT * FROM t_order WHERE (user_id = 3 AND status = 'PAID') OR (user_id = 4 AND order_id > 2000);
SELECT * FROM t_order WHERE user_id = 3 AND (order_id = 1091 OR order_id = 1168);
SELECT * FROM t_order WHERE user_id = 3 AND user_id = 4;
SELECT * FROM t_order WHERE user_id <> 3 AND user_id < 5;
SELECT * FROM t_order WHERE NOT (user_id = 3) AND user_id < 3;
SELECT * FROM t_order WHERE user_id IS NULL;
SELECT * FROM t_order WHERE user_id = 3::int;
SELECT * FROM t_order WHERE user_id = CAST('3' AS int);
SELECT * FROM t_order WHERE user_id = '3';
SELECT * FROM t_order WHERE user_id = 3.0;
SELECT * FROM t_order WHERE order_id = 1091::bigint;
SELECT * FROM t_order WHERE order_id = 3000000303;
SELECT * FROM t_order WHERE order_id IN (3000000300, 3000000301) OR user_id = 0;
SELECT * FROM t_order WHERE (user_id) = (3);
SELECT * FROM t_order WHERE 3 = user_id;
SELECT * FROM t_order WHERE user_id = 3 AND amount > 0;
SELECT * FROM t_order WHERE user_id IN (3) AND order_id IN (1091, 1168, 1224, 1420);
SELECT * FROM t_order WHERE order_id = -5;
SELECT * FROM t_order_item WHERE user_id = -1;
SELECT * FROM t_order WHERE user_id = 99;
SELECT * FROM t_order WHERE order_id = ANY (ARRAY[1091, 1126]);
SELECT * FROM t_order WHERE user_id = 3 AND order_id = ANY ('{1091,1168,9}');
SELECT * FROM t_order WHERE user_id IS NOT DISTINCT FROM 3;
SELECT * FROM t_order WHERE (user_id, order_id) = (3, 1091);
SELECT * FROM t_order WHERE user_id = 3 AND order_id IN (SELECT 1091);
-- @params int:3
SELECT * FROM t_order WHERE user_id = ?;
-- @params long:1091
SELECT * FROM t_order WHERE order_id = ?;
-- @params int:3, long:1168
SELECT * FROM t_order WHERE user_id = ? AND order_id = ?;
-- @params int:1, int:2, int:5
SELECT order_id, status FROM t_order WHERE user_id IN (?, ?, ?);
-- @params long:1100, long:1200
SELECT order_id FROM t_order WHERE order_id BETWEEN ? AND ?;
-- @params text:3
SELECT * FROM t_order WHERE user_id = ?::int;
-- @params long:3
SELECT * FROM t_order WHERE user_id = ?;
-- @params null:int
SELECT * FROM t_order WHERE user_id = ?;
-- the same text bound again: with named statements the proxy's cached plan must route each execution anew
-- @params int:4
SELECT * FROM t_order WHERE user_id = ?;
-- @params int:0
SELECT * FROM t_order WHERE user_id = ?;
-- @params int:99
SELECT * FROM t_order WHERE user_id = ?;
-- @params text:3
SELECT * FROM t_order WHERE user_id = ?;
-- @params int:3, text:PAID
SELECT order_id FROM t_order WHERE user_id = ? AND status = ?;
SELECT * FROM public.t_order WHERE user_id = 3;
SELECT * FROM "t_order" WHERE "user_id" = 3;
SELECT * FROM T_ORDER WHERE USER_ID = 3;
SELECT o.order_id, o.status FROM t_order AS o WHERE o.user_id = 3;
SELECT o.order_id FROM t_order o WHERE o.order_id = 1091;
SELECT t_order.order_id FROM t_order WHERE t_order.user_id = 3;
SELECT /* a comment */ order_id -- and another
FROM t_order WHERE user_id = 3;
SELECT * FROM t_user WHERE user_id = 7;
SELECT * FROM t_user WHERE user_id = -7;
SELECT * FROM t_user WHERE user_id = -3;
-- HASH_MOD must place -7 the same way however the value is spelled (the row went in as the literal -7)
SELECT * FROM t_user WHERE user_id = '-7'::int8;
SELECT * FROM t_user WHERE user_id = CAST(-7 AS bigint);
SELECT * FROM t_user WHERE user_id = -3::bigint;
SELECT * FROM t_user WHERE user_id IN (-7::int8, 5);
-- @params int:-7
SELECT * FROM t_user WHERE user_id = ?;
-- @params long:-7
SELECT * FROM t_user WHERE user_id = ?;
-- @params long:7
SELECT * FROM t_user WHERE user_id = ?;
SELECT * FROM t_user WHERE user_id IN (-3, -7, 5, 100);
SELECT * FROM t_user WHERE user_id BETWEEN -10 AND 5;
SELECT * FROM t_user WHERE user_id > 35;
SELECT * FROM t_log WHERE id = 17;
SELECT * FROM t_log WHERE id IN (1, 2, 3, 4, 5);
SELECT * FROM t_log WHERE id BETWEEN 10 AND 20;
SELECT * FROM t_log WHERE id > 190;
SELECT * FROM t_log WHERE id < 3 OR id = 150;
-- @params long:42
SELECT * FROM t_log WHERE id = ?;
SELECT * FROM t_event WHERE id = 5;
SELECT * FROM t_event WHERE id IN (1, 2, 40);
SELECT * FROM t_event WHERE id = 5 OR id = 6;
-- allow-range-query-with-inline-sharding: false, set explicitly: a range on t_event's sharding column is refused
-- @refused t_event
SELECT * FROM t_event WHERE id > 30;
-- @refused t_event
SELECT * FROM t_event WHERE id BETWEEN 3 AND 6;
SELECT * FROM t_event WHERE qty > 10;

-- ## full scans
SELECT * FROM t_order;
SELECT * FROM t_order_item;
SELECT * FROM t_user;
SELECT * FROM t_log;
SELECT * FROM t_event;
SELECT order_id, amount * 2 AS doubled, upper(note), coalesce(status, '?') AS s, weight + rate AS w FROM t_order;
SELECT * FROM t_order WHERE status = 'PAID';
SELECT * FROM t_order WHERE note LIKE 'a%';
SELECT * FROM t_order WHERE note ILIKE 'APPLE';
SELECT * FROM t_order WHERE note LIKE '%\%%';
SELECT * FROM t_order WHERE amount > 100;
SELECT * FROM t_order WHERE amount IS NULL;
SELECT * FROM t_order WHERE note = '';
SELECT * FROM t_order WHERE note = 'ärger';
SELECT * FROM t_order WHERE note = '😀';
SELECT * FROM t_order WHERE created_at >= '2024-12-01';
SELECT * FROM t_order WHERE created_at = '2024-02-29 12:00';
SELECT * FROM t_order WHERE discount = 7;
SELECT order_id, discount, discount * 1 AS d FROM t_order WHERE discount IN (12.5, 7);
SELECT 1 FROM t_order WHERE false;
SELECT order_id, amount FROM t_order WHERE false;
SELECT order_id, created_at::date AS day, created_at::time AS at, extract(year FROM created_at) AS y FROM t_order;
SELECT order_id, CASE WHEN amount > 1000 THEN 'big' WHEN amount IS NULL THEN 'none' ELSE 'small' END AS size FROM t_order;
SELECT order_id::text, amount::float8, weight::numeric(10,1), rate::float8, note || '!' AS n FROM t_order;
-- @params text:tag
SELECT ?::text AS tag, order_id FROM t_order WHERE user_id = 3;
SELECT * FROM t_order WHERE user_id = 3 FOR UPDATE;
SELECT * FROM t_order FOR SHARE;

-- ## ORDER BY
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY order_id;
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY order_id DESC;
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY amount, order_id;
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY amount DESC, order_id;
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY amount NULLS FIRST, order_id;
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY amount DESC NULLS LAST, order_id DESC;
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY amount ASC NULLS LAST, order_id ASC;
-- @ordered
SELECT amount FROM t_order ORDER BY amount;
-- @ordered
SELECT amount FROM t_order ORDER BY amount DESC;
-- @ordered
SELECT order_id, note FROM t_order ORDER BY note, order_id;
-- @ordered
SELECT note FROM t_order ORDER BY note;
-- @ordered
SELECT note FROM t_order ORDER BY note DESC NULLS LAST;
-- @ordered
SELECT order_id, note FROM t_order ORDER BY note COLLATE "C", order_id;
-- @ordered
SELECT order_id, status FROM t_order ORDER BY status DESC, order_id;
-- @ordered
SELECT order_id, user_id FROM t_order ORDER BY 2, 1;
-- @ordered
SELECT order_id, user_id FROM t_order ORDER BY 2 DESC, 1 DESC;
-- @ordered
SELECT order_id AS id, amount AS a FROM t_order ORDER BY a, id;
-- @ordered
SELECT order_id AS "Id", amount AS "Total" FROM t_order ORDER BY "Total" DESC, "Id";
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY amount * -1, order_id;
-- @ordered
SELECT order_id FROM t_order ORDER BY created_at, order_id;
-- @ordered
SELECT order_id FROM t_order ORDER BY created_at DESC NULLS LAST, order_id;
-- @ordered
SELECT order_id, created_at FROM t_order ORDER BY created_at NULLS FIRST, order_id;
-- @ordered
SELECT order_id, note FROM t_order ORDER BY lower(note), order_id;
-- @ordered
SELECT order_id, note FROM t_order ORDER BY upper(note) DESC, order_id;
-- @ordered
SELECT order_id, weight FROM t_order ORDER BY weight, order_id;
-- @ordered
SELECT order_id, rate FROM t_order ORDER BY rate DESC, order_id;
-- @ordered
SELECT order_id, discount FROM t_order ORDER BY discount, order_id;
-- @ordered
SELECT discount, order_id FROM t_order ORDER BY discount DESC, order_id DESC;
-- @ordered
SELECT order_id FROM t_order ORDER BY (amount > 0), order_id;
-- @ordered
SELECT order_id, created_at::date AS day FROM t_order ORDER BY day NULLS FIRST, order_id DESC;
-- @ordered 2,3
SELECT order_id, status, amount FROM t_order ORDER BY status, amount DESC;
-- @ordered 2
SELECT order_id, user_id FROM t_order ORDER BY user_id;
-- @ordered 2
SELECT order_id, note FROM t_order ORDER BY note NULLS FIRST;
-- @ordered
SELECT order_id, amount FROM t_order WHERE user_id = 3 ORDER BY amount DESC, order_id;
-- @ordered
SELECT order_id, amount FROM t_order WHERE order_id IN (1091, 1126, 1168, 1119) ORDER BY order_id DESC;
-- @ordered
SELECT * FROM t_order ORDER BY order_id;
-- @ordered
SELECT * FROM t_order_item ORDER BY price DESC NULLS LAST, order_item_id;
-- @ordered
SELECT user_id, name FROM t_user ORDER BY name, user_id;
-- @ordered
SELECT user_id, name, city FROM t_user ORDER BY city NULLS FIRST, name DESC, user_id;
-- @ordered
SELECT user_id, balance FROM t_user ORDER BY balance DESC, user_id;
-- @ordered
SELECT user_id, joined FROM t_user ORDER BY joined, user_id;
-- @ordered
SELECT id, logged_at FROM t_log ORDER BY logged_at, id;
-- @ordered
SELECT id, cost FROM t_log ORDER BY cost DESC NULLS LAST, id;
-- @ordered
SELECT id, level FROM t_log ORDER BY level, id DESC;
-- @ordered
SELECT * FROM t_event ORDER BY id;
-- @ordered
SELECT kind, qty FROM t_event ORDER BY kind, qty;
-- @ordered
SELECT t_order.order_id FROM t_order ORDER BY t_order.order_id;
-- @ordered
SELECT o.order_id, o.amount FROM t_order o ORDER BY o.amount, o.order_id;
-- an output column named like a table column wins in ORDER BY
-- @ordered
SELECT order_id AS amount, amount AS order_id FROM t_order ORDER BY amount;
-- @ordered
SELECT order_id AS amount, amount AS order_id FROM t_order ORDER BY order_id DESC NULLS LAST, amount;
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY t_order.amount, t_order.order_id;
-- @ordered
SELECT id, cost FROM t_log ORDER BY cost NULLS FIRST, id;
-- @ordered
SELECT cost FROM t_log ORDER BY cost DESC;
-- @ordered
SELECT user_id, joined FROM t_user ORDER BY joined DESC NULLS LAST, user_id;
-- @ordered
SELECT order_id, amount > 100 AS big FROM t_order ORDER BY big, order_id;
-- @ordered 1
SELECT status FROM t_order ORDER BY status USING >;

-- ## LIMIT, OFFSET, FETCH FIRST
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id LIMIT 10;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id LIMIT 10 OFFSET 5;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id DESC LIMIT 3 OFFSET 1;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id OFFSET 295;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id OFFSET 400;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id LIMIT 0;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id LIMIT ALL;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id LIMIT 5 OFFSET 0;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id FETCH FIRST 5 ROWS ONLY;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id OFFSET 3 ROWS FETCH NEXT 4 ROWS ONLY;
-- @ordered
SELECT order_id FROM t_order ORDER BY order_id FETCH FIRST ROW ONLY;
-- @ordered
SELECT order_id, amount FROM t_order ORDER BY amount DESC NULLS LAST, order_id LIMIT 5 OFFSET 2;
-- @ordered
SELECT order_id, note FROM t_order ORDER BY note, order_id LIMIT 20;
-- @ordered
SELECT order_id, amount FROM t_order WHERE user_id = 3 ORDER BY order_id LIMIT 2 OFFSET 1;
-- @ordered
-- @params int:5, int:3
SELECT order_id FROM t_order ORDER BY order_id LIMIT ? OFFSET ?;
-- @ordered
-- @params int:2, int:300
SELECT order_id FROM t_order ORDER BY order_id LIMIT ? OFFSET ?;
-- @ordered
-- @params int:0, int:0
SELECT order_id FROM t_order ORDER BY order_id LIMIT ? OFFSET ?;
-- @ordered
-- @params int:4
SELECT order_id FROM t_order ORDER BY order_id DESC FETCH FIRST ? ROWS ONLY;
-- @rowcount
SELECT order_id FROM t_order LIMIT 7;
-- @rowcount
SELECT order_id FROM t_order LIMIT 7 OFFSET 300;
-- @rowcount
SELECT order_id FROM t_order OFFSET 10;
SELECT count(*) FROM t_order LIMIT 1;
SELECT count(*) FROM t_order OFFSET 1;
-- @ordered
SELECT user_id, count(*) FROM t_order GROUP BY user_id ORDER BY count(*) DESC, user_id LIMIT 5;
-- @ordered
SELECT user_id, sum(amount) AS total FROM t_order GROUP BY user_id ORDER BY total DESC NULLS LAST, user_id LIMIT 5 OFFSET 5;
-- @ordered
SELECT DISTINCT user_id FROM t_order ORDER BY user_id LIMIT 5 OFFSET 3;
-- @ordered 1
SELECT user_id FROM t_order ORDER BY user_id FETCH FIRST 5 ROWS WITH TIES;

-- ## aggregates
SELECT count(*) FROM t_order;
SELECT count(*), count(amount), count(note), count(1), count(order_id) FROM t_order;
SELECT sum(amount), min(amount), max(amount), avg(amount) FROM t_order;
SELECT sum(discount), avg(discount), min(discount), max(discount) FROM t_order;
SELECT sum(user_id), avg(user_id), sum(order_id), avg(order_id) FROM t_order;
SELECT sum(weight), avg(weight), min(weight), max(weight) FROM t_order;
SELECT sum(rate), min(rate), max(rate) FROM t_order;
SELECT avg(rate::float8) FROM t_order;
-- avg(real) over several shards cannot be merged: the shards' float4 sums would lose the precision PostgreSQL's float8
-- accumulation keeps. The merge finds out from the shards' result types, and PostgreSQL finishes it over intermediate results.
SELECT avg(rate) FROM t_order;
SELECT min(note), max(note) FROM t_order;
SELECT min(status), max(status) FROM t_order;
SELECT min(created_at), max(created_at) FROM t_order;
SELECT count(*) AS n, sum(amount) AS total, avg(amount) AS "Average" FROM t_order;
SELECT sum(amount), avg(amount), count(*), count(amount), min(note), max(weight) FROM t_order WHERE false;
SELECT count(*), sum(amount), avg(amount) FROM t_order WHERE user_id = 3;
SELECT count(*), sum(amount), avg(discount) FROM t_order WHERE order_id = 1091;
SELECT count(*), avg(weight) FROM t_order WHERE user_id IN (3, 4);
SELECT sum(amount * 2), avg(amount + 1), max(amount - discount), min(-amount) FROM t_order;
SELECT avg(abs(weight)), sum(round(weight)) FROM t_order;
SELECT count(DISTINCT user_id), count(DISTINCT status), count(*) FROM t_order;
SELECT count(DISTINCT note) FROM t_order;
SELECT count(DISTINCT discount) FROM t_order;
SELECT sum(DISTINCT user_id), avg(DISTINCT amount) FROM t_order;
SELECT sum(amount) / count(*) AS mean FROM t_order;
SELECT max(amount) - min(amount) AS spread FROM t_order;
SELECT string_agg(status, ',' ORDER BY order_id) FROM t_order;
SELECT array_agg(order_id ORDER BY order_id) FROM t_order;
SELECT stddev(amount) FROM t_order;
SELECT count(*) FILTER (WHERE amount > 0) FROM t_order;
SELECT sum(quantity), avg(quantity), sum(price), avg(price), min(price), max(price) FROM t_order_item;
SELECT sum(balance), avg(balance), avg(score), sum(score), min(name), max(city), count(DISTINCT city) FROM t_user;
SELECT sum(cost), avg(cost), min(logged_at), max(logged_at), count(level) FROM t_log;
SELECT sum(qty), avg(qty), count(*) FROM t_event;
SELECT max(user_id), min(user_id), avg(user_id) FROM t_user;
SELECT avg(amount)::numeric(10,2), round(avg(amount), 3) FROM t_order;
SELECT count(*), sum(amount), avg(amount), max(note), min(created_at) FROM t_order WHERE user_id = 99;
SELECT count(*), sum(amount) FROM t_order WHERE user_id = 3 AND user_id = 4;
SELECT max(amount), min(amount) FROM t_order WHERE user_id = 3;
SELECT sum(cost), avg(cost), min(cost), max(cost), count(cost) FROM t_log;
SELECT sum(quantity::int2), sum(order_id::numeric), avg(quantity::int2), avg(product_id::int8) FROM t_order_item;
SELECT min(joined), max(joined) FROM t_user;
SELECT min(weight::float4), max(rate::float8), sum(weight::float4) FROM t_order;
SELECT sum(created_at - '2024-01-01'::timestamp), avg(created_at - '2024-01-01'::timestamp) FROM t_order;
SELECT max(created_at - '2024-01-01'::timestamp), min(created_at::time) FROM t_order;

-- ## GROUP BY and HAVING
SELECT user_id, count(*) FROM t_order GROUP BY user_id;
-- @ordered
SELECT user_id, count(*) FROM t_order GROUP BY user_id ORDER BY user_id;
-- @ordered
SELECT user_id, count(*), sum(amount), avg(amount), min(weight), max(note) FROM t_order GROUP BY user_id ORDER BY user_id DESC;
-- @ordered
SELECT status, count(*), sum(amount), avg(amount), min(weight), max(note) FROM t_order GROUP BY status ORDER BY status NULLS FIRST;
-- @ordered
SELECT status, count(*) FROM t_order GROUP BY 1 ORDER BY 1;
-- @ordered
SELECT upper(status), count(*) FROM t_order GROUP BY upper(status) ORDER BY 1;
-- @ordered
SELECT upper(status) AS s, count(*) AS n FROM t_order GROUP BY s ORDER BY s;
SELECT count(*) FROM t_order GROUP BY user_id % 3;
-- @ordered
SELECT user_id % 3 AS bucket, count(*), sum(weight) FROM t_order GROUP BY user_id % 3 ORDER BY bucket;
-- @ordered
SELECT user_id, status, count(*), sum(discount) FROM t_order GROUP BY user_id, status ORDER BY user_id, status;
-- @ordered
SELECT status, count(*) FROM t_order GROUP BY status ORDER BY count(*) DESC, status;
-- @ordered
SELECT status FROM t_order GROUP BY status ORDER BY sum(amount) NULLS FIRST, status;
-- @ordered
SELECT date_trunc('month', created_at) AS month, count(*), avg(amount) FROM t_order GROUP BY 1 ORDER BY 1;
-- @ordered
SELECT order_id, sum(quantity), avg(price), count(*) FROM t_order_item GROUP BY order_id ORDER BY order_id;
-- @ordered
SELECT product_id, count(*), sum(quantity), avg(quantity) FROM t_order_item GROUP BY product_id ORDER BY product_id NULLS FIRST;
-- @ordered
SELECT note, count(*) FROM t_order GROUP BY note ORDER BY note;
-- 7 and 7.000 are one group and one distinct value (which of the two PostgreSQL shows depends on row order)
-- @ordered
SELECT round(discount, 4) AS d, count(*), sum(discount) FROM t_order GROUP BY discount ORDER BY discount;
SELECT count(*) FROM t_order GROUP BY discount;
SELECT count(*) FROM (SELECT DISTINCT discount FROM t_order WHERE user_id = 3) s;
-- @ordered
SELECT weight, count(*) FROM t_order GROUP BY weight ORDER BY weight LIMIT 20;
-- @ordered
SELECT city, count(*), count(DISTINCT name), avg(score) FROM t_user GROUP BY city ORDER BY city;
-- @ordered
SELECT level, count(*), sum(cost), avg(cost), max(logged_at) FROM t_log GROUP BY level ORDER BY level;
-- @ordered
SELECT kind, sum(qty), count(*) FROM t_event GROUP BY kind ORDER BY kind;
-- @ordered
SELECT status, count(DISTINCT user_id) FROM t_order GROUP BY status ORDER BY status;
-- @ordered
SELECT user_id, count(*) FROM t_order WHERE user_id IN (3, 4, 7) GROUP BY user_id ORDER BY user_id;
-- @ordered
SELECT user_id, count(*) FROM t_order WHERE user_id = 3 GROUP BY user_id;
-- @ordered
SELECT user_id, count(*) FROM t_order GROUP BY user_id HAVING count(*) > 8 ORDER BY user_id;
-- @ordered
SELECT user_id, sum(amount) FROM t_order GROUP BY user_id HAVING sum(amount) > 15000 ORDER BY user_id;
-- @ordered
SELECT user_id, count(*), min(amount) FROM t_order GROUP BY user_id HAVING count(*) > 5 AND min(amount) < 0 ORDER BY user_id;
-- @ordered
SELECT user_id, avg(weight) FROM t_order GROUP BY user_id HAVING avg(weight) > 400 ORDER BY user_id;
-- @ordered
SELECT user_id FROM t_order GROUP BY user_id HAVING max(amount) > 4500 ORDER BY user_id;
-- @ordered
SELECT status, count(*) AS n FROM t_order GROUP BY status HAVING count(*) >= 40 ORDER BY n DESC, status;
SELECT count(*) FROM t_order HAVING count(*) > 100;
SELECT count(*) FROM t_order HAVING count(*) > 1000;
-- @ordered
SELECT user_id, count(*) FROM t_order GROUP BY user_id ORDER BY user_id LIMIT 5 OFFSET 10;
SELECT status, count(*) FROM t_order WHERE false GROUP BY status;
SELECT status, count(*) FROM t_order WHERE user_id = 99 GROUP BY status;
-- @ordered
SELECT user_id, count(*) FROM t_order GROUP BY user_id HAVING user_id > 40 ORDER BY user_id;
-- @ordered
SELECT user_id, avg(amount) FROM t_order GROUP BY user_id ORDER BY avg(amount) DESC NULLS LAST, user_id LIMIT 5;
-- @ordered 1
SELECT count(*) AS c FROM t_order GROUP BY status ORDER BY c;
-- @ordered
SELECT status, max(order_id) FROM t_order GROUP BY status ORDER BY 2 DESC LIMIT 3;
-- @ordered
SELECT level, count(*), min(cost), max(cost), sum(cost) FROM t_log GROUP BY level ORDER BY max(cost) DESC, level NULLS FIRST;
-- @ordered
SELECT cost, count(*) FROM t_log GROUP BY cost ORDER BY cost DESC NULLS LAST LIMIT 5;
-- @ordered
SELECT joined, count(*) FROM t_user GROUP BY joined ORDER BY joined NULLS FIRST LIMIT 5;
-- @ordered
SELECT created_at::date AS day, count(*), sum(amount) FROM t_order GROUP BY day ORDER BY count(*) DESC, day LIMIT 5;
SELECT user_id, string_agg(note, ',' ORDER BY order_id) FROM t_order WHERE user_id = 3 GROUP BY user_id;
-- @ordered
-- grouping sets, which the merge cannot do, are finished by PostgreSQL (the only gap a recursive plan takes)
SELECT status, count(*) FROM t_order GROUP BY ROLLUP (status) ORDER BY grouping(status), status NULLS FIRST;
-- @ordered
SELECT status, user_id, count(*), sum(amount), grouping(status, user_id) FROM t_order WHERE user_id < 6
 GROUP BY GROUPING SETS ((status), (user_id), ()) ORDER BY 5, 1 NULLS FIRST, 2 NULLS FIRST;
-- @ordered
SELECT status, user_id, count(*) FROM t_order WHERE user_id IN (3, 4, 7) GROUP BY CUBE (status, user_id)
 ORDER BY grouping(status, user_id), 1 NULLS FIRST, 2 NULLS FIRST;
-- @ordered
SELECT o.status, u.name IS NULL AS anonymous, count(*) FROM t_order o LEFT JOIN t_user u ON u.user_id = o.user_id
 GROUP BY ROLLUP (o.status, u.name IS NULL) ORDER BY grouping(o.status, u.name IS NULL), 1 NULLS FIRST, 2 NULLS FIRST;
-- on one shard it goes there whole, grouping sets and all
SELECT status, count(*) FROM t_order WHERE user_id = 3 GROUP BY ROLLUP (status);

-- ## DISTINCT
SELECT DISTINCT status FROM t_order;
-- @ordered
SELECT DISTINCT status FROM t_order ORDER BY status NULLS FIRST;
-- @ordered
SELECT DISTINCT user_id, status FROM t_order ORDER BY 1, 2;
SELECT DISTINCT upper(note) FROM t_order;
SELECT DISTINCT round(discount, 4) FROM t_order;
-- @ordered
SELECT DISTINCT note FROM t_order ORDER BY note DESC;
-- @ordered
SELECT DISTINCT product_id FROM t_order_item ORDER BY product_id LIMIT 5;
SELECT DISTINCT city FROM t_user;
SELECT DISTINCT user_id FROM t_order WHERE user_id IN (3, 4);
-- @ordered
SELECT DISTINCT created_at::date AS day FROM t_order ORDER BY day LIMIT 10;
-- @ordered
SELECT DISTINCT ON (user_id) user_id, order_id FROM t_order ORDER BY user_id, order_id;
SELECT DISTINCT ON (order_id) order_id, user_id FROM t_order WHERE user_id = 3 AND order_id = 1091;
SELECT DISTINCT cost FROM t_log;
-- @ordered
SELECT DISTINCT status, upper(status) AS u FROM t_order ORDER BY u NULLS FIRST, status NULLS FIRST;
SELECT DISTINCT user_id % 5 FROM t_order;
SELECT count(DISTINCT user_id) FROM t_order WHERE user_id = 99;

-- ## joins of binding tables
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id;
SELECT o.order_id, i.order_item_id, i.quantity FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id WHERE o.user_id = 3;
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id WHERE o.order_id IN (1007, 1014);
-- ShardingSphere's binding join: joined on order_id alone, the column that picks the actual table, the binding
-- declaration vouching for user_id (TestData gives every item its order's user_id), so each node joins its own
-- t_order_N with its own t_order_item_N and the route follows conditions on either table.
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id;
SELECT o.order_id, i.order_item_id FROM t_order o INNER JOIN t_order_item i ON i.order_id = o.order_id WHERE i.user_id = 5;
SELECT i.* FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id WHERE o.order_id = 1091;
-- @params long:1091
SELECT i.* FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id WHERE o.order_id = ?;
SELECT o.order_id, o.status, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id WHERE i.order_id = 1168;
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id WHERE o.user_id = 3 AND o.order_id = 1091;
-- @params int:4, long:1168
SELECT o.order_id, i.order_item_id, i.price FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id WHERE i.user_id = ? AND o.order_id = ?;
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id WHERE o.order_id IN (1007, 1014, 1091, 3000000301);
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id WHERE o.user_id = 3 AND i.user_id = 4;
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id WHERE o.user_id = 3 OR i.order_id = 1168;
SELECT count(*), sum(i.quantity), max(i.price) FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id;
-- @ordered
SELECT o.user_id, count(*), sum(i.quantity), avg(i.price) FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id GROUP BY o.user_id ORDER BY o.user_id;
-- @ordered
SELECT o.order_id, i.order_item_id, i.price FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id ORDER BY i.price DESC NULLS LAST, i.order_item_id LIMIT 10 OFFSET 3;
SELECT o.order_id, i.order_item_id FROM t_order o LEFT JOIN t_order_item i ON o.order_id = i.order_id;
SELECT o.order_id, o.user_id FROM t_order o LEFT JOIN t_order_item i ON o.order_id = i.order_id WHERE i.order_item_id IS NULL;
SELECT o.order_id, i.order_item_id FROM t_order o LEFT JOIN t_order_item i ON o.order_id = i.order_id AND i.quantity > 5 WHERE o.user_id = 8;
SELECT o.order_id, i.order_item_id FROM t_order_item i RIGHT JOIN t_order o ON o.order_id = i.order_id WHERE o.user_id = 4;
SELECT o.order_id, i.order_item_id FROM t_order o FULL JOIN t_order_item i ON o.order_id = i.order_id;
-- @ordered
SELECT o.status, count(DISTINCT o.order_id), count(i.order_item_id) FROM t_order o LEFT JOIN t_order_item i ON o.order_id = i.order_id GROUP BY o.status ORDER BY o.status;
SELECT order_id, user_id, i.order_item_id FROM t_order o JOIN t_order_item i USING (order_id) WHERE order_id = 1168;
SELECT o.order_id, i.order_item_id FROM t_order o, t_order_item i WHERE i.order_id = o.order_id AND o.user_id = 7;
SELECT o.order_id, i.order_item_id, j.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id JOIN t_order_item j ON j.order_id = o.order_id WHERE o.user_id = 9;
SELECT o.order_id, i.order_item_id, d.rank FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id JOIN t_dict d ON d.code = o.status;
SELECT o.order_id FROM t_order o WHERE EXISTS (SELECT 1 FROM t_order_item i WHERE i.order_id = o.order_id AND i.quantity > 10);
SELECT o.order_id, o.user_id FROM t_order o WHERE NOT EXISTS (SELECT 1 FROM t_order_item i WHERE i.order_id = o.order_id);
SELECT o.order_id, (SELECT count(*) FROM t_order_item i WHERE i.order_id = o.order_id) AS items FROM t_order o WHERE o.user_id = 5;
-- Joined on user_id alone, an order would meet the items of its user's other orders, which live in other tables:
-- no binding declaration keeps those together. Finished by PostgreSQL over intermediate results.
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.user_id = i.user_id;
SELECT count(*) FROM t_order o CROSS JOIN t_order_item i;
SELECT o.order_id FROM t_order o WHERE EXISTS (SELECT 1 FROM t_order_item i WHERE i.user_id = o.user_id AND i.quantity > 10);
SELECT o.order_id, i.order_item_id FROM t_order o LEFT JOIN t_order_item i USING (order_id, user_id);
SELECT order_id, user_id, i.order_item_id FROM t_order o LEFT JOIN t_order_item i USING (order_id, user_id) WHERE i.order_item_id IS NULL;
SELECT o.order_id, i.order_item_id FROM t_order_item i RIGHT JOIN t_order o ON o.order_id = i.order_id AND o.user_id = i.user_id;
SELECT o.order_id, i.order_item_id FROM t_order o FULL JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id;
SELECT * FROM t_order NATURAL JOIN t_order_item;
SELECT o.order_id, i.order_item_id FROM t_order o, t_order_item i WHERE o.order_id = i.order_id AND o.user_id = i.user_id;
SELECT count(*) FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id;
-- @ordered
SELECT o.user_id, count(*), sum(i.quantity), avg(i.price) FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id GROUP BY o.user_id ORDER BY o.user_id;
-- @ordered
SELECT o.order_id, i.order_item_id, i.price FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id ORDER BY o.order_id, i.order_item_id LIMIT 20;
-- @ordered
SELECT o.order_id, i.order_item_id, i.price FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id ORDER BY i.price DESC NULLS LAST, i.order_item_id LIMIT 10 OFFSET 10;
-- @ordered
SELECT o.status, count(DISTINCT o.order_id), count(i.order_item_id) FROM t_order o LEFT JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id GROUP BY o.status ORDER BY o.status;
SELECT o.order_id, d.label FROM t_order o JOIN t_dict d ON d.code = o.status;
SELECT o.order_id, d.label FROM t_order o LEFT JOIN t_dict d ON d.code = o.status WHERE o.user_id = 3;
SELECT o.order_id, i.order_item_id, d.rank FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id JOIN t_dict d ON d.code = o.status;
-- @ordered
SELECT d.label, count(*), sum(o.amount) FROM t_order o JOIN t_dict d ON d.code = o.status GROUP BY d.label ORDER BY d.label;
-- @ordered
SELECT d.code, count(o.order_id) FROM t_dict d LEFT JOIN t_order o ON o.status = d.code GROUP BY d.code ORDER BY d.code;
SELECT d.code, o.order_id FROM t_dict d LEFT JOIN t_order o ON o.status = d.code;
SELECT a.order_id, b.order_id FROM t_order a JOIN t_order b ON a.user_id = b.user_id AND a.order_id < b.order_id WHERE a.user_id = 3;
SELECT a.order_id, b.order_id FROM t_order a JOIN t_order b ON a.user_id = b.user_id AND a.order_id = b.order_id;
-- joins of sharded tables that are not bound: no shard-to-shard route is right; finished by PostgreSQL over intermediate results
SELECT o.order_id, u.name FROM t_order o JOIN t_user u ON u.user_id = o.user_id;
SELECT o.order_id, l.id FROM t_order o JOIN t_log l ON l.user_id = o.user_id;
SELECT o.order_id, u.name FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.user_id = 3 AND u.user_id = 3;
SELECT u.name, d.label FROM t_user u CROSS JOIN t_dict d WHERE u.user_id = 7;
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.order_id = i.order_id AND o.user_id = i.user_id WHERE o.user_id = 3 AND i.order_id = 1091;
-- @ordered
SELECT o.order_id, sum(i.quantity) AS q FROM t_order o JOIN t_order_item i USING (order_id, user_id) GROUP BY o.order_id HAVING sum(i.quantity) > 25 ORDER BY q DESC, o.order_id;
SELECT o.order_id, i.order_item_id FROM t_order o JOIN t_order_item i ON o.user_id = i.user_id WHERE o.order_id = 1091;

-- ## broadcast table
SELECT * FROM t_dict;
-- @ordered
SELECT * FROM t_dict ORDER BY rank;
SELECT * FROM t_dict WHERE code = 'PAID';
SELECT count(*), sum(rank), avg(rank) FROM t_dict;
-- @ordered
SELECT code FROM t_dict ORDER BY code LIMIT 2 OFFSET 1;
SELECT code FROM t_dict WHERE rank > (SELECT min(rank) FROM t_dict);
-- @ordered
SELECT code, rank, row_number() OVER (ORDER BY rank DESC) FROM t_dict ORDER BY rank;

-- ## single table
SELECT * FROM t_single;
SELECT * FROM t_single WHERE id = 3;
-- @ordered
SELECT * FROM t_single ORDER BY value DESC NULLS LAST, id;
SELECT sum(value), avg(value), count(*), count(value), min(name) FROM t_single;
-- @ordered
SELECT name, count(*), sum(value) FROM t_single GROUP BY name ORDER BY name NULLS FIRST;
-- @ordered
SELECT id FROM t_single ORDER BY id LIMIT 3 OFFSET 2;
-- @ordered
SELECT id, value, row_number() OVER (ORDER BY value NULLS FIRST, id), sum(value) OVER () FROM t_single ORDER BY id;
SELECT s.id, d.label FROM t_single s JOIN t_dict d ON d.rank = s.id;
SELECT string_agg(name, ',' ORDER BY id) FROM t_single;
SELECT * FROM t_single WHERE value > (SELECT avg(value) FROM t_single);
SELECT s.id, o.order_id FROM t_single s JOIN t_order o ON o.user_id = s.id WHERE s.id < 3;

-- ## subqueries
SELECT order_id, (SELECT label FROM t_dict d WHERE d.code = o.status) AS label FROM t_order o;
SELECT * FROM t_order WHERE status IN (SELECT code FROM t_dict WHERE rank <= 2);
SELECT o.order_id FROM t_order o WHERE EXISTS (SELECT 1 FROM t_order_item i WHERE i.order_id = o.order_id AND i.user_id = o.user_id AND i.quantity < 0);
SELECT o.order_id FROM t_order o WHERE NOT EXISTS (SELECT 1 FROM t_order_item i WHERE i.order_id = o.order_id AND i.user_id = o.user_id);
SELECT * FROM t_order WHERE order_id IN (SELECT order_id FROM t_order_item WHERE quantity > 10);
SELECT * FROM t_order WHERE user_id IN (SELECT user_id FROM t_order_item WHERE quantity > 11);
SELECT * FROM t_order WHERE amount > (SELECT avg(amount) FROM t_order);
SELECT s.user_id, s.n FROM (SELECT user_id, count(*) AS n FROM t_order WHERE user_id = 3 GROUP BY user_id) s;
SELECT count(*) FROM (SELECT order_id FROM t_order WHERE amount > 0) s;
SELECT s.order_id FROM (SELECT order_id, amount FROM t_order ORDER BY amount DESC NULLS LAST, order_id LIMIT 3) s;
WITH mine AS (SELECT order_id, amount FROM t_order WHERE user_id = 3) SELECT count(*), sum(amount) FROM mine;
SELECT user_id FROM t_order WHERE user_id < 3 UNION SELECT user_id FROM t_order_item WHERE user_id > 40;
SELECT order_id FROM t_order WHERE user_id = 3 UNION ALL SELECT order_id FROM t_order WHERE user_id = 4;
SELECT code FROM t_dict UNION SELECT name FROM t_single WHERE id < 4;
SELECT * FROM t_order o WHERE o.user_id = 3 AND o.order_id IN (SELECT i.order_id FROM t_order_item i WHERE i.user_id = 3);
SELECT o.order_id, (SELECT count(*) FROM t_order_item i WHERE i.order_id = o.order_id AND i.user_id = o.user_id) AS items FROM t_order o;
SELECT order_id, row_number() OVER (ORDER BY order_id) FROM t_order;
SELECT user_id, sum(amount) OVER (PARTITION BY user_id) FROM t_order;

-- ## spanning shards, finished by PostgreSQL over intermediate results (recursive planning)
-- derived tables over sharded tables
SELECT s.user_id, s.n FROM (SELECT user_id, count(*) AS n FROM t_order GROUP BY user_id) s WHERE s.n > 1;
SELECT count(*), sum(x.q) FROM (SELECT o.order_id, i.quantity AS q FROM t_order o JOIN t_order_item i ON i.user_id = o.user_id) x;
-- @ordered
SELECT o.user_id, t.items FROM (SELECT user_id, count(*) AS items FROM t_order_item GROUP BY user_id) t JOIN t_order o ON o.user_id = t.user_id ORDER BY o.order_id LIMIT 15;
-- IN / EXISTS / scalar subqueries over shards
SELECT order_id FROM t_order WHERE order_id IN (SELECT order_id FROM t_order_item WHERE quantity > 15);
SELECT order_id FROM t_order WHERE user_id NOT IN (SELECT user_id FROM t_user WHERE score > 50);
SELECT u.user_id FROM t_user u WHERE EXISTS (SELECT 1 FROM t_order o WHERE o.user_id = u.user_id AND o.amount > 100);
SELECT order_id, amount - (SELECT avg(amount) FROM t_order) AS above FROM t_order WHERE amount > (SELECT avg(amount) FROM t_order);
-- @params int:10
SELECT order_id FROM t_order WHERE order_id IN (SELECT order_id FROM t_order_item WHERE quantity > ?);
-- CTEs
WITH big AS (SELECT user_id, sum(amount) AS total FROM t_order GROUP BY user_id) SELECT count(*), max(total) FROM big;
-- @ordered
WITH items AS (SELECT user_id, sum(quantity) AS q FROM t_order_item GROUP BY user_id) SELECT u.name, items.q FROM t_user u JOIN items ON items.user_id = u.user_id ORDER BY items.q DESC, u.name LIMIT 10;
-- set operations of sharded tables
SELECT user_id FROM t_order UNION SELECT user_id FROM t_user;
SELECT user_id FROM t_order UNION ALL SELECT user_id FROM t_order_item;
SELECT user_id FROM t_order INTERSECT SELECT user_id FROM t_user;
SELECT user_id FROM t_user EXCEPT SELECT user_id FROM t_order;
-- @ordered
(SELECT order_id FROM t_order EXCEPT ALL SELECT order_id FROM t_order_item) ORDER BY 1 LIMIT 20;
-- window functions
-- @ordered
SELECT order_id, rank() OVER (PARTITION BY user_id ORDER BY amount DESC NULLS LAST, order_id) AS r FROM t_order ORDER BY order_id;
-- @ordered
SELECT user_id, amount, sum(amount) OVER (ORDER BY order_id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t_order ORDER BY order_id LIMIT 30;
-- aggregates the proxy cannot merge
SELECT string_agg(status, ',' ORDER BY order_id) FILTER (WHERE user_id < 5) FROM t_order;
-- @ordered
SELECT user_id, string_agg(order_id::text, ' ' ORDER BY order_id) FROM t_order GROUP BY user_id ORDER BY user_id;
SELECT count(*) FILTER (WHERE amount > 100), count(*) FILTER (WHERE status = 'PAID') FROM t_order;
SELECT sum(amount) / count(*) AS mean, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) FROM t_order;
SELECT count(DISTINCT user_id), sum(DISTINCT quantity) FROM t_order_item;
SELECT bool_and(amount > 0), bool_or(note IS NULL), variance(quantity) FROM t_order o JOIN t_order_item i USING (order_id, user_id);
-- DISTINCT ON
-- @ordered
SELECT DISTINCT ON (status) status, order_id, amount FROM t_order ORDER BY status NULLS FIRST, amount DESC NULLS LAST, order_id;
-- joins of tables that are not co-located
-- @ordered
SELECT u.name, count(o.order_id), sum(o.amount) FROM t_user u LEFT JOIN t_order o ON o.user_id = u.user_id GROUP BY u.name ORDER BY u.name;
SELECT count(*) FROM t_order o JOIN t_log l ON l.user_id = o.user_id JOIN t_user u ON u.user_id = o.user_id;
-- a single table with sharded tables on several shards: finished on the single table's data source
SELECT s.id, count(o.order_id) FROM t_single s LEFT JOIN t_order o ON o.user_id = s.id GROUP BY s.id;
-- conditions leave some actual tables out of the intermediate results (the route's nodes per table)
SELECT count(*), string_agg(u.name, ',' ORDER BY o.order_id) FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.user_id = 3;
-- @params int:3
SELECT count(*), string_agg(status, ',' ORDER BY order_id) FROM t_order WHERE user_id = ?;
SELECT order_id FROM t_order WHERE user_id = 3 AND order_id IN (SELECT order_id FROM t_order_item);
SELECT user_id FROM t_order WHERE user_id = 3 UNION SELECT user_id FROM t_order WHERE user_id = 4 UNION SELECT user_id FROM t_user WHERE user_id = 5;
WITH x AS (SELECT * FROM t_order WHERE user_id = 3) SELECT count(*) FROM x JOIN t_order o2 ON o2.order_id = x.order_id;
SELECT count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.user_id = 3 OR u.user_id = 4;
SELECT u.user_id, (SELECT max(amount) FROM t_order o WHERE o.user_id = u.user_id AND u.user_id = 4) FROM t_user u;
-- conditions on one table's columns, qualified by its name or alias, go to its shards (ORed over disjuncts and occurrences)
SELECT count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.amount > 500 AND u.score < 50;
SELECT count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE (o.amount > 500 AND u.score < 50) OR (o.status = 'PAID' AND u.city IS NOT NULL);
SELECT o.order_id FROM t_order o WHERE o.created_at >= '2024-03-01'::timestamp AND o.order_id IN (SELECT i.order_id FROM t_order_item i WHERE i.price BETWEEN 10 AND 50);
SELECT count(*), sum(o.amount - o2.amount) FROM t_order o JOIN t_order o2 ON o2.user_id = o.user_id WHERE o.amount > 900 AND o2.amount < 100;
SELECT count(*) FROM t_user u WHERE u.score > 50 AND u.user_id IN (SELECT o.user_id FROM t_order o WHERE o.note LIKE 'a%' AND o.amount <> 5 AND NOT o.amount = 7);
SELECT count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id AND o.amount > 800 AND o.status IN ('PAID', 'SHIPPED');
SELECT count(*), count(o.order_id) FROM t_user u LEFT JOIN t_order o ON o.user_id = u.user_id WHERE o.amount > 100 OR u.score > 90;
SELECT t_order.status, count(*) FROM t_order JOIN t_user ON t_user.user_id = t_order.user_id WHERE t_order.discount < 0.5 AND t_user.joined > DATE '2020-01-01' GROUP BY 1;
-- outer joins: conditions in ON, on the nullable side, IS NULL
SELECT u.user_id, count(o.order_id) FROM t_user u LEFT JOIN t_order o ON o.user_id = u.user_id AND o.user_id = 3 GROUP BY u.user_id;
SELECT u.user_id FROM t_user u LEFT JOIN t_order o ON o.user_id = u.user_id WHERE o.user_id IS NULL;
SELECT u.user_id, o.order_id FROM t_user u LEFT JOIN t_order o ON o.user_id = u.user_id WHERE o.user_id = 5 OR o.user_id IS NULL;
SELECT count(*), count(o.order_id), count(u.user_id) FROM t_user u FULL JOIN t_order o ON o.user_id = u.user_id WHERE u.user_id = 5;
SELECT count(*), count(o.order_id) FROM t_order o RIGHT JOIN t_user u ON u.user_id = o.user_id WHERE u.user_id IN (2, 3);
SELECT count(*) FROM t_user u LEFT JOIN t_order o ON o.user_id = u.user_id WHERE u.user_id = 5 AND o.amount > 10;
-- grouped by a primary key, the other columns of its table are functionally dependent on it (PostgreSQL sees this only
-- where the intermediate result carries the key)
SELECT o.order_id, o.status, count(i.order_item_id) FROM t_order o LEFT JOIN t_order_item i ON i.user_id = o.user_id GROUP BY o.order_id;
SELECT u.user_id, u.name, count(o.order_id) FROM t_user u JOIN t_order o ON o.user_id = u.user_id GROUP BY u.user_id;
SELECT o.order_id, o.status, count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id GROUP BY 1;
SELECT u.user_id, u.name, x.n FROM t_user u JOIN (SELECT o.user_id, count(*) AS n FROM t_order o GROUP BY o.user_id) x ON x.user_id = u.user_id GROUP BY u.user_id, x.n;
-- @params int:2
SELECT o.order_id, o.amount, count(*) FROM t_order o WHERE o.order_id IN (SELECT i.order_id FROM t_order_item i WHERE i.quantity > ?) GROUP BY o.order_id;
-- errors are PostgreSQL's own, their positions in the client's text (where a shard's filter failed: none)
SELECT order_id FROM t_order WHERE order_id IN (SELECT nonexistent FROM t_order_item);
SELECT count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.nonexistent > 1;
SELECT status FROM t_order UNION ALL SELECT status FROM t_user ORDER BY 1;
SELECT count(*) FROM t_order o JOIN t_user u ON u.user_id = o.user_id WHERE o.user_id = '2.5';
SELECT string_agg(amount, ',') FROM t_order;
SELECT user_id FROM t_order UNION SELECT name FROM t_user;
-- a table refused by configuration stays refused (allow-range-query-with-inline-sharding: false)
-- @refused t_event
SELECT count(*) FROM (SELECT id FROM t_event WHERE id > 3) s;

-- ## rewriting changes table names only
SELECT 't_order' AS name, order_id AS t_order_id, 't_order_0' AS other FROM t_order WHERE user_id = 3;
SELECT $$t_order$$ AS dollar, $tag$ FROM t_order $tag$ AS tagged, E't_order\n' AS escaped, U&'t\005Forder' AS unicode FROM t_order WHERE order_id = 1091;
SELECT order_id AS "T_ORDER", order_id AS "t_order" FROM t_order /* FROM t_order_item */ WHERE user_id = 3 -- t_order
;
SELECT public.t_order.order_id FROM public.t_order WHERE public.t_order.user_id = 3;
SELECT "t_order"."order_id" FROM "public"."t_order" WHERE "t_order"."user_id" = 3;
SELECT t_order_item.order_id, t_order_item.order_item_id FROM t_order_item WHERE t_order_item.user_id = 3;
SELECT o.*, i.price FROM t_order o JOIN t_order_item i USING (order_id, user_id) WHERE o.user_id = 3;
SELECT *, order_id AS again, 1 AS one FROM t_order WHERE user_id = 3;
-- @ordered
SELECT x.order_id FROM t_order AS x(order_id) ORDER BY 1 LIMIT 5;
SELECT count(*) FROM t_order t_order_item;
-- @ordered
SELECT t_order.order_id AS "order by", 'ORDER BY 1' AS "LIMIT 1" FROM t_order ORDER BY "order by" DESC LIMIT 3;

-- a table's name as a whole-row value is renamed with the table (its value's text, not its type: the proxy's whole-row
-- value is of the actual table's row type, which WholeRowValues in ShardingReadDifferentialTest shows)
SELECT t_order::text AS r FROM t_order WHERE user_id = 3 AND order_id = 1091;
SELECT t_order::text AS r, (t_order).status FROM t_order WHERE order_id = 1091;
SELECT row_to_json(t_order) FROM t_order WHERE user_id = 3;
SELECT t.*, t::text AS whole FROM t_order t WHERE user_id = 3;
SELECT t_order.* FROM t_order WHERE order_id = 1091;
SELECT to_jsonb(t_order_item) - 'price' AS j FROM t_order_item WHERE user_id = 3;
SELECT count(*) FROM t_order WHERE t_order IS NOT NULL AND row_to_json(t_order)::text LIKE '%PAID%';
-- @ordered
SELECT row_to_json(t_order) AS j FROM t_order ORDER BY order_id LIMIT 5;
-- @ordered
SELECT row_number() OVER (ORDER BY order_id) AS n, t_order::text FROM t_order WHERE user_id < 3 ORDER BY order_id;
SELECT o.order_id FROM t_order o WHERE EXISTS (SELECT 1 FROM t_order WHERE t_order.order_id = o.order_id AND row_to_json(t_order) IS NOT NULL) AND o.user_id = 3;

-- ## statements without tables
SELECT 1;
SELECT 1 + 1 AS two, 'x'::text AS x, NULL::int AS n, 1.50::numeric(5,2) AS d;
-- @params int:42
SELECT ? AS answer;
SELECT * FROM generate_series(1, 5);
SELECT count(*) FROM pg_catalog.pg_type WHERE typname = 'int4';

-- ## errors
SELECT nonexistent FROM t_order;
SELECT * FROM t_nonexistent;
SELECT 1/0;
SELECT order_id, 100 / (user_id - 3) FROM t_order;
SELECT order_id, 100 / (user_id - 3) FROM t_order WHERE user_id = 3;
SELECT * FROM t_order WHERE user_id = 'abc';
SELECT * FROM t_order WHERE order_id = 'abc';
-- @params text:abc
SELECT * FROM t_order WHERE user_id = ?::int;
SELEC 1;
SELECT * FROM t_order WHERE;
SELECT order_id FROM t_order ORDER BY 99;
SELECT user_id, status FROM t_order GROUP BY user_id;
SELECT sum(note) FROM t_order;
SELECT amount::int2 FROM t_order;
SELECT * FROM t_order WHERE user_id = 3 AND amount = 'x';
-- The join is not on the tables' sharding columns: PostgreSQL finishes it over intermediate results and finds the missing column.
SELECT o.order_id FROM t_order o JOIN t_order_item i ON o.order_id = i.missing AND o.user_id = i.user_id;
SELECT DISTINCT status FROM t_order ORDER BY amount;
SELECT count(*) FROM t_order GROUP BY nonexistent;
SELECT order_id FROM t_order WHERE user_id = 3 LIMIT -1;
SELECT order_id FROM t_order LIMIT 'x';
