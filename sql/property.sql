-- Property test: 1000 random pods scheduled onto 50 random nodes.
--  * no node is over-committed on any resource or on its pod count;
--  * no cordoned node takes a pod that does not tolerate it;
--  * every unscheduled pod has one why() row for every node;
--  * no unscheduled pod fits any node at the end (room only shrinks during a
--    call, so a pod rejected earlier cannot fit later either).
-- Equal scores are broken at random, so only these invariants are printed.
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;
SELECT setseed(0.1234);

SELECT sum(scheduler.apply(jsonb_build_object('kind', 'Node',
    'metadata', jsonb_build_object('name', 'node-' || lpad(i::text, 2, '0')),
    'spec', jsonb_build_object('unschedulable', random() < 0.1),
    'status', jsonb_build_object('allocatable',
        jsonb_build_object(
            'cpu', (500 * (1 + floor(random() * 32)))::text || 'm',
            'memory', (1 + floor(random() * 64))::text || 'Gi',
            'ephemeral-storage', (10 + floor(random() * 100))::text || 'Gi',
            'pods', (5 + floor(random() * 106))::text)
        || CASE WHEN random() < 0.2 THEN jsonb_build_object('nvidia.com/gpu', (1 + floor(random() * 4))::text)
                ELSE '{}' END))))
FROM generate_series(1, 50) i;

CREATE FUNCTION pg_temp.random_requests() RETURNS jsonb LANGUAGE sql VOLATILE AS $$
    SELECT CASE WHEN random() < 0.1 THEN '{}'::jsonb ELSE
        jsonb_build_object('cpu', (50 * (1 + floor(random() * 80)))::text || 'm',
                           'memory', (64 * (1 + floor(random() * 128)))::text || 'Mi')
        || CASE WHEN random() < 0.1 THEN jsonb_build_object('ephemeral-storage', (1 + floor(random() * 20))::text || 'Gi') ELSE '{}' END
        || CASE WHEN random() < 0.1 THEN jsonb_build_object('nvidia.com/gpu', (1 + floor(random() * 2))::text) ELSE '{}' END
    END
$$;

SELECT sum(scheduler.apply(jsonb_build_object('kind', 'Pod',
    'metadata', jsonb_build_object('name', 'pod-' || lpad(i::text, 4, '0'), 'namespace', 'prop',
        'creationTimestamp', to_char(timestamptz '2024-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
    'spec', jsonb_build_object(
        'priority', (ARRAY[0, 0, 100, 1000])[1 + floor(random() * 4)::int],
        'containers', jsonb_build_array(jsonb_build_object('name', 'main',
            'resources', jsonb_build_object('requests', pg_temp.random_requests()))))
        || CASE WHEN random() < 0.1 THEN jsonb_build_object('initContainers', jsonb_build_array(
               jsonb_build_object('name', 'init', 'resources', jsonb_build_object('requests', pg_temp.random_requests()))))
           WHEN random() < 0.1 THEN jsonb_build_object('initContainers', jsonb_build_array(
               jsonb_build_object('name', 'sidecar', 'restartPolicy', 'Always',
                                  'resources', jsonb_build_object('requests', pg_temp.random_requests()))))
           ELSE '{}' END
        || CASE WHEN random() < 0.05 THEN jsonb_build_object('overhead', jsonb_build_object('cpu', '250m', 'memory', '120Mi'))
           ELSE '{}' END
        || CASE WHEN random() < 0.1 THEN '{"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]}'::jsonb
           ELSE '{}' END,
    'status', jsonb_build_object('phase', 'Pending'))))
FROM generate_series(1, 1000) i;

CREATE TEMP TABLE run AS SELECT * FROM schedule_pending();
SELECT count(*) AS attempted,
       count(*) FILTER (WHERE result = 'scheduled') > 0 AS some_scheduled,
       count(*) FILTER (WHERE result = 'unschedulable') > 0 AS some_unschedulable,
       count(*) FILTER (WHERE result NOT IN ('scheduled', 'unschedulable')) AS other_results
FROM run;

-- no resource over-committed on any node, counting every resource
SELECT count(*) AS overcommitted FROM scheduler.node_usage WHERE requested > allocatable;

-- the table agrees with what schedule_pending() returned
SELECT count(*) AS disagreements
FROM run r JOIN scheduler.pods p ON p.namespace = r.namespace AND p.name = r.name
WHERE p.assumed_node IS DISTINCT FROM r.node;

-- cordoned nodes only took pods that tolerate node.kubernetes.io/unschedulable
SELECT count(*) AS intolerant_on_cordoned
FROM scheduler.pods p JOIN scheduler.nodes n ON n.name = p.assumed_node
WHERE n.unschedulable AND jsonb_array_length(p.tolerations) = 0;

-- every unscheduled pod: one why() row for each of the 50 nodes
SELECT count(*) AS unscheduled_without_full_why
FROM run r
WHERE r.result = 'unschedulable'
  AND (SELECT count(DISTINCT w.node) || '/' || count(*) FROM scheduler.why(r.namespace, r.name) w) <> '50/50';

-- and its message counts all 50
SELECT count(*) AS bad_messages FROM run
WHERE result = 'unschedulable' AND message NOT LIKE '0/50 nodes are available: %.';

-- no false negatives: an unscheduled pod fits no node as things stand
WITH free AS (
    SELECT node, resource, allocatable - requested AS free FROM scheduler.node_usage
), unscheduled AS (
    SELECT p.* FROM run r JOIN scheduler.pods p ON p.namespace = r.namespace AND p.name = r.name
    WHERE r.result = 'unschedulable'
)
SELECT count(*) AS unscheduled_but_fit
FROM unscheduled u CROSS JOIN scheduler.nodes n
WHERE (NOT n.unschedulable OR jsonb_array_length(u.tolerations) > 0)
  AND (SELECT f.free FROM free f WHERE f.node = n.name AND f.resource = 'pods') >= 1
  AND NOT EXISTS (
      SELECT 1 FROM jsonb_each_text(u.requests) r
      WHERE r.key <> 'pods' AND r.value::numeric > 0
        AND r.value::numeric > coalesce((SELECT f.free FROM free f WHERE f.node = n.name AND f.resource = r.key), 0));
