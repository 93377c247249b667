\pset pager off
\echo '--- \\dt'
\dt
\echo '--- \\dt+'
\dt+
\echo '--- \\d t_order'
\d t_order
\echo '--- \\d+ t_order_item'
\d+ t_order_item
\echo '--- \\d t_user'
\d t_user
\echo '--- \\d t_dict'
\d t_dict
\echo '--- \\d t_single'
\d t_single
\echo '--- \\di'
\di
\echo '--- \\ds'
\ds
\echo '--- \\dv'
\dv
\echo '--- \\dn'
\dn
\echo '--- \\dt app.*'
\dt app.*
\echo '--- \\d app.settings'
\d app.settings
\echo '--- \\df'
\df
\echo '--- \\du'
\du
\echo '--- \\l sharding_db'
\l sharding_db
\echo '--- tab completion of \d t_o'
SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relkind IN ('r', 'S', 'v', 'm', 'f', 'p')
    AND c.relname LIKE 't\_o%' AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1;
\echo '--- an actual table is not a relation of the logical database'
\d t_order_0
SELECT 't_order'::regclass = 't_order'::regclass AS same, to_regclass('t_order_0') AS actual;
\echo '--- information_schema'
SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default
    FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position;
SELECT constraint_name, table_name, constraint_type FROM information_schema.table_constraints
    WHERE table_schema = 'public' AND constraint_type <> 'CHECK' ORDER BY 1;
