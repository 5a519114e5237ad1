-- scheduler.fit_hints(namespace, name, max_nodes): what would make a
-- pending pod fit, node by node.  Each rank is one fix: its rows (one per
-- kind of change) share its change, the events simulate() takes.  The rule
-- every check here pins (the issue's): a hint is verified, that is, the
-- change given to simulate() places the pod.  pg_temp.verified() runs every
-- hint's change through simulate() and shows where the pod went.
-- The kinds: resource, eviction, taint, label, port, spread, affinity,
-- volume; each below has a case of its own, one pending pod at a time (a
-- pod ahead in the queue could take the room a hint makes: simulate() says
-- so, as the last case shows).
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.outbox,
    scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes, scheduler.pdbs;
SET scheduler.random_seed = 1;

CREATE FUNCTION pg_temp.node(name text, cpu text, labels jsonb DEFAULT '{}', spec jsonb DEFAULT '{}') RETURNS jsonb
LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Node',
        'metadata', jsonb_build_object('name', name, 'labels', jsonb_build_object('kubernetes.io/hostname', name) || labels),
        'spec', spec,
        'status', jsonb_build_object('allocatable', jsonb_build_object('cpu', cpu, 'memory', '16Gi', 'pods', '110')))
$$;
-- a pod of cpu (on node when given) with labels and more spec
CREATE FUNCTION pg_temp.pod(name text, cpu text, node text DEFAULT NULL, labels jsonb DEFAULT '{}',
                            spec jsonb DEFAULT '{}', priority int DEFAULT 0) RETURNS jsonb
LANGUAGE sql AS $$
    SELECT jsonb_build_object('kind', 'Pod',
        'metadata', jsonb_build_object('name', name, 'namespace', 'default', 'uid', 'u-' || name, 'labels', labels),
        'spec', jsonb_strip_nulls(jsonb_build_object('nodeName', node, 'priority', priority,
            'containers', jsonb_build_array(jsonb_build_object('name', 'c',
                'resources', jsonb_build_object('requests', jsonb_build_object('cpu', cpu)))))) || spec,
        'status', jsonb_build_object('phase', CASE WHEN node IS NULL THEN 'Pending' ELSE 'Running' END))
$$;
CREATE FUNCTION pg_temp.load(VARIADIC objs jsonb[]) RETURNS void LANGUAGE sql AS $$
    TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts, scheduler.attempt_history, scheduler.outbox,
        scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.pdbs;
    SELECT scheduler.apply(jsonb_build_object('kind', 'List', 'items', to_jsonb(objs)));
    SELECT count(*) FROM schedule_pending();
$$;
-- every hint of the pod, and where simulate() puts the pod with its change
CREATE FUNCTION pg_temp.verified(pod text)
RETURNS TABLE (rank int, node text, kind text, detail text, placed_on text) LANGUAGE sql AS $$
    SELECT h.rank, h.node, h.kind, h.detail,
           (SELECT coalesce(s.node, 'NOT PLACED: ' || s.message)
            FROM scheduler.simulate(h.change) s WHERE s.name = pod)
    FROM scheduler.fit_hints('default', pod) h
    ORDER BY h.rank, h.kind
$$;

-- resource and eviction: n1 (4 cpu) runs a (3 cpu); big asks 3.  n1 would
-- need 2 more cpu (3 + 3 - 4: the exact deficit), or to lose a; a has the
-- pod's priority, so preemption would not evict it, and the detail says so.
-- n2 is tainted: removing the taint is the cheapest fix.
SELECT pg_temp.load(pg_temp.node('n1', '4'),
    pg_temp.node('n2', '4', spec => '{"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
                                                 {"key": "soft", "effect": "PreferNoSchedule"}]}'),
    pg_temp.pod('a', '3', 'n1'), pg_temp.pod('big', '3'));
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-big';
SELECT * FROM pg_temp.verified('big');
-- the change of each: n1 with 6000m allocatable, n2 without its NoSchedule
-- taint (the PreferNoSchedule one stays: it does not filter), a deleted
SELECT rank, kind, jsonb_pretty(change) FROM scheduler.fit_hints('default', 'big') ORDER BY rank, kind;
-- max_nodes: the nodes nearest to fitting only (both fixes of n1 are one node)
SELECT rank, node, kind FROM scheduler.fit_hints('default', 'big', 1) ORDER BY rank;
SELECT count(*) FROM scheduler.fit_hints('default', 'big', 0);
SELECT count(*) FROM scheduler.fit_hints('default', 'big', 1001);

-- eviction across priorities, with a PodDisruptionBudget: on n1 low (prio
-- 10) and high (prio 1000) hold 2 cpu each; urgent (prio 100, which may
-- not preempt) asks 2.  The pods of lower priority are tried first, as
-- preemption tries them: low alone frees enough, and is the victim; the
-- budget that allows no disruption of low is named.  Asking 3, both have
-- to go: high too, which preemption would never evict.
SELECT pg_temp.load(pg_temp.node('n1', '4'),
    pg_temp.pod('low', '2', 'n1', '{"app": "low"}', priority => 10),
    pg_temp.pod('high', '2', 'n1', priority => 1000),
    pg_temp.pod('urgent', '2', priority => 100, spec => '{"preemptionPolicy": "Never"}'),
    '{"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
      "metadata": {"name": "keep-low", "namespace": "default", "uid": "pdb-1"},
      "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "low"}}},
      "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}');
SELECT * FROM pg_temp.verified('urgent');
SELECT scheduler.apply(pg_temp.pod('urgent', '3', priority => 100, spec => '{"preemptionPolicy": "Never"}'));
SELECT * FROM pg_temp.verified('urgent');

-- taint (cordon) and label: n1 is cordoned, n2 lacks the labels the pod's
-- nodeSelector and required node affinity ask (the term needing the
-- fewest changes: In takes its first value, Gt the bound plus one)
SELECT pg_temp.load(pg_temp.node('n1', '4', '{"disk": "ssd", "zone": "b", "gen": "5"}', '{"unschedulable": true}'),
    pg_temp.node('n2', '4', '{"gen": "2", "old": "yes"}'),
    pg_temp.pod('picky', '1', spec => '{"nodeSelector": {"disk": "ssd"}, "affinity": {"nodeAffinity":
        {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]},
                                  {"key": "gen", "operator": "Gt", "values": ["3"]},
                                  {"key": "old", "operator": "DoesNotExist"}]},
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["elsewhere"]}]}]}}}}'));
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-picky';
SELECT * FROM pg_temp.verified('picky');
SELECT change->0->'object'->'metadata'->'labels' AS n2_labels
FROM scheduler.fit_hints('default', 'picky') WHERE node = 'n2';

-- port: web1 holds host port 8080 on n1; web2 wants it
SELECT pg_temp.load(pg_temp.node('n1', '4'),
    pg_temp.pod('web1', '1', 'n1', spec => '{"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}'),
    pg_temp.pod('web2', '1', spec => '{"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}'));
SELECT * FROM pg_temp.verified('web2');

-- spread: zone a holds two app=s pods, zone b one on a full node; the
-- pod (maxSkew 1 on zone) would make zone a 3 against b's 1: one pod of
-- zone a has to go (the one on the node first).  n3 lacks the zone label:
-- the constraint's key, which a node must have.
SELECT pg_temp.load(pg_temp.node('n1', '8', '{"zone": "a"}'), pg_temp.node('n2', '8', '{"zone": "a"}'),
    pg_temp.node('n3', '8', spec => '{"taints": [{"key": "t", "effect": "NoSchedule"}]}'),
    pg_temp.node('n4', '1', '{"zone": "b"}'),
    pg_temp.pod('s1', '1', 'n1', '{"app": "s"}'), pg_temp.pod('s2', '1', 'n2', '{"app": "s"}'),
    pg_temp.pod('s3', '1', 'n4', '{"app": "s"}'),
    pg_temp.pod('spread', '1', labels => '{"app": "s"}', spec => '{"topologySpreadConstraints": [{"maxSkew": 1,
        "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "s"}}}]}'));
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-spread';
SELECT * FROM pg_temp.verified('spread');

-- affinity: required affinity to an app in (db, cache) on the same host;
-- the only db pod is on the full n2.  On n1: a pod the term matches
-- (the first value of In), added there.
SELECT pg_temp.load(pg_temp.node('n1', '8'), pg_temp.node('n2', '1'),
    pg_temp.pod('db1', '1', 'n2', '{"app": "db"}'),
    pg_temp.pod('aff', '1', labels => '{"app": "y"}', spec => '{"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db", "cache"]}]}}]}}}'));
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-aff';
SELECT * FROM pg_temp.verified('aff');
SELECT jsonb_pretty(change) FROM scheduler.fit_hints('default', 'aff') WHERE rank = 1;
-- the placeholder pod the checks put in the snapshot is gone again: the
-- backend's snapshot equals the tables, node by node
SELECT count(*) AS nodes_differing FROM (
    SELECT node, requested, pods FROM scheduler.snapshot()
    EXCEPT SELECT node, requested, pods FROM scheduler.snapshot_from_tables) d;

-- affinity: anti-affinity, the pod's own (no app=s pod in its zone) and an
-- existing pod's (guard keeps app=z pods out of its zone)
SELECT pg_temp.load(pg_temp.node('n1', '8', '{"zone": "a"}'), pg_temp.node('n2', '8', '{"zone": "b"}'),
    pg_temp.pod('s1', '1', 'n1', '{"app": "s"}'),
    pg_temp.pod('guard', '1', 'n2', '{"app": "g"}', '{"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "z"}}}]}}}'),
    pg_temp.pod('zed', '1', labels => '{"app": "z"}', spec => '{"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "s"}}}]}}}'));
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-zed';
SELECT * FROM pg_temp.verified('zed');

-- volume: the pod's claim is bound to a PersistentVolume of zone z1; the
-- node is in z2 (VolumeZone): the node's zone label would have to say z1
SELECT pg_temp.load(pg_temp.node('n1', '4', '{"topology.kubernetes.io/zone": "z2"}'),
    '{"kind": "PersistentVolume", "apiVersion": "v1",
      "metadata": {"name": "pv-z1", "uid": "pv-1", "labels": {"topology.kubernetes.io/zone": "z1"}},
      "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
               "claimRef": {"namespace": "default", "name": "data", "uid": "pvc-1"}},
      "status": {"phase": "Bound"}}',
    '{"kind": "PersistentVolumeClaim", "apiVersion": "v1",
      "metadata": {"name": "data", "namespace": "default", "uid": "pvc-1",
                   "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
      "spec": {"volumeName": "pv-z1", "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
      "status": {"phase": "Bound"}}',
    pg_temp.pod('vol', '1', spec => '{"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]}'));
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-vol';
SELECT * FROM pg_temp.verified('vol');

-- volume: a GCE persistent disk already mounted read-write by a pod on the
-- node (VolumeRestrictions: no available disk)
SELECT pg_temp.load(pg_temp.node('n1', '4'),
    pg_temp.pod('disk1', '1', 'n1', spec => '{"volumes": [{"name": "d", "gcePersistentDisk": {"pdName": "pd-1"}}]}'),
    pg_temp.pod('disk2', '1', spec => '{"volumes": [{"name": "d", "gcePersistentDisk": {"pdName": "pd-1"}}]}'));
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-disk2';
SELECT * FROM pg_temp.verified('disk2');

-- a label a fix sets moves the node's own pods to that domain, for the
-- plugins that count pods by domain (the checks relabel the snapshot's
-- node itself): n3 (no rack) holds three app=web pods; joining rack r1 or
-- r2 would make that rack too full for the spread, so the fix evicts too,
-- or uncordons a node; whatever it says, simulate() places the pod.
-- (Nodes without the key, after a value that did not do, once crashed
-- the value search.)
SELECT pg_temp.load(pg_temp.node('n1', '8', '{"rack": "r1"}', '{"unschedulable": true}'),
    pg_temp.node('n2', '8', '{"rack": "r2"}', '{"unschedulable": true}'), pg_temp.node('n3', '8'), pg_temp.node('n4', '8'),
    pg_temp.pod('w1', '1', 'n1', '{"app": "web"}'), pg_temp.pod('w2', '1', 'n2', '{"app": "web"}'),
    pg_temp.pod('w3', '1', 'n3', '{"app": "web"}'), pg_temp.pod('w4', '1', 'n3', '{"app": "web"}'),
    pg_temp.pod('w5', '1', 'n3', '{"app": "web"}'),
    pg_temp.pod('sp', '1', labels => '{"app": "web"}', spec => '{"topologySpreadConstraints": [{"maxSkew": 1,
        "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}]}'));
SELECT message FROM scheduler.pod_attempts WHERE pod_uid = 'u-sp';
SELECT * FROM pg_temp.verified('sp');
-- the same for an existing pod's anti-affinity: guard (on n1, no zone)
-- keeps app=z out of its zone; zed asks zone=b.  Labelling n1 zone=b puts
-- guard in zone b: the fix evicts guard too.
SELECT pg_temp.load(pg_temp.node('n1', '8'), pg_temp.node('n2', '8', '{"zone": "b"}', '{"unschedulable": true}'),
    pg_temp.pod('guard', '1', 'n1', '{"app": "g"}', '{"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "z"}}}]}}}'),
    pg_temp.pod('zed', '1', labels => '{"app": "z"}', spec => '{"nodeSelector": {"zone": "b"}}'));
SELECT * FROM pg_temp.verified('zed');

-- one change a round, on statuses read afresh: evicting the pod that holds
-- the host port frees the cpu too (no eviction for room on top of it)
SELECT pg_temp.load(pg_temp.node('n1', '2'),
    pg_temp.pod('w', '1', 'n1', spec => '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}, "ports": [{"containerPort": 80, "hostPort": 8080}]}]}'),
    pg_temp.pod('o', '1', 'n1'),
    pg_temp.pod('web', '1', spec => '{"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}, "ports": [{"containerPort": 80, "hostPort": 8080}]}]}'));
SELECT * FROM pg_temp.verified('web');

-- an empty NodeSelectorTerm matches no node (nodeaffinity): the other term's
-- label is the fix
SELECT pg_temp.load(pg_temp.node('n1', '4'),
    pg_temp.pod('t', '1', spec => '{"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{}, {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}'));
SELECT * FROM pg_temp.verified('t');

-- a pod a budget already counts as disrupted (status.disruptedPods) does
-- not count against it again, as DefaultPreemption reads it
SELECT pg_temp.load(pg_temp.node('n1', '4'),
    pg_temp.pod('low', '2', 'n1', '{"app": "low"}', priority => 10),
    pg_temp.pod('high', '2', 'n1', priority => 1000),
    pg_temp.pod('urgent', '2', priority => 100, spec => '{"preemptionPolicy": "Never"}'),
    '{"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
      "metadata": {"name": "keep-low", "namespace": "default", "uid": "pdb-1"},
      "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "low"}}},
      "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1,
                 "disruptedPods": {"low": "2024-01-01T00:00:00Z"}}}');
SELECT rank, kind, detail FROM scheduler.fit_hints('default', 'urgent') ORDER BY rank;

-- the checks leave the snapshot as they found it, even when a check counts
-- pods by term anew (past the 64 sets of term counts kept): q, with an
-- anti-affinity term on k60, lands on the empty n1 afterwards
SELECT pg_temp.load(pg_temp.node('n1', '2'),
    pg_temp.pod('v', '2', 'n1', (SELECT jsonb_object_agg('k' || i, 'x') FROM generate_series(0, 69) i)),
    pg_temp.pod('p', '1', priority => 10, spec => jsonb_build_object('preemptionPolicy', 'Never', 'affinity',
        jsonb_build_object('podAntiAffinity', jsonb_build_object('requiredDuringSchedulingIgnoredDuringExecution',
            (SELECT jsonb_agg(jsonb_build_object('topologyKey', 'kubernetes.io/hostname',
                'labelSelector', jsonb_build_object('matchLabels', jsonb_build_object('k' || i, 'x')))) FROM generate_series(0, 69) i))))));
SELECT rank, node, kind, left(detail, 60) FROM scheduler.fit_hints('default', 'p') ORDER BY rank;
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', pg_temp.pod('v', '2', 'n1')));
SELECT scheduler.apply(jsonb_build_object('type', 'DELETED', 'object', pg_temp.pod('p', '1')));
SELECT scheduler.apply(pg_temp.pod('q', '1', spec => '{"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"k60": "x"}}}]}}}'));
SELECT name, node, result FROM schedule_pending();

-- a pod ahead in the queue takes the room a hint makes: first (queued
-- earlier) and second both ask 2 cpu of n1's 1 free; the hint for second
-- is right for second alone, and simulate() shows first taking the room.
SELECT pg_temp.load(pg_temp.node('n1', '4'), pg_temp.pod('a', '3', 'n1'));
SELECT scheduler.apply(pg_temp.pod('first', '2'));
SELECT scheduler.apply(pg_temp.pod('second', '2'));
SELECT count(*) FROM schedule_pending();
SELECT * FROM pg_temp.verified('second');

-- nothing to hint: a pod that fits now (the next cycle places it), a
-- bound pod; an unknown pod is an error, as in why()
SELECT scheduler.apply(jsonb_build_object('type', 'ADDED', 'object', pg_temp.node('n2', '8')));
SELECT count(*) FROM scheduler.fit_hints('default', 'second');
SELECT count(*) FROM scheduler.fit_hints('default', 'a');
SELECT * FROM scheduler.fit_hints('default', 'nobody');

-- nothing written: the tables are as they were, and the snapshot too (a
-- fix takes pods off and puts them back)
SELECT count(*) AS nodes_differing FROM (
    SELECT node, requested, pods FROM scheduler.snapshot()
    EXCEPT SELECT node, requested, pods FROM scheduler.snapshot_from_tables) d;
SELECT (SELECT count(*) FROM scheduler.outbox) AS outbox, (SELECT count(*) FROM scheduler.pods) AS pods,
       (SELECT string_agg(node || ':' || pods || ':' || coalesce(requested->>'cpu', '0'), ' ' ORDER BY node) FROM scheduler.snapshot()) AS snapshot;
