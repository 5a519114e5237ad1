------------------------------------------------------------------------------
-- Who may do what (access.c).  Three roles, as PostgreSQL's predefined ones:
--   scheduler_reader  why(), filter(), score(), the views and the tables;
--   scheduler_writer  and apply(), apply_events(), relist();
--   scheduler_admin   and the profiles, and schedule_pending().
-- The entry points are executable by everyone and check the caller's role
-- first (one error naming the role to ask for), then work as the extension's
-- owner.  The tables and every internal function (schema scheduler_internal)
-- are the owner's, granted to nobody: no role can write the mirror past
-- apply()'s validation, call an internal function, or take a lock the
-- scheduler waits for.  Roles are
-- cluster-wide: they outlive DROP EXTENSION, and a second database's
-- CREATE EXTENSION finds them made.
------------------------------------------------------------------------------
DO $$
DECLARE
    r record;
BEGIN
    -- a role of these names made before (by an earlier install, which left
    -- it, or by hand) is taken as it is, with its members; but one that can
    -- log in, or bypasses checks, is no group role: whoever holds its
    -- password would get what the role may do here
    FOR r IN SELECT rolname FROM pg_catalog.pg_roles
             WHERE rolname OPERATOR(pg_catalog.=) ANY ('{scheduler_reader,scheduler_writer,scheduler_admin}'::pg_catalog.name[])
               AND (rolcanlogin OR rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb OR rolreplication)
    LOOP
        RAISE EXCEPTION 'role "%" exists and can log in or holds an attribute', r.rolname
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The extension''s roles are group roles: NOLOGIN, with no attribute.',
                  HINT = pg_catalog.format('ALTER ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS; or drop it first.', r.rolname);
    END LOOP;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'scheduler_reader') THEN
        CREATE ROLE scheduler_reader NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'scheduler_writer') THEN
        CREATE ROLE scheduler_writer NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'scheduler_admin') THEN
        CREATE ROLE scheduler_admin NOLOGIN;
    END IF;
    IF NOT pg_catalog.pg_has_role('scheduler_writer', 'scheduler_reader', 'MEMBER') THEN
        GRANT scheduler_reader TO scheduler_writer;
    END IF;
    IF NOT pg_catalog.pg_has_role('scheduler_admin', 'scheduler_writer', 'MEMBER') THEN
        GRANT scheduler_writer TO scheduler_admin;
    END IF;
END $$;

GRANT USAGE ON SCHEMA scheduler TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA scheduler TO scheduler_reader;
GRANT INSERT, UPDATE, DELETE ON scheduler.profiles, scheduler.profile_plugins TO scheduler_admin;
-- the views check the role themselves (require_role), so that a stranger is told which
GRANT SELECT ON scheduler.node_usage, scheduler.pending_pods, scheduler.metrics_pending_pods,
    scheduler.metrics_schedule_attempts, scheduler.metrics_latency, scheduler.snapshot_from_tables TO PUBLIC;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA scheduler FROM PUBLIC;
-- the internal schema: no USAGE for anyone but its owner, and its functions
-- executable by nobody else either (a trigger's function is called by OID)
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA scheduler_internal FROM PUBLIC;
REVOKE ALL ON FUNCTION @extschema@.schedule_pending(integer) FROM PUBLIC;
-- the entry points: each checks its caller's role first
GRANT EXECUTE ON FUNCTION
    @extschema@.schedule_pending(integer),
    scheduler.require_role(text),
    scheduler.apply(jsonb), scheduler.apply_events(jsonb[]), scheduler.relist(jsonb, text[]),
    scheduler.filter(text, text), scheduler.score(text, text, boolean), scheduler.why(text, text),
    scheduler.simulate(jsonb, text), scheduler.fit_hints(text, text, integer), scheduler.plan_capacity(jsonb, jsonb),
    scheduler.plan_capacity_pods(jsonb, jsonb), scheduler.diagnosis(text, text), scheduler.snapshot(), scheduler.quantity_milli(text), scheduler.quantity_value(text),
    scheduler.pod_requests(jsonb), scheduler.plugins(),
    scheduler.fit_error_message(integer, jsonb, text, text), scheduler.num_feasible_nodes_to_find(integer, integer)
    TO PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.check_plugin(text, jsonb) TO scheduler_admin;
GRANT EXECUTE ON FUNCTION scheduler.kinds() TO scheduler_reader;

-- Every function runs with search_path pinned: a function or operator planted
-- in a schema the caller's path names first is never called instead of a
-- built-in (the workers and triggers run as a superuser).
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid FROM pg_catalog.pg_proc p
             WHERE p.pronamespace = 'scheduler'::regnamespace
                OR p.pronamespace = 'scheduler_internal'::regnamespace
                OR p.oid = '@extschema@.schedule_pending(integer)'::regprocedure
    LOOP
        EXECUTE pg_catalog.format('ALTER FUNCTION %s SET search_path = pg_catalog, pg_temp', f);
    END LOOP;
END $$;
