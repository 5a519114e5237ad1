-- CREATE EXTENSION beside inventory tables named nodes and pods, and
-- schedule_pending() on the default search_path right after it.
DROP EXTENSION scheduler;
CREATE TABLE public.nodes (hostname text PRIMARY KEY, rack text);
CREATE TABLE public.pods (id serial PRIMARY KEY, owner text);
INSERT INTO public.nodes VALUES ('db-1', 'r1');
SHOW search_path;
-- CREATE EXTENSION runs its script as a superuser with search_path = public,
-- pg_temp.  A role that may create in public plants operators that match the
-- script's comparisons better than pg_catalog's (oid = regnamespace, oid =
-- regprocedure need a cast to reach oid = oid); called by the installer,
-- each would note it and make its planter a superuser.  The script resolves
-- every name in pg_catalog (PostgreSQL's advice for extension scripts), so
-- none is called.  (issue #11)
CREATE ROLE regress_planter;
GRANT CREATE ON SCHEMA public TO regress_planter;
CREATE TABLE public.planted_calls (who text, op text);
GRANT INSERT ON public.planted_calls TO regress_planter;
SET ROLE regress_planter;
CREATE FUNCTION public.planted_eq(oid, regnamespace) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.planted_calls VALUES (current_user, 'oid = regnamespace');
    BEGIN EXECUTE 'ALTER ROLE regress_planter SUPERUSER'; EXCEPTION WHEN OTHERS THEN NULL; END;
    RETURN $1 OPERATOR(pg_catalog.=) $2::oid;
END $$;
CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = regnamespace, FUNCTION = public.planted_eq);
CREATE FUNCTION public.planted_eq(oid, regprocedure) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.planted_calls VALUES (current_user, 'oid = regprocedure');
    BEGIN EXECUTE 'ALTER ROLE regress_planter SUPERUSER'; EXCEPTION WHEN OTHERS THEN NULL; END;
    RETURN $1 OPERATOR(pg_catalog.=) $2::oid;
END $$;
CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = regprocedure, FUNCTION = public.planted_eq);
RESET ROLE;
CREATE EXTENSION scheduler;
SELECT who, op, count(*) FROM public.planted_calls GROUP BY 1, 2;
SELECT rolsuper FROM pg_roles WHERE rolname = 'regress_planter';
DROP OPERATOR public.= (oid, regnamespace);
DROP OPERATOR public.= (oid, regprocedure);
DROP FUNCTION public.planted_eq(oid, regnamespace), public.planted_eq(oid, regprocedure);
DROP TABLE public.planted_calls;
REVOKE CREATE ON SCHEMA public FROM regress_planter;
DROP ROLE regress_planter;
SELECT * FROM schedule_pending();
-- every object but schedule_pending() is in schema scheduler, or, for the
-- trigger functions and helpers nobody calls by hand, scheduler_internal
SELECT n.nspname AS schema, p.proname AS function
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scheduler'
ORDER BY 1, 2;
SELECT c.relname, c.relkind FROM pg_class c
JOIN pg_depend d ON d.objid = c.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scheduler'
WHERE c.relnamespace <> 'scheduler'::regnamespace;
-- \df scheduler.* shows the functions the README documents, and only them
SELECT coalesce(f.name, d.name) AS function,
       CASE WHEN f.name IS NULL THEN 'documented, missing' ELSE 'not documented' END AS problem
FROM (SELECT p.proname::text FROM pg_proc p WHERE p.pronamespace = 'scheduler'::regnamespace) AS f(name)
FULL JOIN unnest('{apply, apply_events, check_plugin, filter, fit_error_message, hold_lead, kinds,
                   num_feasible_nodes_to_find, outbox_result, plugins, pod_requests, quantity_milli, quantity_value,
                   release_lead, relist, require_role, score, simulate, snapshot, why,
                   fit_hints, plan_capacity, plan_capacity_pods, diagnosis, kube_connection}'::text[]) AS d(name)
  ON d.name = f.name
WHERE f.name IS NULL OR d.name IS NULL;
-- the internal schema is the extension's: nobody but its owner may use it
SELECT n.nspname, has_schema_privilege('public', n.oid, 'USAGE') AS public_usage,
       pg_describe_object(d.refclassid, d.refobjid, 0) AS member_of
FROM pg_namespace n JOIN pg_depend d ON d.classid = 'pg_namespace'::regclass AND d.objid = n.oid AND d.deptype = 'e'
WHERE n.nspname LIKE 'scheduler%' ORDER BY 1;
-- the inventory tables are untouched
SELECT * FROM public.nodes;
-- upgrade path: the installed version is the default, so UPDATE is a no-op
SELECT extversion FROM pg_extension WHERE extname = 'scheduler';
ALTER EXTENSION scheduler UPDATE;
DROP TABLE public.nodes, public.pods;
-- GUCs
SHOW scheduler.scheduler_name;
-- The roles outlive DROP EXTENSION and are taken as they are by the next
-- CREATE EXTENSION, members and all; but not one that can log in (or holds
-- an attribute): whoever has its password would be a scheduler_writer
\set SHOW_CONTEXT never
DROP EXTENSION scheduler;
-- both schemas go with it
SELECT nspname FROM pg_namespace WHERE nspname LIKE 'scheduler%';
SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname LIKE 'scheduler\_%' ORDER BY 1;
ALTER ROLE scheduler_writer LOGIN;
CREATE EXTENSION scheduler;
ALTER ROLE scheduler_writer NOLOGIN CREATEDB;
CREATE EXTENSION scheduler;
ALTER ROLE scheduler_writer NOCREATEDB;
CREATE EXTENSION scheduler;
SELECT extname FROM pg_extension WHERE extname = 'scheduler';
