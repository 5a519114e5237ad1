\echo Use "CREATE EXTENSION scheduler" to load this file. \quit

-- This script runs as a superuser with search_path = <target schema>,
-- pg_temp: an operator or function planted there that matches one of its
-- expressions better than pg_catalog's (oid = regnamespace) would run as
-- that superuser.  So every name below is resolved in pg_catalog alone (the
-- objects made are all schema-qualified); CREATE EXTENSION puts the path
-- back after the script.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

-- Everything lives in schema scheduler, so inventory tables named nodes or
-- pods elsewhere never clash.  schedule_pending() alone goes in the schema
-- CREATE EXTENSION targets (public by default), so it works on the default
-- search_path.
CREATE SCHEMA scheduler;
COMMENT ON SCHEMA scheduler IS 'Kubernetes scheduler: mirror tables, attempts and functions';

-- The trigger functions and helpers nobody calls by hand live aside, so that
-- \df scheduler.* lists what a user may call.  No role but the owner has
-- USAGE on it: a trigger's function is called by its OID (no schema lookup,
-- no EXECUTE check when it fires), and the internal SQL that names one runs
-- as the owner.  A member of the extension: DROP EXTENSION drops it.
CREATE SCHEMA scheduler_internal;
COMMENT ON SCHEMA scheduler_internal IS 'Kubernetes scheduler: trigger functions and helpers, not for calling (no role but the owner may use it)';

-- true, or an ERROR naming the scheduler_* role the caller lacks (access.c);
-- the views and the plpgsql entry points begin with it.
CREATE FUNCTION scheduler.require_role(role text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'scheduler_require_role' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.require_role(text) IS 'true when the caller has the privileges of the role (scheduler_reader, scheduler_writer or scheduler_admin), else an ERROR naming it';

