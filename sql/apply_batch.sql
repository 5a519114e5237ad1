-- scheduler.apply_events(jsonb[]): watch events applied in order as one
-- batch, as the watch worker applies a batch of lines: the pods are written
-- in one DELETE and one upsert, so the statement triggers (changelog, queue,
-- QueueingHints) run once.  What a client-go informer's store would hold is
-- pinned here: the state after the last event for each object.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.queue;
CREATE FUNCTION pg_temp.ev(type text, name text, uid text, extra jsonb DEFAULT '{}') RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('type', type, 'object', jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', uid,
                                       'creationTimestamp', '2026-01-01T00:00:00Z') || coalesce(extra->'metadata', '{}'),
        'spec', jsonb_build_object('containers', '[{"name": "c"}]'::jsonb) || coalesce(extra->'spec', '{}')))
$$;
CREATE VIEW pg_temp.rows AS
SELECT p.name, p.uid, p.node_name, p.assumed_node, p.labels, q.state AS queue
FROM scheduler.pods p LEFT JOIN scheduler.queue q ON q.pod_uid = p.uid ORDER BY p.name;

-- added then modified: one row, the last version, queued once
SELECT scheduler.apply_events(ARRAY[
    pg_temp.ev('ADDED', 'a', 'u-a'),
    pg_temp.ev('MODIFIED', 'a', 'u-a', '{"metadata": {"labels": {"v": "2"}}}')]);
SELECT * FROM pg_temp.rows;
-- a pending pod is in no node's snapshot: the changelog (snapshot.c) skips it
SELECT count(*) AS changelog_rows FROM scheduler.changes c, unnest(c.uids) u WHERE u = 'u-a';
-- a bound pod added then modified in one batch: one statement, one changelog row
SELECT scheduler.apply_events(ARRAY[
    pg_temp.ev('ADDED', 'z', 'u-z', '{"spec": {"nodeName": "elsewhere"}}'),
    pg_temp.ev('MODIFIED', 'z', 'u-z', '{"spec": {"nodeName": "elsewhere"}, "metadata": {"labels": {"v": "2"}}}')]);
SELECT count(*) AS changelog_rows FROM scheduler.changes c, unnest(c.uids) u WHERE u = 'u-z';
SELECT scheduler.apply_events(ARRAY[pg_temp.ev('DELETED', 'z', 'u-z')]);
SELECT count(*) AS changelog_rows FROM scheduler.changes c, unnest(c.uids) u WHERE u = 'u-z';
-- a changelog row is a statement's objects: as many names as uids, none
-- NULL (what a snapshot's refresh reads); a row written otherwise is refused
\set VERBOSITY terse
INSERT INTO scheduler.changes (kind, uids, names) VALUES ('p', '{u-a,u-z}', '{a}');
INSERT INTO scheduler.changes (kind, uids, names) VALUES ('n', '{u-n}', '{NULL}');
\set VERBOSITY default

-- added then deleted in one batch: nothing, not even in the queue
SELECT scheduler.apply_events(ARRAY[pg_temp.ev('ADDED', 'b', 'u-b'), pg_temp.ev('DELETED', 'b', 'u-b')]);
SELECT * FROM pg_temp.rows;

-- deleted and created again under the same name (a new uid): the new one
SELECT scheduler.apply_events(ARRAY[pg_temp.ev('DELETED', 'a', 'u-a'), pg_temp.ev('ADDED', 'a', 'u-a2')]);
SELECT * FROM pg_temp.rows;
-- the new uid with no DELETED for the old one (a list, say): replaced too
SELECT scheduler.apply_events(ARRAY[pg_temp.ev('ADDED', 'a', 'u-a3')]);
SELECT * FROM pg_temp.rows;

-- a node and a pod bound to it, in one batch (the batch writes its nodes
-- first, then its pods)
SELECT scheduler.apply_events(ARRAY[
    '{"type": "ADDED", "object": {"kind": "Node", "metadata": {"name": "n1", "uid": "u-n1"}, "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}}'::jsonb,
    pg_temp.ev('ADDED', 'c', 'u-c', '{"spec": {"nodeName": "n1"}}')]);
SELECT * FROM pg_temp.rows;

-- the same object again changes nothing
SELECT scheduler.apply_events(ARRAY[pg_temp.ev('ADDED', 'c', 'u-c', '{"spec": {"nodeName": "n1"}}')]) AS changed;

-- nodes are gathered as pods are: the last event of a uid wins, a node added
-- and deleted in one batch is not written, a node made again under its name
-- (a new uid) replaces the old one, and an unchanged node changes nothing
CREATE FUNCTION pg_temp.nev(type text, name text, uid text, cpu text DEFAULT '4') RETURNS jsonb LANGUAGE sql AS $$
SELECT jsonb_build_object('type', type, 'object', jsonb_build_object('kind', 'Node',
    'metadata', jsonb_build_object('name', name, 'uid', uid),
    'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', '8Gi', 'pods', '10'))))
$$;
SELECT scheduler.apply_events(ARRAY[pg_temp.nev('ADDED', 'n2', 'u-n2'), pg_temp.nev('MODIFIED', 'n2', 'u-n2', '8'),
    pg_temp.nev('ADDED', 'n3', 'u-n3'), pg_temp.nev('DELETED', 'n3', 'u-n3')]) AS changed;
SELECT name, uid, allocatable->>'cpu' AS cpu FROM scheduler.nodes ORDER BY name;
SELECT scheduler.apply_events(ARRAY[pg_temp.nev('DELETED', 'n2', 'u-n2', '8'), pg_temp.nev('ADDED', 'n2', 'u-n2b')]) AS changed;
SELECT name, uid, allocatable->>'cpu' AS cpu FROM scheduler.nodes ORDER BY name;
SELECT scheduler.apply_events(ARRAY[pg_temp.nev('ADDED', 'n2', 'u-n2c', '2')]) AS changed;
SELECT name, uid, allocatable->>'cpu' AS cpu FROM scheduler.nodes ORDER BY name;
SELECT scheduler.apply_events(ARRAY[pg_temp.nev('MODIFIED', 'n2', 'u-n2c', '2')]) AS changed;
SELECT scheduler.apply_events(ARRAY[pg_temp.nev('DELETED', 'n2', 'u-n2c', '2')]) AS changed;
SELECT name, uid FROM scheduler.nodes ORDER BY name;

-- an assumed pod: an update without nodeName keeps the reservation; the
-- bound version clears it (the binding arrived)
UPDATE scheduler.pods SET assumed_node = 'n1' WHERE name = 'a';
SELECT scheduler.apply_events(ARRAY[pg_temp.ev('MODIFIED', 'a', 'u-a3', '{"metadata": {"labels": {"v": "3"}}}')]);
SELECT * FROM pg_temp.rows WHERE name = 'a';
SELECT scheduler.apply_events(ARRAY[pg_temp.ev('MODIFIED', 'a', 'u-a3', '{"spec": {"nodeName": "n1"}}')]);
SELECT * FROM pg_temp.rows WHERE name = 'a';

-- bookmarks are no change; one bad event fails the batch, naming the
-- object, and nothing of the batch is applied
SELECT scheduler.apply_events(ARRAY['{"type": "BOOKMARK", "object": {"kind": "Pod", "metadata": {"resourceVersion": "9"}}}'::jsonb]) AS changed;
SELECT scheduler.apply_events(ARRAY[
    pg_temp.ev('ADDED', 'd', 'u-d'),
    pg_temp.ev('ADDED', 'e', 'u-e', '{"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "bogus"}}}]}}')]);
SELECT count(*) AS d_or_e FROM scheduler.pods WHERE name IN ('d', 'e');
SELECT scheduler.apply_events(ARRAY[NULL::jsonb]);
SELECT scheduler.apply_events(ARRAY['[1]'::jsonb]);
-- and the next batch works (the failed one left nothing open)
SELECT scheduler.apply_events(ARRAY[pg_temp.ev('ADDED', 'd', 'u-d')]);
SELECT name, queue FROM pg_temp.rows WHERE name = 'd';

-- apply() of a List writes its pods and nodes in batches too (one upsert
-- per kind, the statement triggers run once).  What it leaves is what
-- applying the items one by one leaves: a repeated pod as its last item,
-- a pod whose node comes later in the list on that node, a List of other
-- kinds (PodDisruptionBudgets) beside; the count is that of the changes.
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.queue;
SELECT scheduler.apply('{"kind": "List", "items": [
    {"kind": "Pod", "metadata": {"name": "l1", "namespace": "default", "uid": "u-l1", "labels": {"v": "1"}},
     "spec": {"containers": [{"name": "c"}]}},
    {"kind": "Pod", "metadata": {"name": "l2", "namespace": "default", "uid": "u-l2"},
     "spec": {"nodeName": "ln", "containers": [{"name": "c"}]}},
    {"kind": "Pod", "metadata": {"name": "l1", "namespace": "default", "uid": "u-l1", "labels": {"v": "2"}},
     "spec": {"containers": [{"name": "c"}]}},
    {"kind": "Node", "metadata": {"name": "ln", "uid": "u-ln"}, "status": {"allocatable": {"cpu": "1", "pods": "3"}}},
    {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1", "metadata": {"name": "b", "namespace": "default", "uid": "u-b"},
     "spec": {"minAvailable": 1, "selector": {"matchLabels": {"v": "2"}}}}]}') AS changed;
SELECT * FROM pg_temp.rows;
SELECT name, uid FROM scheduler.nodes;
SELECT node, pods FROM scheduler.snapshot();
SELECT count(*) AS pdbs FROM scheduler.pdbs;
