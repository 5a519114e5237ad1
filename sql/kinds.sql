-- The table of kinds (src/kinds.c): one entry per Kubernetes kind, read by
-- the mirror (apply, apply_events, relist), the watch worker (one watch per
-- kind, at its path and query) and the QueueingHints (the events its rows
-- raise).  Every test below goes over scheduler.kinds(), so a new kind is
-- covered by its entry alone.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.namespaces, scheduler.pdbs, scheduler.workloads,
    scheduler.pod_attempts, scheduler.watch_state;

-- what the watch worker lists and watches (kube-scheduler's informers:
-- pods all but the terminal ones), and which kinds raise cluster events
SELECT kind, list_kind, api_version, resource, path, query <> '' AS filtered, table_name, namespaced, events
FROM scheduler.kinds();

-- every kind is mirrored in a table of the extension's
SELECT k.kind FROM scheduler.kinds() k
WHERE NOT EXISTS (SELECT FROM pg_class c JOIN pg_depend d ON d.objid = c.oid AND d.deptype = 'e'
                  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'scheduler'
                  WHERE c.oid = to_regclass(k.table_name));

-- apply() names every kind it takes (the table's, in its order), and so
-- does relist()
SELECT scheduler.apply('{"kind": "Deployment", "metadata": {"name": "web"}}');
SELECT scheduler.relist('{"kind": "DeploymentList", "items": []}');
SELECT scheduler.relist('{"kind": "PodList", "items": [{"kind": "Node", "metadata": {"name": "n"}}]}');

-- the uid rule: an object without metadata.uid (hand-written) is keyed
-- "<Kind>:<namespace>/<name>", or "<Kind>:<name>" when cluster-scoped; one
-- object of each kind, the smallest apply() takes
CREATE FUNCTION pg_temp.smallest(k text, ns boolean) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', k, 'metadata',
        CASE WHEN ns THEN jsonb_build_object('name', 'h3-' || lower(k), 'namespace', 'kinds')
             ELSE jsonb_build_object('name', 'h3-' || lower(k)) END)
        || CASE k WHEN 'Pod' THEN '{"spec": {"containers": [{"name": "c", "image": "i"}]}}'::jsonb
                  WHEN 'CSIStorageCapacity' THEN '{"storageClassName": "sc"}'::jsonb
                  ELSE '{}' END
$$;
SELECT kind, scheduler.apply(pg_temp.smallest(kind, namespaced)) AS changed FROM scheduler.kinds();
CREATE FUNCTION pg_temp.uids(t text, k text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE format('SELECT string_agg(uid, '','' ORDER BY uid) FROM %s WHERE name = $1', t::regclass)
        INTO r USING 'h3-' || lower(k);
    RETURN r;
END $$;
SELECT kind, pg_temp.uids(table_name, kind) AS uid FROM scheduler.kinds();

-- a watch event of each kind: DELETED removes the row of its uid
SELECT kind, scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', pg_temp.smallest(kind, namespaced)))
    AS deleted, pg_temp.uids(table_name, kind) AS left
FROM scheduler.kinds();
-- and in a batch (apply_events), the same
SELECT scheduler.apply_events(array_agg(pg_temp.smallest(kind, namespaced))) AS added FROM scheduler.kinds();
SELECT scheduler.apply_events(array_agg(jsonb_build_object('type', 'DELETED', 'object', pg_temp.smallest(kind, namespaced))))
    AS deleted FROM scheduler.kinds();
SELECT count(*) AS rows_left FROM scheduler.kinds(), pg_temp.uids(table_name, kind) u WHERE u IS NOT NULL;

-- relist(): an empty list of a kind deletes the rows of that kind only,
-- and stores its resourceVersion under the kind's resource
SELECT scheduler.apply_events(array_agg(pg_temp.smallest(kind, namespaced))) AS added FROM scheduler.kinds();
CREATE FUNCTION pg_temp.relist_each() RETURNS TABLE (kind text, deleted integer, kinds_left bigint)
LANGUAGE plpgsql AS $$
DECLARE k record;
BEGIN
    FOR k IN SELECT * FROM scheduler.kinds() LOOP
        kind := k.kind;
        deleted := scheduler.relist(jsonb_build_object('kind', k.list_kind, 'items', '[]'::jsonb,
                                                       'metadata', jsonb_build_object('resourceVersion', '7')));
        SELECT count(*) INTO kinds_left FROM scheduler.kinds() k2, pg_temp.uids(k2.table_name, k2.kind) u
        WHERE u IS NOT NULL;
        RETURN NEXT;
    END LOOP;
END $$;
SELECT * FROM pg_temp.relist_each();
SELECT k.resource, w.resource_version FROM scheduler.kinds() k LEFT JOIN scheduler.watch_state w USING (resource);

-- the QueueingHints: the kinds whose rows raise cluster events, by the
-- name the triggers give (any case); no other kind does
SELECT kind, scheduler_internal.dispatch_events(kind, NULL, NULL) AS moved FROM scheduler.kinds() WHERE events IS NOT NULL;
SELECT scheduler_internal.dispatch_events('node', NULL, NULL) AS moved;
SELECT scheduler_internal.dispatch_events('Namespace', NULL, NULL);
SELECT scheduler_internal.dispatch_events('node', '{}', NULL);
-- rows given as JSON (to_jsonb of the table's rows) are read with the
-- columns and decoder the triggers and the snapshot use (codec.c): a node
-- added moves a pod that NodeResourcesFit turned away for want of one
-- (kube-scheduler's NodeAdd registration), a node row with no room for it
-- does not
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;
SELECT scheduler.apply('{"kind": "Node", "apiVersion": "v1", "metadata": {"name": "small", "uid": "n-small"},
    "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}');
SELECT scheduler.apply('{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "big", "namespace": "default", "uid": "p-big"},
    "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "2"}}}]}}');
SELECT name, result FROM schedule_pending();
SELECT q.state, q.rejected_by FROM scheduler.queue q;
SELECT scheduler_internal.dispatch_events('node', NULL, jsonb_agg(to_jsonb(n))) AS moved FROM scheduler.nodes n;
SELECT scheduler_internal.dispatch_events('node', NULL,
    jsonb_build_array(jsonb_build_object('uid', 'n-new', 'name', 'new', 'allocatable', '{"cpu": 4000, "memory": 1073741824, "pods": 10}'::jsonb))) AS moved;
SELECT q.state, q.moved_by FROM scheduler.queue q;

TRUNCATE scheduler.watch_state;
