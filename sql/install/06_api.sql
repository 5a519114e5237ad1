-- Functions
------------------------------------------------------------------------------
CREATE FUNCTION scheduler.check_plugin(plugin text, args jsonb) RETURNS void
    AS 'MODULE_PATHNAME', 'scheduler_check_plugin' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION scheduler.check_plugin(text, jsonb) IS 'Error unless plugin is known and args are valid for it (kube-scheduler''s args validation)';
CREATE FUNCTION scheduler_internal.check_profile_plugin() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    PERFORM scheduler.check_plugin(NEW.plugin, NEW.args);
    RETURN NEW;
END $$;
CREATE TRIGGER check_plugin BEFORE INSERT OR UPDATE ON scheduler.profile_plugins
    FOR EACH ROW EXECUTE FUNCTION scheduler_internal.check_profile_plugin();

CREATE FUNCTION scheduler.apply(doc jsonb) RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_apply' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.apply(jsonb) IS 'Apply an object of a kind scheduler.kinds() lists (a Node, a Pod, ...), a List of them (kubectl get -o json), or a watch event; returns how many objects changed';
CREATE FUNCTION scheduler.apply_events(events jsonb[]) RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_apply_events' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.apply_events(jsonb[]) IS 'Apply watch events (or objects) in order as one batch, as the watch worker does: the pods written in one statement, the last event per pod winning; returns how many objects changed';

-- The kinds the mirror holds and the watch worker watches (kinds.c): one row each.
CREATE FUNCTION scheduler.kinds(OUT kind text, OUT list_kind text, OUT api_version text, OUT resource text,
                                OUT path text, OUT query text, OUT table_name text, OUT namespaced boolean,
                                OUT events text)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'scheduler_kinds' LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION scheduler.kinds() IS 'The Kubernetes kinds the scheduler mirrors and watches: kind, list kind, apiVersion, resource, the collection path and query the watch worker lists and watches, the mirror table, whether namespaced, and the cluster events its changes raise for the QueueingHints (Node, AssignedPod, PersistentVolumeClaim, ...) or NULL';

CREATE FUNCTION scheduler.quantity_milli(quantity text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'quantity_milli' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.quantity_milli(text) IS 'A Kubernetes quantity times 1000, rounded up (Quantity.MilliValue)';

CREATE FUNCTION scheduler.quantity_value(quantity text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'quantity_value' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.quantity_value(text) IS 'A Kubernetes quantity rounded up to an integer (Quantity.Value)';

CREATE FUNCTION scheduler.pod_requests(pod jsonb, OUT requests jsonb, OUT nonzero_cpu bigint,
                                       OUT nonzero_memory bigint, OUT pending_nonzero_cpu bigint,
                                       OUT pending_nonzero_memory bigint)
    AS 'MODULE_PATHNAME', 'scheduler_pod_requests' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.pod_requests(jsonb) IS 'What scheduler.apply() stores of a Pod''s resources, from the object alone: its effective request (normalized), its non-zero cpu and memory as a node counts it, and, for a pending pod NodeResourcesFit''s scorer reads otherwise (pod-level requests), as that scorer reads it';

CREATE FUNCTION @extschema@.schedule_pending(max_pods integer DEFAULT NULL)
    RETURNS TABLE (namespace text, name text, node text, result text, message text)
    AS 'MODULE_PATHNAME', 'schedule_pending' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.schedule_pending(integer) IS 'Run scheduling cycles for up to max_pods pending pods; one row per pod attempted';

CREATE FUNCTION scheduler.filter(namespace text, name text)
    RETURNS TABLE (node text, plugin text, code text, reason text)
    AS 'MODULE_PATHNAME', 'scheduler_filter' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.filter(text, text) IS 'PreFilter (node NULL) and Filter verdicts of every plugin of the pod''s profile on every node, on the current snapshot';

CREATE FUNCTION scheduler.score(namespace text, name text, feasible_only boolean DEFAULT true)
    RETURNS TABLE (node text, plugin text, raw bigint, normalized bigint, weighted bigint)
    AS 'MODULE_PATHNAME', 'scheduler_score' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.score(text, text, boolean) IS 'Score, normalized score and weighted score of every scoring plugin on every feasible node (or every node)';

CREATE FUNCTION scheduler.simulate(changes jsonb DEFAULT '[]', scheduler_name text DEFAULT NULL)
    RETURNS TABLE (namespace text, name text, node text, result text, message text)
    AS 'MODULE_PATHNAME', 'scheduler_simulate' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler.simulate(jsonb, text) IS 'What-if: a scheduling cycle for every pending pod of the schedulerName (and every pending pod the changes add), on the cluster as it is with the changes (Node and Pod objects and watch events, applied in order) made in memory only; one row per pod, as schedule_pending() returns; writes nothing, locks nothing';

CREATE FUNCTION scheduler.fit_hints(namespace text, name text, max_nodes integer DEFAULT 10)
    RETURNS TABLE (rank integer, node text, kind text, detail text, change jsonb)
    AS 'MODULE_PATHNAME', 'scheduler_fit_hints' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.fit_hints(text, text, integer) IS 'What would make a pending pod fit: the smallest changes, node by node (the max_nodes nearest to fitting), ranked; each change is the list of objects and events that simulate() takes, enough alone to let the pod onto that node';

CREATE FUNCTION scheduler.plan_capacity(templates jsonb, pods jsonb DEFAULT NULL)
    RETURNS TABLE (template text, nodes integer, pods integer)
    AS 'MODULE_PATHNAME', 'scheduler_plan_capacity' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler.plan_capacity(jsonb, jsonb) IS 'Capacity planning: how many nodes of each template (Node objects named by metadata.name) would place every pending pod (or the pods given), bin-packed with the real filters on a private copy of the snapshot; the row whose template is NULL counts the pods no template can hold';

CREATE FUNCTION scheduler.plan_capacity_pods(templates jsonb, pods jsonb DEFAULT NULL)
    RETURNS TABLE (namespace text, name text, template text, node text, message text)
    AS 'MODULE_PATHNAME', 'scheduler_plan_capacity_pods' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler.plan_capacity_pods(jsonb, jsonb) IS 'plan_capacity() pod by pod: the template and the new node each pod goes to, or, for a pod no template can hold, why (template and node NULL)';

CREATE FUNCTION scheduler.diagnosis(namespace text, name text)
    RETURNS jsonb
    AS 'MODULE_PATHNAME', 'scheduler_diagnosis' LANGUAGE C STRICT STABLE COST 100000;
COMMENT ON FUNCTION scheduler.diagnosis(text, text) IS 'Why a pod is pending, as one document: its latest attempt, per plugin and reason the nodes, the PreFilter results, the preemption outcome and the hints of fit_hints()';

CREATE FUNCTION scheduler.fit_error_message(num_all_nodes integer, node_reasons jsonb,
                                            prefilter_msg text DEFAULT NULL, postfilter_msg text DEFAULT NULL)
    RETURNS text AS 'MODULE_PATHNAME', 'scheduler_fit_error_message' LANGUAGE C IMMUTABLE;
COMMENT ON FUNCTION scheduler.fit_error_message(integer, jsonb, text, text) IS 'kube-scheduler''s FitError.Error() message for node -> [reasons] (the FailedScheduling text)';

CREATE FUNCTION scheduler.num_feasible_nodes_to_find(percentage integer, nodes integer) RETURNS integer
    AS 'MODULE_PATHNAME', 'num_feasible_nodes_to_find' LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.num_feasible_nodes_to_find(integer, integer) IS 'How many feasible nodes a cycle looks for before scoring (kube-scheduler numFeasibleNodesToFind; 0 = adaptive)';

CREATE FUNCTION scheduler.snapshot()
    RETURNS TABLE (node text, "position" integer, unschedulable boolean, allocatable jsonb,
                   requested jsonb, nonzero_cpu bigint, nonzero_memory bigint, pods integer)
    AS 'MODULE_PATHNAME', 'scheduler_snapshot' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.snapshot() IS 'The nodes as the scheduler sees them (this backend''s cache, refreshed): search order, allocatable, requested, non-zero requests, pod count';

CREATE FUNCTION scheduler.why(namespace text, name text)
    RETURNS TABLE (node text, plugin text, reason text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    target text;
BEGIN
    PERFORM scheduler.require_role('scheduler_reader');
    SELECT p.uid INTO target FROM scheduler.pods p WHERE p.namespace = $1 AND p.name = $2;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'pod %/% not found', $1, $2
            USING ERRCODE = 'undefined_object',
                  HINT = 'Load it with scheduler.apply().';
    END IF;
    RETURN QUERY
        SELECT n.node, d.plugin, d.reason
        FROM scheduler.pod_attempts a
             JOIN scheduler.attempt_history h ON h.id = a.history_id
             LEFT JOIN scheduler.attempt_history s ON s.id = h.diagnosis_of,
             jsonb_to_recordset(coalesce(h.diagnosis, s.diagnosis)) AS d(plugin text, reason text, nodes jsonb),
             jsonb_array_elements_text(d.nodes) AS n(node)
        WHERE a.pod_uid = target AND a.result = 'unschedulable'
        ORDER BY n.node;
    -- a preemptor waits for its victims: the lower-priority pods terminating on its nominated node
    -- (bound there: an assumed pod whose deletion starts is forgotten, as kube-scheduler's
    -- handleAssumedPodDeletion forgets it, and frees its room at once)
    RETURN QUERY
        SELECT q.nominated_node, 'DefaultPreemption'::text,
               'nominated by preemption: waiting for ' || v.terminating
               || CASE WHEN v.terminating = 1 THEN ' victim' ELSE ' victims' END || ' to terminate'
        FROM scheduler.queue q
             JOIN scheduler.pods p ON p.uid = q.pod_uid,
             LATERAL (SELECT count(*) AS terminating FROM scheduler.pods t
                      WHERE t.node_name = q.nominated_node
                        AND t.deletion_timestamp IS NOT NULL AND NOT t.terminal AND t.priority < p.priority) v
        WHERE q.pod_uid = target AND q.nominated_node IS NOT NULL AND v.terminating > 0;
END $$;
COMMENT ON FUNCTION scheduler.why(text, text) IS 'Why the pod''s latest attempt failed: one row per node, the plugin that rejected it and kube-scheduler''s reason; and, for a pod nominated by preemption, a row for its node while its victims terminate';

