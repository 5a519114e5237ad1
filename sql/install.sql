-- CREATE EXTENSION beside inventory tables named nodes and pods, and
-- schedule_pending() on the default search_path right after it.
DROP EXTENSION scheduler;
CREATE TABLE public.nodes (hostname text PRIMARY KEY, rack text);
CREATE TABLE public.pods (id serial PRIMARY KEY, owner text);
INSERT INTO public.nodes VALUES ('db-1', 'r1');
SHOW search_path;
CREATE EXTENSION scheduler;
SELECT * FROM schedule_pending();
-- every object but schedule_pending() is in schema scheduler
SELECT n.nspname AS schema, p.proname AS function
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scheduler'
ORDER BY 1, 2;
SELECT c.relname, c.relkind FROM pg_class c
JOIN pg_depend d ON d.objid = c.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scheduler'
WHERE c.relnamespace <> 'scheduler'::regnamespace;
-- the inventory tables are untouched
SELECT * FROM public.nodes;
-- upgrade path: the installed version is the default, so UPDATE is a no-op
SELECT extversion FROM pg_extension WHERE extname = 'scheduler';
ALTER EXTENSION scheduler UPDATE;
DROP TABLE public.nodes, public.pods;
-- GUCs
SHOW scheduler.scheduler_name;
