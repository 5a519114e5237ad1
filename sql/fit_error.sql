-- FitError.Error() (kube-scheduler's FailedScheduling message) against cases from kube-scheduler's own tests.
--
-- How FitError.Error() works, as read in kubernetes/kubernetes
-- pkg/scheduler/framework/types.go@00fdf757a8e89fb0c7ccad10419ef33a1fa1b1ab:
--   msg := "0/<NumAllNodes> nodes are available:"
--   if PreFilterMsg != "":  msg += " <PreFilterMsg>."   and the node statuses are NOT counted
--      (the framework copies the PreFilter rejection to every node; counting it would duplicate it).
--   else: for every explicit node status, every string of status.Reasons() counts 1 (a node with
--      several reasons adds to several buckets); if NodeToStatus.Len() < NumAllNodes, every reason of
--      the AbsentNodesStatus counts NumAllNodes - Len() more; each bucket prints as "<count> <reason>",
--      the strings go through sort.Strings (byte order, so "10 x" < "2 y" and "1 F" < "1 i"),
--      are joined with ", ", and if there is at least one: msg += " <joined>."
--      (no reasons at all -> nothing is added: "0/N nodes are available:" with no trailing period).
--   if PostFilterMsg != "": msg += " <PostFilterMsg>"   (no period added; this happens after a
--      PreFilter rejection too).
--   The default preemption PostFilter builds its own FitError over the nodes it tried
--   (pkg/scheduler/framework/preemption/preemption.go@00e6d95193934fed1b980e82fb6ec563e9dd1693,
--   Evaluator.Preempt: NumAllNodes = all nodes, absent nodes get "Preemption is not helpful for
--   scheduling" via SetAbsentNodesStatus) and DefaultPreemption.PostFilter prefixes it with
--   "preemption: "; that whole string is the outer FitError's PostFilterMsg.  Other PostFilter
--   plugins' messages are joined before it with ", " (DRA: "still not schedulable, preemption: ...").
--
-- Version differences (older kube-scheduler):
--   * very old (v1.2-ish): "Failed for reason %s and possibly others"; then
--     "pod (%s) failed to fit in any node\nfit failure summary on nodes : <R (n)>, ...";
--     then "No nodes are available that match all of the following predicates:: <R (n)>, ...."
--     (histogram as "<reason> (<count>)", and a doubled colon).
--   * "0/N nodes are available: <histogram>." with "<count> <reason>" (no Pre/PostFilter parts);
--     with an empty histogram this printed "0/N nodes are available: ." .
--   * v1.24 (kubernetes PR #107775) added " " + PostFilterMsg (the "preemption: ..." part).
--   * An intermediate version (constant SeparatorFormat = " %v.") appended PreFilterMsg, the
--     histogram AND PostFilterMsg each as " <x>." and still counted node reasons after a PreFilter
--     rejection: hence the real-world "... No preemption victims found for incoming pod.." (double
--     period) and duplicated PreFilter reasons.  The current code (above) fixed both.
--
-- node_reasons: node -> status.Reasons().  Where a Go test sets an absent-nodes status WITH reasons
-- (NewNodeToStatus(map, absentStatus) / SetAbsentNodesStatus), those absent nodes are expanded here:
-- each one is listed explicitly with that reason, up to num_all_nodes (marked "absent expanded").
-- Absent statuses without reasons (fwk.NewStatus(fwk.UnschedulableAndUnresolvable)) add nothing,
-- so their nodes are simply not listed.
--
-- Sources (kubernetes/kubernetes, commit as reported by the code index):
--   [T] pkg/scheduler/framework/types_test.go@00fdf757a8e89fb0c7ccad10419ef33a1fa1b1ab
--       TestFitError_Error (literal wantReasonMsg).
--   [S] pkg/scheduler/schedule_one_test.go@008b3652959ca58af8be3fb5b6ecfe9ae7638282
--       TestSchedulerScheduleOne, TestScheduleOneMarksPodAsProcessedBeforePreBind,
--       TestSchedulerWithVolumeBinding: literal makePredicateError("...") =
--       "0/1 nodes are available: <...>." compared with err.Error().
--       TestSchedulerSchedulePod, TestSchedulerNoPhantomPodAfterDelete,
--       TestSchedulerFailedSchedulingReasons: the expected error is a &framework.FitError{...}
--       compared structurally (cmp.Diff); `want` here is that FitError's Error() per the source above.
--       (tf.ErrReasonFake = "Nodes failed the fake plugin", FakeFilterPlugin's reason
--       "injecting failure for pod <name>": pkg/scheduler/testing/framework/fake_plugins.go@0ba578f91f5de11776152b55bac37491d9848ef3;
--       nodeports.ErrReason = "node(s) didn't have free ports for the requested pod ports".)
--   [P] pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go@008b3652959ca58af8be3fb5b6ecfe9ae7638282
--       TestPostFilter: literal wantStatus "preemption: 0/N nodes are available: ...";
--       `want` is the part after "preemption: " (the preemption Evaluator's own FitError.Error()).
--   [D] test/integration/dra/prioritizedlist.go@121460defea7874f50c64bb8de51018a86c6eef3 testPrioritizedList,
--       test/integration/dra/core.go@04593ae9b3968b6504db6e4cb039de409f92ea2a testInvalidResourceSlices:
--       literal PodScheduled condition message (= the FailedScheduling text), gomega.Equal.
--       Integration nodes are named worker-0..worker-7 here (names do not matter).
--   [X] No kubernetes test found asserting a multi-digit count next to a smaller one; the rows
--       marked "source-derived" follow only from the Error() source quoted above.
\set SHOW_CONTEXT never

CREATE TEMP TABLE fit_error_cases AS
SELECT * FROM (VALUES
  -- [T] TestFitError_Error
  ('TestFitError_Error: nodes failed Prefilter plugin'::text, 3::integer,
   '{"node1": ["Node(s) failed PreFilter plugin FalsePreFilter"], "node2": ["Node(s) failed PreFilter plugin FalsePreFilter"], "node3": ["Node(s) failed PreFilter plugin FalsePreFilter"]}'::jsonb,
   'Node(s) failed PreFilter plugin FalsePreFilter'::text, NULL::text,
   '0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter.'::text),
  ('TestFitError_Error: nodes failed Prefilter plugin and the preemption also failed', 3,
   '{"node1": ["Node(s) failed PreFilter plugin FalsePreFilter"], "node2": ["Node(s) failed PreFilter plugin FalsePreFilter"], "node3": ["Node(s) failed PreFilter plugin FalsePreFilter"]}',
   'Node(s) failed PreFilter plugin FalsePreFilter', 'Error running PostFilter plugin FailedPostFilter',
   '0/3 nodes are available: Node(s) failed PreFilter plugin FalsePreFilter. Error running PostFilter plugin FailedPostFilter'),
  ('TestFitError_Error: nodes failed one Filter plugin with an empty PostFilterMsg', 3,
   '{"node1": ["Node(s) failed Filter plugin FalseFilter-1"], "node2": ["Node(s) failed Filter plugin FalseFilter-1"], "node3": ["Node(s) failed Filter plugin FalseFilter-1"]}',
   NULL, NULL,
   '0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1.'),
  ('TestFitError_Error: nodes failed one Filter plugin with a non-empty PostFilterMsg', 3,
   '{"node1": ["Node(s) failed Filter plugin FalseFilter-1"], "node2": ["Node(s) failed Filter plugin FalseFilter-1"], "node3": ["Node(s) failed Filter plugin FalseFilter-1"]}',
   NULL, 'Error running PostFilter plugin FailedPostFilter',
   '0/3 nodes are available: 3 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter'),
  ('TestFitError_Error: nodes failed two Filter plugins with an empty PostFilterMsg', 3,
   '{"node1": ["Node(s) failed Filter plugin FalseFilter-1"], "node2": ["Node(s) failed Filter plugin FalseFilter-1"], "node3": ["Node(s) failed Filter plugin FalseFilter-2"]}',
   NULL, NULL,
   '0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1.'),
  ('TestFitError_Error: nodes failed two Filter plugins with a non-empty PostFilterMsg', 3,
   '{"node1": ["Node(s) failed Filter plugin FalseFilter-1"], "node2": ["Node(s) failed Filter plugin FalseFilter-1"], "node3": ["Node(s) failed Filter plugin FalseFilter-2"]}',
   NULL, 'Error running PostFilter plugin FailedPostFilter',
   '0/3 nodes are available: 1 Node(s) failed Filter plugin FalseFilter-2, 2 Node(s) failed Filter plugin FalseFilter-1. Error running PostFilter plugin FailedPostFilter'),
  ('TestFitError_Error: failed to Permit on node', 1,
   '{"node1": ["Node failed Permit plugin Permit-1"]}',
   NULL, NULL,
   '0/1 nodes are available: 1 Node failed Permit plugin Permit-1.'),
  ('TestFitError_Error: failed to Reserve on node', 1,
   '{"node1": ["Node failed Reserve plugin Reserve-1"]}',
   NULL, NULL,
   '0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.'),

  -- [S] literal makePredicateError(...)
  ('TestSchedulerScheduleOne: reserve failed with status code rejected', 1,
   '{"node1": ["rejected on reserve"]}', NULL, NULL,
   '0/1 nodes are available: 1 rejected on reserve.'),
  ('TestSchedulerScheduleOne: permit failed with status code rejected', 1,
   '{"node1": ["rejected on permit"]}', NULL, NULL,
   '0/1 nodes are available: 1 rejected on permit.'),
  ('TestScheduleOneMarksPodAsProcessedBeforePreBind: pod rejected on permit', 1,
   '{"node1": ["on permit"]}', NULL, NULL,
   '0/1 nodes are available: 1 on permit.'),
  ('TestScheduleOneMarksPodAsProcessedBeforePreBind: pod rejected while wait on permit', 1,
   '{"node1": ["wait on permit"]}', NULL, NULL,
   '0/1 nodes are available: 1 wait on permit.'),
  ('TestSchedulerWithVolumeBinding: bound/invalid pv affinity', 1,
   '{"node1": ["node(s) didn''t match PersistentVolume''s node affinity"]}', NULL, NULL,
   '0/1 nodes are available: 1 node(s) didn''t match PersistentVolume''s node affinity.'),
  ('TestSchedulerWithVolumeBinding: unbound/no matches', 1,
   '{"node1": ["node(s) didn''t find available persistent volumes to bind"]}', NULL, NULL,
   '0/1 nodes are available: 1 node(s) didn''t find available persistent volumes to bind.'),
  -- one node, two reasons (FindReasons{ErrReasonBindConflict, ErrReasonNodeConflict})
  ('TestSchedulerWithVolumeBinding: bound and unbound unsatisfied', 1,
   '{"node1": ["node(s) didn''t find available persistent volumes to bind", "node(s) didn''t match PersistentVolume''s node affinity"]}', NULL, NULL,
   '0/1 nodes are available: 1 node(s) didn''t find available persistent volumes to bind, 1 node(s) didn''t match PersistentVolume''s node affinity.'),

  -- [S] expected &framework.FitError{...}; want = its Error()
  ('TestSchedulerSchedulePod: test 1', 2,
   '{"node1": ["Nodes failed the fake plugin"], "node2": ["Nodes failed the fake plugin"]}', NULL, NULL,
   '0/2 nodes are available: 2 Nodes failed the fake plugin.'),
  -- same reason from two different plugins (MatchFilter, NoPodsFilter) lands in one bucket
  ('TestSchedulerSchedulePod: test 8', 2,
   '{"1": ["Nodes failed the fake plugin"], "2": ["Nodes failed the fake plugin"]}', NULL, NULL,
   '0/2 nodes are available: 2 Nodes failed the fake plugin.'),
  -- PreFilter rejection; absent status (same message) expanded to node1, node2 and not counted
  ('TestSchedulerSchedulePod: unknown PVC', 2,
   '{"node1": ["persistentvolumeclaim \"unknownPVC\" not found"], "node2": ["persistentvolumeclaim \"unknownPVC\" not found"]}',
   'persistentvolumeclaim "unknownPVC" not found', NULL,
   '0/2 nodes are available: persistentvolumeclaim "unknownPVC" not found.'),
  ('TestSchedulerSchedulePod: deleted PVC', 2,
   '{"node1": ["persistentvolumeclaim \"existingPVC\" is being deleted"], "node2": ["persistentvolumeclaim \"existingPVC\" is being deleted"]}',
   'persistentvolumeclaim "existingPVC" is being deleted', NULL,
   '0/2 nodes are available: persistentvolumeclaim "existingPVC" is being deleted.'),
  ('TestSchedulerSchedulePod: test with filter plugin returning Unschedulable status', 1,
   '{"3": ["injecting failure for pod test-filter"]}', NULL, NULL,
   '0/1 nodes are available: 1 injecting failure for pod test-filter.'),
  -- byte order: "1 F..." < "1 i..."
  ('TestSchedulerSchedulePod: test with extender which filters out some Nodes', 3,
   '{"1": ["FakeExtender: node \"1\" failed"], "2": ["FakeExtender: node \"2\" failed"], "3": ["injecting failure for pod test-filter"]}', NULL, NULL,
   '0/3 nodes are available: 1 FakeExtender: node "1" failed, 1 FakeExtender: node "2" failed, 1 injecting failure for pod test-filter.'),
  ('TestSchedulerSchedulePod: test with filter plugin returning UnschedulableAndUnresolvable status', 1,
   '{"3": ["injecting failure for pod test-filter"]}', NULL, NULL,
   '0/1 nodes are available: 1 injecting failure for pod test-filter.'),
  -- absent expanded (node "1", "2")
  ('TestSchedulerSchedulePod: test prefilter plugin returning Unschedulable status', 2,
   '{"1": ["injected unschedulable status"], "2": ["injected unschedulable status"]}',
   'injected unschedulable status', NULL,
   '0/2 nodes are available: injected unschedulable status.'),
  -- absent expanded (node1..node3)
  ('TestSchedulerSchedulePod: test prefilter plugin returning non-intersecting nodes', 3,
   '{"node1": ["node(s) didn''t satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously"], "node2": ["node(s) didn''t satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously"], "node3": ["node(s) didn''t satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously"]}',
   'node(s) didn''t satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously', NULL,
   '0/3 nodes are available: node(s) didn''t satisfy plugin(s) [FakePreFilter2 FakePreFilter3] simultaneously.'),
  -- absent expanded (node1)
  ('TestSchedulerSchedulePod: test prefilter plugin returning empty node set', 1,
   '{"node1": ["node(s) didn''t satisfy plugin FakePreFilter2"]}',
   'node(s) didn''t satisfy plugin FakePreFilter2', NULL,
   '0/1 nodes are available: node(s) didn''t satisfy plugin FakePreFilter2.'),
  -- node2 explicit (Filter); node1 absent expanded with the PreFilterResult absent status
  ('TestSchedulerSchedulePod: test some nodes are filtered out by prefilter plugin and other are filtered out by filter plugin', 2,
   '{"node1": ["node(s) didn''t satisfy plugin(s) [FakePreFilter]"], "node2": ["injecting failure for pod test-prefilter"]}', NULL, NULL,
   '0/2 nodes are available: 1 injecting failure for pod test-prefilter, 1 node(s) didn''t satisfy plugin(s) [FakePreFilter].'),
  -- no explicit statuses, no PreFilterMsg: both nodes absent expanded
  ('TestSchedulerSchedulePod: test prefilter plugin returned an invalid node', 2,
   '{"1": ["node(s) didn''t satisfy plugin(s) [FakePreFilter]"], "2": ["node(s) didn''t satisfy plugin(s) [FakePreFilter]"]}', NULL, NULL,
   '0/2 nodes are available: 2 node(s) didn''t satisfy plugin(s) [FakePreFilter].'),
  ('TestSchedulerNoPhantomPodAfterDelete: conflicting host port', 1,
   '{"node1": ["node(s) didn''t have free ports for the requested pod ports"]}', NULL, NULL,
   '0/1 nodes are available: 1 node(s) didn''t have free ports for the requested pod ports.'),
  -- 100 nodes (node0..node99), each with two reasons; counts >= 10
  ('TestSchedulerFailedSchedulingReasons: 100 nodes, cpu and memory', 100,
   (SELECT jsonb_object_agg('node' || i, '["Insufficient cpu", "Insufficient memory"]'::jsonb) FROM generate_series(0, 99) i),
   NULL, NULL,
   '0/100 nodes are available: 100 Insufficient cpu, 100 Insufficient memory.'),

  -- [P] TestPostFilter: the text after "preemption: "
  ('TestPostFilter: pod with tied priority is still unschedulable', 1,
   '{"node1": ["No preemption victims found for incoming pod"]}', NULL, NULL,
   '0/1 nodes are available: 1 No preemption victims found for incoming pod.'),
  -- node1 UnschedulableAndUnresolvable -> no potential node; absent expanded
  ('TestPostFilter: preemption should respect filteredNodesStatuses', 1,
   '{"node1": ["Preemption is not helpful for scheduling"]}', NULL, NULL,
   '0/1 nodes are available: 1 Preemption is not helpful for scheduling.'),
  ('TestPostFilter: preemption should respect absent NodeToStatusReader entry meaning UnschedulableAndUnresolvable', 1,
   '{"node1": ["Preemption is not helpful for scheduling"]}', NULL, NULL,
   '0/1 nodes are available: 1 Preemption is not helpful for scheduling.'),
  ('TestPostFilter: no candidate nodes found, no enough resource after removing low priority pods', 2,
   '{"node1": ["Insufficient cpu"], "node2": ["Insufficient cpu"]}', NULL, NULL,
   '0/2 nodes are available: 2 Insufficient cpu.'),
  ('TestPostFilter: no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource', 3,
   '{"node1": ["No preemption victims found for incoming pod"], "node2": ["Insufficient cpu"], "node3": ["No preemption victims found for incoming pod"]}', NULL, NULL,
   '0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod.'),
  -- node3 (absent), node4 (UnschedulableAndUnresolvable, not tried): absent expanded
  ('TestPostFilter: no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don''t have enough CPU resource', 4,
   '{"node1": ["Insufficient cpu"], "node2": ["Insufficient cpu"], "node3": ["Preemption is not helpful for scheduling"], "node4": ["Preemption is not helpful for scheduling"]}', NULL, NULL,
   '0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling.'),

  -- [D] integration: whole FailedScheduling messages with the preemption PostFilter message
  ('testPrioritizedList (DRA integration): 8 nodes cannot allocate', 8,
   (SELECT jsonb_object_agg('worker-' || i, '["cannot allocate all claims"]'::jsonb) FROM generate_series(0, 7) i),
   NULL, 'preemption: 0/8 nodes are available: 8 Preemption is not helpful for scheduling.',
   '0/8 nodes are available: 8 cannot allocate all claims. preemption: 0/8 nodes are available: 8 Preemption is not helpful for scheduling.'),
  -- the inner (preemption) FitError of the same message: all 8 nodes absent, expanded
  ('testPrioritizedList (DRA integration): inner preemption FitError', 8,
   (SELECT jsonb_object_agg('worker-' || i, '["Preemption is not helpful for scheduling"]'::jsonb) FROM generate_series(0, 7) i),
   NULL, NULL,
   '0/8 nodes are available: 8 Preemption is not helpful for scheduling.'),
  ('testInvalidResourceSlices (DRA integration): only-invalid-for-one-node', 8,
   (SELECT jsonb_object_agg('worker-' || i, CASE WHEN i = 0 THEN '["invalid resource pools were encountered"]'::jsonb
                                                 ELSE '["cannot allocate all claims"]'::jsonb END)
      FROM generate_series(0, 7) i),
   NULL, 'still not schedulable, preemption: 0/8 nodes are available: 8 Preemption is not helpful for scheduling.',
   '0/8 nodes are available: 1 invalid resource pools were encountered, 7 cannot allocate all claims. still not schedulable, preemption: 0/8 nodes are available: 8 Preemption is not helpful for scheduling.'),
  ('testInvalidResourceSlices (DRA integration): invalid-for-all-nodes', 8,
   (SELECT jsonb_object_agg('worker-' || i, '["invalid resource pools were encountered"]'::jsonb) FROM generate_series(0, 7) i),
   NULL, 'still not schedulable, preemption: 0/8 nodes are available: 8 Preemption is not helpful for scheduling.',
   '0/8 nodes are available: 8 invalid resource pools were encountered. still not schedulable, preemption: 0/8 nodes are available: 8 Preemption is not helpful for scheduling.'),

  -- [X] source-derived (no kubernetes test asserts these): sort.Strings on "<count> <reason>"
  ('~source-derived: 10 sorts before 2 (byte order, not by count or reason)', 12,
   (SELECT jsonb_object_agg('node' || i, CASE WHEN i <= 10 THEN '["node(s) had untolerated taint(s)"]'::jsonb
                                              ELSE '["Insufficient cpu"]'::jsonb END)
      FROM generate_series(1, 12) i),
   NULL, NULL,
   '0/12 nodes are available: 10 node(s) had untolerated taint(s), 2 Insufficient cpu.'),
  ('~source-derived: unlisted nodes (absent, no reasons) add nothing', 3,
   '{"node1": ["Insufficient cpu"]}', NULL, NULL,
   '0/3 nodes are available: 1 Insufficient cpu.'),
  ('~source-derived: no reasons at all, no PreFilter/PostFilter message', 2,
   '{}', NULL, NULL,
   '0/2 nodes are available:'),
  ('~source-derived: no reasons at all, PostFilter message only', 1,
   '{"node1": []}', NULL, 'preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
   '0/1 nodes are available: preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.')
) AS c(test, nodes, reasons, pre, post, want);

SELECT c.test, scheduler.fit_error_message(c.nodes, c.reasons, c.pre, c.post) = c.want AS ok,
       scheduler.fit_error_message(c.nodes, c.reasons, c.pre, c.post) AS got
FROM fit_error_cases c
ORDER BY c.test COLLATE "C";

SELECT count(*) AS cases,
       count(*) FILTER (WHERE scheduler.fit_error_message(c.nodes, c.reasons, c.pre, c.post)
                              IS DISTINCT FROM c.want) AS failures
FROM fit_error_cases c;
