-- Every table and view of schema scheduler says what it is (\dt+ and \dv+
-- show it, and so does any client that reads obj_description): none lacks
-- a COMMENT.  The query lists those that do; it must list none.
SELECT c.relname, c.relkind
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'scheduler' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND obj_description(c.oid, 'pg_class') IS NULL
ORDER BY 1;
-- (and there are tables and views to check)
SELECT count(*) FILTER (WHERE c.relkind = 'r') > 10 AS tables, count(*) FILTER (WHERE c.relkind = 'v') > 5 AS views
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'scheduler';
