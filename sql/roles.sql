-- Who may do what (issue #11), as PostgreSQL's predefined roles do it:
--   scheduler_reader  why(), filter(), score(), simulate(), diagnosis(), fit_hints(), plan_capacity(),
--                     the views and the tables;
--   scheduler_writer  and apply(), apply_events(), relist();
--   scheduler_admin   and the profiles, and schedule_pending().
-- Each entry point tells a role without the right one which role to ask for
-- (never an error naming an internal table); nothing internal is executable
-- by PUBLIC; no role but the owner writes the tables or takes a lock the
-- scheduler waits for.
\set SHOW_CONTEXT never
SET scheduler.random_seed = 7;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history;
SELECT scheduler.apply('{"kind": "List", "items": [
    {"kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}},
    {"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
     "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}}]}');
SELECT count(*) FROM schedule_pending();

CREATE ROLE regress_reader;
CREATE ROLE regress_writer;
CREATE ROLE regress_admin;
CREATE ROLE regress_nobody;
GRANT scheduler_reader TO regress_reader;
GRANT scheduler_writer TO regress_writer;
GRANT scheduler_admin TO regress_admin;

-- each action as each role: 'ok', or the SQLSTATE
CREATE TEMP TABLE actions (n int, what text, stmt text);
CREATE TEMP TABLE outcomes (role text, n int, outcome text, message text);
GRANT INSERT ON outcomes TO PUBLIC;
GRANT SELECT ON actions TO PUBLIC;
INSERT INTO actions VALUES
    (1, 'why()', $$SELECT count(*) FROM scheduler.why('default', 'p')$$),
    (2, 'filter()', $$SELECT count(*) FROM scheduler.filter('default', 'p')$$),
    (3, 'score()', $$SELECT count(*) FROM scheduler.score('default', 'p', false)$$),
    (4, 'snapshot()', $$SELECT count(*) FROM scheduler.snapshot()$$),
    (5, 'quantity_milli()', $$SELECT scheduler.quantity_milli('1500m')$$),
    (6, 'pending_pods', $$SELECT count(*) FROM scheduler.pending_pods$$),
    (7, 'node_usage', $$SELECT count(*) FROM scheduler.node_usage$$),
    (8, 'metrics_*', $$SELECT (SELECT count(*) FROM scheduler.metrics_latency) + (SELECT count(*) FROM scheduler.metrics_pending_pods)
                         + (SELECT count(*) FROM scheduler.metrics_schedule_attempts) + (SELECT count(*) FROM scheduler.snapshot_from_tables)$$),
    (9, 'read attempt_history', $$SELECT count(*) FROM scheduler.attempt_history$$),
    (10, 'read pods', $$SELECT count(*) FROM scheduler.pods$$),
    (11, 'apply()', $$SELECT scheduler.apply('{"kind": "Node", "metadata": {"name": "n2"}}')$$),
    (12, 'apply_events()', $$SELECT scheduler.apply_events(ARRAY['{"type": "ADDED", "object": {"kind": "Namespace", "metadata": {"name": "ns"}}}'::jsonb])$$),
    (13, 'relist()', $$SELECT scheduler.relist('{"kind": "NamespaceList", "items": []}')$$),
    (14, 'write profiles', $$INSERT INTO scheduler.profiles VALUES ('other', NULL) ON CONFLICT DO NOTHING$$),
    (15, 'schedule_pending()', $$SELECT count(*) FROM schedule_pending()$$),
    (16, 'write pods directly', $$UPDATE scheduler.pods SET priority = 7$$),
    (17, 'write queue directly', $$UPDATE scheduler.queue SET state = 'active'$$),
    (18, 'LOCK cycle_lock SHARE', $$LOCK scheduler.cycle_lock IN SHARE MODE$$),
    (19, 'wakeup()', $$SELECT scheduler_internal.wakeup()$$),
    (20, 'dispatch_events()', $$SELECT scheduler_internal.dispatch_events('node', NULL, NULL)$$),
    (21, 'outbox_result()', $$SELECT scheduler.outbox_result(0, 200)$$),
    (22, 'pod_sans_status()', $$SELECT scheduler_internal.pod_sans_status('{}')$$),
    (23, 'hold_lead()', $$SELECT scheduler.hold_lead('bind')$$),
    (24, 'simulate()', $$SELECT count(*) FROM scheduler.simulate('[{"kind": "Node", "metadata": {"name": "n3"}}]')$$),
    (25, 'diagnosis()', $$SELECT scheduler.diagnosis('default', 'p') ->> 'message'$$),
    (26, 'diagnosis column', $$SELECT count(diagnosis) FROM scheduler.pending_pods$$),
    (27, 'fit_hints()', $$SELECT count(*) FROM scheduler.fit_hints('default', 'p')$$),
    (28, 'plan_capacity()', $$SELECT count(*) FROM scheduler.plan_capacity('[{"kind": "Node", "metadata": {"name": "t"}, "status": {"allocatable": {"cpu": "4", "memory": "1Gi", "pods": "10"}}}]')$$),
    (29, 'plan_capacity_pods()', $$SELECT count(*) FROM scheduler.plan_capacity_pods('[{"kind": "Node", "metadata": {"name": "t"}, "status": {"allocatable": {"cpu": "4", "memory": "1Gi", "pods": "10"}}}]')$$),
    -- what deploy/postgres_exporter_queries.yaml reads: readers may, nobody writes
    (30, 'read metric totals', $$SELECT (SELECT count(*) FROM scheduler.attempt_totals) + (SELECT count(*) FROM scheduler.scheduling_sli_totals)
                                   + (SELECT count(*) FROM scheduler.watch_state) + (SELECT count(*) FROM scheduler.outbox)$$),
    (31, 'write attempt_totals', $$UPDATE scheduler.attempt_totals SET attempts = 0$$);

CREATE FUNCTION pg_temp.try_all(who text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    a record;
BEGIN
    FOR a IN SELECT * FROM pg_temp.actions ORDER BY n LOOP
        BEGIN
            EXECUTE a.stmt;
            INSERT INTO pg_temp.outcomes VALUES (who, a.n, 'ok', NULL);
        EXCEPTION WHEN OTHERS THEN
            INSERT INTO pg_temp.outcomes VALUES (who, a.n, SQLSTATE, SQLERRM);
        END;
    END LOOP;
END $$;

SET ROLE regress_nobody;
SELECT pg_temp.try_all('nobody');
SET ROLE regress_reader;
SELECT pg_temp.try_all('reader');
SET ROLE regress_writer;
SELECT pg_temp.try_all('writer');
SET ROLE regress_admin;
SELECT pg_temp.try_all('admin');
RESET ROLE;

SELECT a.what,
       max(o.outcome) FILTER (WHERE o.role = 'nobody') AS nobody,
       max(o.outcome) FILTER (WHERE o.role = 'reader') AS reader,
       max(o.outcome) FILTER (WHERE o.role = 'writer') AS writer,
       max(o.outcome) FILTER (WHERE o.role = 'admin') AS admin
FROM actions a JOIN outcomes o USING (n) GROUP BY a.n, a.what ORDER BY a.n;

-- what a role without them is told: the role to ask for, never an internal table
SELECT DISTINCT message FROM outcomes WHERE role = 'nobody' AND outcome <> 'ok' ORDER BY 1;
SELECT DISTINCT a.what, o.message FROM outcomes o JOIN actions a USING (n)
WHERE o.role = 'reader' AND o.outcome <> 'ok' AND a.n BETWEEN 11 AND 15 ORDER BY 1;

-- the functions PUBLIC may execute: the entry points, each checking its caller
SELECT p.oid::regprocedure AS executable_by_public
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scheduler'
WHERE has_function_privilege('regress_nobody', p.oid, 'EXECUTE') ORDER BY p.oid::regprocedure::text;
-- the internal functions (scheduler_internal): no role but the owner may
-- use the schema or execute one; a trigger still calls its function (above:
-- the writer's apply(), the admin's write to profiles)
SELECT r.rolname,
       has_schema_privilege(r.rolname, 'scheduler_internal', 'USAGE') AS usage,
       count(*) AS internal_functions,
       count(*) FILTER (WHERE has_function_privilege(r.rolname, p.oid, 'EXECUTE')) AS executable
FROM pg_proc p, (VALUES ('public'), ('scheduler_reader'), ('scheduler_writer'), ('scheduler_admin')) r(rolname)
WHERE p.pronamespace = 'scheduler_internal'::regnamespace
GROUP BY 1, 2 ORDER BY 1;
-- every function of the extension runs with its search_path pinned
SELECT count(*) AS functions, count(*) FILTER (WHERE 'search_path=pg_catalog, pg_temp' = ANY (p.proconfig)) AS pinned
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scheduler';
-- and the roles are a chain: admin has writer's rights, writer reader's
SELECT r.rolname, pg_has_role(r.rolname, 'scheduler_reader', 'USAGE') AS reader,
       pg_has_role(r.rolname, 'scheduler_writer', 'USAGE') AS writer,
       pg_has_role(r.rolname, 'scheduler_admin', 'USAGE') AS admin
FROM pg_roles r WHERE r.rolname LIKE 'scheduler\_%' ORDER BY 1;

-- the answers write nothing (issue 14): a reader calls each in one
-- read-only transaction, and no transaction id is ever assigned to it
SET ROLE regress_reader;
BEGIN READ ONLY;
SELECT (SELECT count(*) FROM scheduler.simulate('[{"kind": "Node", "metadata": {"name": "n9"}, "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}}]')) AS simulated,
       (SELECT count(*) FROM scheduler.fit_hints('default', 'p')) AS hints,
       (SELECT sum(pods) FROM scheduler.plan_capacity('[{"kind": "Node", "metadata": {"name": "t"}, "status": {"allocatable": {"cpu": "4", "memory": "1Gi", "pods": "10"}}}]')) AS planned,
       (SELECT count(*) FROM scheduler.plan_capacity_pods('[{"kind": "Node", "metadata": {"name": "t"}, "status": {"allocatable": {"cpu": "4", "memory": "1Gi", "pods": "10"}}}]')) AS planned_pods,
       jsonb_typeof(scheduler.diagnosis('default', 'p')) AS diagnosis,
       (SELECT count(*) FROM scheduler.why('default', 'p')) AS why;
SELECT pg_current_xact_id_if_assigned() IS NULL AS nothing_written;
COMMIT;
RESET ROLE;

DELETE FROM scheduler.profiles WHERE scheduler_name = 'other';
DROP ROLE regress_reader, regress_writer, regress_admin, regress_nobody;
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.namespaces;
