-- Actual tables and sample rows of "ashlar demo" (layout: demo/config-sharding.yaml).
--
-- A line "-- @dataSource: NAME" starts a section that runs on data source NAME only; "-- @dataSource: *"
-- one that runs on every data source. Statements end with ";" at the end of a line.
-- Rows follow the sharding rule: user_id even -> ds_0, odd -> ds_1; order_id even -> *_0, odd -> *_1.

-- @dataSource: *
CREATE TABLE IF NOT EXISTS t_order_0 (order_id BIGINT PRIMARY KEY, user_id INT NOT NULL, status VARCHAR(50) NOT NULL);
CREATE TABLE IF NOT EXISTS t_order_1 (order_id BIGINT PRIMARY KEY, user_id INT NOT NULL, status VARCHAR(50) NOT NULL);
CREATE TABLE IF NOT EXISTS t_order_item_0 (order_item_id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, user_id INT NOT NULL, status VARCHAR(50) NOT NULL);
CREATE TABLE IF NOT EXISTS t_order_item_1 (order_item_id BIGINT PRIMARY KEY, order_id BIGINT NOT NULL, user_id INT NOT NULL, status VARCHAR(50) NOT NULL);
CREATE TABLE IF NOT EXISTS t_address (address_id BIGINT PRIMARY KEY, address_name VARCHAR(100) NOT NULL);
INSERT INTO t_address (address_id, address_name) VALUES (1, 'North warehouse'), (2, 'South warehouse'), (3, 'Head office') ON CONFLICT DO NOTHING;

-- @dataSource: ds_0
INSERT INTO t_order_0 (order_id, user_id, status) VALUES (1000, 2, 'PAID'), (1002, 4, 'SHIPPED') ON CONFLICT DO NOTHING;
INSERT INTO t_order_1 (order_id, user_id, status) VALUES (1001, 2, 'NEW'), (1003, 4, 'PAID') ON CONFLICT DO NOTHING;
INSERT INTO t_order_item_0 (order_item_id, order_id, user_id, status) VALUES (10000, 1000, 2, 'PAID'), (10001, 1000, 2, 'PAID'), (10020, 1002, 4, 'SHIPPED') ON CONFLICT DO NOTHING;
INSERT INTO t_order_item_1 (order_item_id, order_id, user_id, status) VALUES (10010, 1001, 2, 'NEW'), (10030, 1003, 4, 'PAID') ON CONFLICT DO NOTHING;

-- @dataSource: ds_1
INSERT INTO t_order_0 (order_id, user_id, status) VALUES (2000, 1, 'PAID'), (2002, 3, 'NEW') ON CONFLICT DO NOTHING;
INSERT INTO t_order_1 (order_id, user_id, status) VALUES (2001, 1, 'SHIPPED'), (2003, 3, 'PAID') ON CONFLICT DO NOTHING;
INSERT INTO t_order_item_0 (order_item_id, order_id, user_id, status) VALUES (20000, 2000, 1, 'PAID'), (20020, 2002, 3, 'NEW') ON CONFLICT DO NOTHING;
INSERT INTO t_order_item_1 (order_item_id, order_id, user_id, status) VALUES (20010, 2001, 1, 'SHIPPED'), (20011, 2001, 1, 'SHIPPED'), (20030, 2003, 3, 'PAID') ON CONFLICT DO NOTHING;
