\echo Use "ALTER EXTENSION scheduler UPDATE TO '0.3'" to load this file. \quit

-- From 0.2 to 0.3: the volume kinds and plugins.  As the install script,
-- this runs as a superuser with the caller's search_path: every name is
-- resolved in pg_catalog alone, and every object is schema-qualified.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);

-- A pod's volumes, as the volume plugins read them (src/volumes.c): the
-- elements of spec.volumes with a source the plugins read, NULL when none.
-- The pods already mirrored get theirs from their objects.
ALTER TABLE scheduler.pods ADD COLUMN volumes jsonb;
-- (strict: spec.volumes must be an array of objects, as apply() holds it;
-- only the rows that gain a value are written)
UPDATE scheduler.pods
    SET volumes = pg_catalog.jsonb_path_query_array(object, 'strict $.spec.volumes[*] ? (@.persistentVolumeClaim.type() == "object" || @.ephemeral.type() == "object"
                                     || @.gcePersistentDisk.type() == "object" || @.awsElasticBlockStore.type() == "object"
                                     || @.rbd.type() == "object" || @.iscsi.type() == "object")'::pg_catalog.jsonpath, '{}', true)
    WHERE pg_catalog.jsonb_path_exists(object, 'strict $.spec.volumes[*] ? (@.persistentVolumeClaim.type() == "object" || @.ephemeral.type() == "object"
                                     || @.gcePersistentDisk.type() == "object" || @.awsElasticBlockStore.type() == "object"
                                     || @.rbd.type() == "object" || @.iscsi.type() == "object")'::pg_catalog.jsonpath, '{}', true);

-- The storage objects the volume plugins read (volumes.c): one table per
-- kind, keyed by uid, the object as it came and, for queries and joins, the
-- fields the plugins read most, generated from it.
CREATE TABLE scheduler.persistent_volume_claims (
    uid              text PRIMARY KEY,
    namespace        text NOT NULL,
    name             text NOT NULL,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    storage_class    text GENERATED ALWAYS AS (object->'spec'->>'storageClassName') STORED,
    volume_name      text GENERATED ALWAYS AS (nullif(object->'spec'->>'volumeName', '')) STORED,
    selected_node    text GENERATED ALWAYS AS
                         (object->'metadata'->'annotations'->>'volume.kubernetes.io/selected-node') STORED,
    bound            boolean NOT NULL GENERATED ALWAYS AS
                         (coalesce(object->'spec'->>'volumeName', '') <> ''
                          AND coalesce(object->'metadata'->'annotations' ? 'pv.kubernetes.io/bind-completed', false)) STORED,
    UNIQUE (namespace, name)
);
COMMENT ON TABLE scheduler.persistent_volume_claims IS 'Mirror of PersistentVolumeClaims, written by scheduler.apply(); read by the volume plugins';
COMMENT ON COLUMN scheduler.persistent_volume_claims.bound IS 'spec.volumeName set and annotated pv.kubernetes.io/bind-completed: VolumeBinding''s PreBind waits for this';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.persistent_volume_claims
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.persistent_volumes (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    storage_class    text GENERATED ALWAYS AS (coalesce(object->'spec'->>'storageClassName', '')) STORED,
    claim_namespace  text GENERATED ALWAYS AS (object->'spec'->'claimRef'->>'namespace') STORED,
    claim_name       text GENERATED ALWAYS AS (object->'spec'->'claimRef'->>'name') STORED,
    phase            text GENERATED ALWAYS AS (object->'status'->>'phase') STORED
);
COMMENT ON TABLE scheduler.persistent_volumes IS 'Mirror of PersistentVolumes, written by scheduler.apply(); read by the volume plugins';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.persistent_volumes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.storage_classes (
    uid               text PRIMARY KEY,
    name              text NOT NULL UNIQUE,
    resource_version  text,
    object            jsonb NOT NULL,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    provisioner       text GENERATED ALWAYS AS (object->>'provisioner') STORED,
    volume_binding_mode text GENERATED ALWAYS AS (object->>'volumeBindingMode') STORED
);
COMMENT ON TABLE scheduler.storage_classes IS 'Mirror of StorageClasses (storage.k8s.io/v1), written by scheduler.apply(); read by the volume plugins';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.storage_classes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.csi_nodes (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,   -- the node's name
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.csi_nodes IS 'Mirror of CSINodes (storage.k8s.io/v1): each node''s CSI drivers and their volume limits (allocatable.count), written by scheduler.apply(); read by NodeVolumeLimits and VolumeBinding';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.csi_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.csi_drivers (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE scheduler.csi_drivers IS 'Mirror of CSIDrivers (storage.k8s.io/v1), written by scheduler.apply(); read by VolumeBinding (storageCapacity) and NodeVolumeLimits';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.csi_drivers
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.csi_storage_capacities (
    uid              text PRIMARY KEY,
    namespace        text NOT NULL,
    name             text NOT NULL,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    storage_class    text GENERATED ALWAYS AS (object->>'storageClassName') STORED,
    UNIQUE (namespace, name)
);
COMMENT ON TABLE scheduler.csi_storage_capacities IS 'Mirror of CSIStorageCapacities (storage.k8s.io/v1), written by scheduler.apply(); read by VolumeBinding';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.csi_storage_capacities
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();

CREATE TABLE scheduler.volume_attachments (
    uid              text PRIMARY KEY,
    name             text NOT NULL UNIQUE,
    resource_version text,
    object           jsonb NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    node_name        text GENERATED ALWAYS AS (object->'spec'->>'nodeName') STORED,
    attacher         text GENERATED ALWAYS AS (object->'spec'->>'attacher') STORED
);
COMMENT ON TABLE scheduler.volume_attachments IS 'Mirror of VolumeAttachments (storage.k8s.io/v1), written by scheduler.apply(); counted by NodeVolumeLimits';
CREATE TRIGGER writer_lock BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON scheduler.volume_attachments
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.writer_lock();
GRANT SELECT ON scheduler.persistent_volume_claims, scheduler.persistent_volumes, scheduler.storage_classes,
    scheduler.csi_nodes, scheduler.csi_drivers, scheduler.csi_storage_capacities, scheduler.volume_attachments
    TO scheduler_reader;

-- The default profile gains kube-scheduler's four volume plugins in their
-- places (src/plugins/plugins.def): VolumeRestrictions, NodeVolumeLimits,
-- VolumeBinding and VolumeZone after NodeResourcesFit.
UPDATE scheduler.profile_plugins SET position = position OPERATOR(pg_catalog.+) 4
    WHERE scheduler_name OPERATOR(pg_catalog.=) 'default-scheduler' AND position OPERATOR(pg_catalog.>=) 7;
INSERT INTO scheduler.profile_plugins (scheduler_name, plugin, position, weight)
    SELECT 'default-scheduler', p.plugin, p.default_position, p.default_weight
    FROM scheduler.plugins() p
    WHERE p.plugin OPERATOR(pg_catalog.=) ANY (ARRAY['VolumeRestrictions', 'NodeVolumeLimits', 'VolumeBinding', 'VolumeZone'])
      AND EXISTS (SELECT 1 FROM scheduler.profiles WHERE scheduler_name OPERATOR(pg_catalog.=) 'default-scheduler')
    ORDER BY p.default_position
    ON CONFLICT DO NOTHING;

-- The storage kinds (src/volumes.c): each statement's changed rows become
-- cluster events (<Kind>Add, <Kind>Update, <Kind>Delete) for the
-- QueueingHints of the volume plugins.
CREATE FUNCTION scheduler_internal.objects_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_objects_changed' LANGUAGE C SECURITY DEFINER;
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.persistent_volume_claims REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.persistent_volume_claims REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.persistent_volume_claims REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.persistent_volumes REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.persistent_volumes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.persistent_volumes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.storage_classes REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.storage_classes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.storage_classes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.csi_nodes REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.csi_nodes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.csi_nodes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.csi_drivers REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.csi_drivers REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.csi_drivers REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.csi_storage_capacities REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.csi_storage_capacities REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.csi_storage_capacities REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.volume_attachments REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.volume_attachments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.volume_attachments REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.objects_changed();
ALTER FUNCTION scheduler_internal.objects_changed() SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION scheduler_internal.objects_changed() FROM PUBLIC;
COMMENT ON FUNCTION scheduler.kinds() IS 'The Kubernetes kinds the scheduler mirrors and watches: kind, list kind, apiVersion, resource, the collection path and query the watch worker lists and watches, the mirror table, whether namespaced, and the cluster events its changes raise for the QueueingHints (Node, AssignedPod, PersistentVolumeClaim, ...) or NULL';

-- VolumeBinding's PreBind goes through the outbox: PATCHes of volumes and
-- claims, and bindings that wait for their claims to be bound.
ALTER TABLE scheduler.outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE scheduler.outbox ADD CONSTRAINT outbox_kind_check
    CHECK (kind IN ('binding', 'condition', 'event', 'delete', 'volume', 'claim'));
ALTER TABLE scheduler.outbox ADD COLUMN object text, ADD COLUMN waits_for bigint[], ADD COLUMN claims text[],
    ADD COLUMN wait_until timestamptz;
CREATE INDEX outbox_waiting ON scheduler.outbox (id) WHERE state = 'pending' AND wait_until IS NOT NULL;
CREATE INDEX outbox_prebind ON scheduler.outbox (pod_uid) WHERE kind IN ('volume', 'claim') AND state <> 'failed';
COMMENT ON COLUMN scheduler.outbox.claims IS 'A binding''s claims: it waits until each is bound (spec.volumeName and pv.kubernetes.io/bind-completed), as VolumeBinding''s PreBind does';

-- What-ifs (simulate.c): cycles on the snapshot changed in memory, nothing written
CREATE FUNCTION scheduler.simulate(changes jsonb DEFAULT '[]', scheduler_name text DEFAULT NULL)
    RETURNS TABLE (namespace text, name text, node text, result text, message text)
    AS 'MODULE_PATHNAME', 'scheduler_simulate' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler.simulate(jsonb, text) IS 'What-if: a scheduling cycle for every pending pod of the schedulerName (and every pending pod the changes add), on the cluster as it is with the changes (Node and Pod objects and watch events, applied in order) made in memory only; one row per pod, as schedule_pending() returns; writes nothing, locks nothing';
REVOKE ALL ON FUNCTION scheduler.simulate(jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.simulate(jsonb, text) TO PUBLIC;
ALTER FUNCTION scheduler.simulate(jsonb, text) SET search_path = pg_catalog, pg_temp;

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
REVOKE ALL ON FUNCTION scheduler.fit_hints(text, text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.fit_hints(text, text, integer) TO PUBLIC;
ALTER FUNCTION scheduler.fit_hints(text, text, integer) SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION scheduler.plan_capacity(jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.plan_capacity(jsonb, jsonb) TO PUBLIC;
ALTER FUNCTION scheduler.plan_capacity(jsonb, jsonb) SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION scheduler.plan_capacity_pods(jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.plan_capacity_pods(jsonb, jsonb) TO PUBLIC;
ALTER FUNCTION scheduler.plan_capacity_pods(jsonb, jsonb) SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION scheduler.diagnosis(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.diagnosis(text, text) TO PUBLIC;
ALTER FUNCTION scheduler.diagnosis(text, text) SET search_path = pg_catalog, pg_temp;

-- The uids of pods and nodes, and the columns that name a pod by its uid,
-- compare bytewise (COLLATE "C", as a fresh install makes them: the
-- default collation's locale comparison cost most of each lookup).  The
-- tables stay as they are; the indexes on those columns are built again.
-- Two views read those columns, and a column a view reads cannot change:
-- each view is replaced by one of its own columns read from nothing, which
-- keeps it (its grants, its comment), and given its own definition back
-- once the columns have changed.  (A view of the user's own over them stops
-- the update, the error naming it: it is dropped before and made again
-- after.)  Every name in pg_catalog: the script runs as a superuser.
DO $$
DECLARE
    views regclass[] := ARRAY['scheduler.pending_pods'::regclass, 'scheduler.metrics_pending_pods'::regclass];
    defs text[] := '{}';
    cols text;
BEGIN
    FOR i IN 1 .. pg_catalog.array_length(views, 1) LOOP
        defs := pg_catalog.array_append(defs, pg_catalog.pg_get_viewdef(views[i]));
        SELECT pg_catalog.string_agg(pg_catalog.format('NULL::%s AS %I',
                                                       pg_catalog.format_type(atttypid, atttypmod), attname),
                                     ', ' ORDER BY attnum)
        INTO cols
        FROM pg_catalog.pg_attribute
        WHERE attrelid OPERATOR(pg_catalog.=) views[i]::pg_catalog.oid AND attnum OPERATOR(pg_catalog.>) 0
          AND NOT attisdropped;
        EXECUTE pg_catalog.format('CREATE OR REPLACE VIEW %s AS SELECT %s', views[i], cols);
    END LOOP;
    ALTER TABLE scheduler.nodes ALTER COLUMN uid TYPE text COLLATE "C";
    ALTER TABLE scheduler.pods ALTER COLUMN uid TYPE text COLLATE "C";
    ALTER TABLE scheduler.pod_attempts ALTER COLUMN pod_uid TYPE text COLLATE "C";
    ALTER TABLE scheduler.attempt_history ALTER COLUMN pod_uid TYPE text COLLATE "C";
    ALTER TABLE scheduler.changes ALTER COLUMN uid TYPE text COLLATE "C";
    ALTER TABLE scheduler.queue ALTER COLUMN pod_uid TYPE text COLLATE "C";
    ALTER TABLE scheduler.outbox ALTER COLUMN pod_uid TYPE text COLLATE "C";
    FOR i IN 1 .. pg_catalog.array_length(views, 1) LOOP
        EXECUTE pg_catalog.format('CREATE OR REPLACE VIEW %s AS %s', views[i], defs[i]);
    END LOOP;
END
$$;
-- (the change drops those columns' statistics: the keys have their unique
-- indexes, and these two are read again; changes' uid becomes an array
-- below, read by xid alone)
ANALYZE scheduler.outbox (pod_uid);
ANALYZE scheduler.attempt_history (pod_uid);

-- pending_pods gains the diagnosis of each pod as its last column (called
-- only when selected: diagnosis() is STABLE, so the view is pulled up)
CREATE OR REPLACE VIEW scheduler.pending_pods AS
SELECT p.namespace, p.name,
       CASE WHEN o.ours THEN q.state ELSE 'other-scheduler' END AS queue,
       q.attempts, q.rejected_by,
       CASE WHEN NOT o.ours
            THEN 'not ours: spec.schedulerName "' || p.scheduler_name
                 || '" is neither scheduler.scheduler_name nor a profile''s'
            WHEN q.state = 'gated'
            THEN 'waiting for scheduling gates: [' || array_to_string(p.scheduling_gates, ' ') || ']'
            WHEN v.terminating > 0
            THEN 'nominated to node "' || q.nominated_node || '" by preemption: waiting for ' || v.terminating
                 || CASE WHEN v.terminating = 1 THEN ' victim' ELSE ' victims' END || ' to terminate ('
                 || coalesce(a.message, 'not tried since') || ')'
            ELSE a.message END AS message,
       q.first_enqueued_at AS since,
       p.scheduler_name,
       scheduler.diagnosis(p.namespace, p.name) AS diagnosis
FROM scheduler.queue q
JOIN scheduler.pods p ON p.uid = q.pod_uid
CROSS JOIN LATERAL (
    SELECT p.scheduler_name = coalesce(current_setting('scheduler.scheduler_name', true), 'default-scheduler')
           OR EXISTS (SELECT FROM scheduler.profiles pr WHERE pr.scheduler_name = p.scheduler_name)
) AS o(ours)
LEFT JOIN scheduler.pod_attempts a ON a.pod_uid = q.pod_uid AND a.result = 'unschedulable'
-- a preemptor waits for its victims: the lower-priority pods terminating on its nominated node
-- (bound there: an assumed pod whose deletion starts is forgotten, as kube-scheduler's
-- handleAssumedPodDeletion forgets it, and frees its room at once)
CROSS JOIN LATERAL (
    SELECT count(*) AS terminating FROM scheduler.pods t
    WHERE q.nominated_node IS NOT NULL AND t.node_name = q.nominated_node
      AND t.deletion_timestamp IS NOT NULL AND NOT t.terminal AND t.priority < p.priority
) AS v
WHERE scheduler.require_role('scheduler_reader');
COMMENT ON VIEW scheduler.pending_pods IS 'Every pending pod: its queue (active, backoff, unschedulable, gated; other-scheduler when no profile and not scheduler.scheduler_name names its schedulerName), attempts, the plugins that rejected it, kube-scheduler''s message (or what it waits for: scheduling gates, its preemption victims to terminate), since when it is pending, its schedulerName, and scheduler.diagnosis() of it (called only when selected)';

-- diagnosis()'s preemption victims: a preemptor's Preempted events, and each victim's deletion
CREATE INDEX outbox_preempted ON scheduler.outbox ((body ->> 'note')) WHERE kind = 'event' AND body ->> 'reason' = 'Preempted';
CREATE INDEX outbox_deletes ON scheduler.outbox (pod_uid) WHERE kind = 'delete';

-- scheduler.kubeconfig: what a kubeconfig gives, checked from SQL (superusers only)
CREATE FUNCTION scheduler.kube_connection(kubeconfig text DEFAULT NULL, context text DEFAULT NULL) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'scheduler_kube_connection' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler.kube_connection(text, text) IS 'The API server connection the workers use (source: settings, kubeconfig, in-cluster or none), or the one the kubeconfig file given would (its context, or scheduler.kube_context, or its current-context): server, context, cluster, user, CA, client certificate and token source, never a secret; an ERROR says what is wrong (superusers only)';
REVOKE ALL ON FUNCTION scheduler.kube_connection(text, text) FROM PUBLIC;
ALTER FUNCTION scheduler.kube_connection(text, text) SET search_path = pg_catalog, pg_temp;

-- kube-scheduler's counters and histograms of attempts, as running totals
-- that the pruning of attempt_history leaves alone (src/metrics.c); they
-- start from zero here (a counter reset, to Prometheus), as the history
-- tells neither an attempt's profile nor its errors apart
CREATE TABLE scheduler.attempt_totals (
    result           text NOT NULL CHECK (result IN ('scheduled', 'unschedulable', 'error')),
    profile          text NOT NULL,   -- the pod's schedulerName
    attempts         bigint NOT NULL,
    duration_sum     float8 NOT NULL, -- seconds
    duration_buckets bigint[] NOT NULL CHECK (cardinality(duration_buckets) = 15),
    PRIMARY KEY (result, profile)
);
COMMENT ON TABLE scheduler.attempt_totals IS 'Every scheduling attempt since the install, by result (scheduled, unschedulable, error) and profile: kube-scheduler''s scheduler_schedule_attempts_total, and the histogram of their times (scheduler_scheduling_attempt_duration_seconds: the cycle, and for a placement with an API server until its binding is done or fails, when it is counted); never pruned';
COMMENT ON COLUMN scheduler.attempt_totals.duration_buckets IS 'Cumulative: element i (from 0) counts the attempts that took at most 0.001 * 2^i s (kube-scheduler''s ExponentialBuckets(0.001, 2, 15))';

CREATE TABLE scheduler.scheduling_sli_totals (
    attempts         text PRIMARY KEY CHECK (attempts ~ '^([1-9]|1[0-4]|15\+)$'),
    pods             bigint NOT NULL,
    duration_sum     float8 NOT NULL, -- seconds
    duration_buckets bigint[] NOT NULL CHECK (cardinality(duration_buckets) = 20)
);
COMMENT ON TABLE scheduler.scheduling_sli_totals IS 'Every pod placed since the install, by its attempts ("1" to "14", "15+"): the histogram of the time from its entering the queue to its binding (with an API server; else its placement), kube-scheduler''s scheduler_pod_scheduling_sli_duration_seconds; never pruned';
COMMENT ON COLUMN scheduler.scheduling_sli_totals.duration_buckets IS 'Cumulative: element i (from 0) counts the pods bound (placed) at most 0.01 * 2^i s after they entered the queue (kube-scheduler''s ExponentialBuckets(0.01, 2, 20))';
GRANT SELECT ON scheduler.attempt_totals, scheduler.scheduling_sli_totals TO scheduler_reader;
COMMENT ON VIEW scheduler.metrics_schedule_attempts IS 'Attempts by result, over the retained history (fewer as it is pruned: the counter, scheduler_schedule_attempts_total, is scheduler.attempt_totals)';

-- when each resource was last listed (the metrics' age of the last list):
-- unknown for the lists before the update
ALTER TABLE scheduler.watch_state ADD COLUMN listed_at timestamptz;
COMMENT ON COLUMN scheduler.watch_state.updated_at IS 'When a resourceVersion was last stored: a batch of watch events applied, or a list';
COMMENT ON COLUMN scheduler.watch_state.listed_at IS 'When a list of the resource was last applied (the watch worker''s list, or scheduler.relist()); NULL when none has been since 0.3';

-- why(): a preemptor's row while its victims terminate (issue 16)
CREATE OR REPLACE FUNCTION scheduler.why(namespace text, name text)
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
ALTER FUNCTION scheduler.why(text, text) SET search_path = pg_catalog, pg_temp;

-- the events waiting (a Scheduled event is not written when 1000 do)
CREATE INDEX outbox_pending_events ON scheduler.outbox (id) WHERE state = 'pending' AND kind = 'event';

-- The events' series, as client-go's event broadcaster keeps them (its
-- cache): one row per Event object written through events.k8s.io/v1, by its
-- key (the pod it regards, reason, action, type, reporting scheduler, the
-- related pod, and its note, which stands for the pod's resourceVersion in
-- client-go's key: a new PodScheduled message is a new version).  A repeat
-- counts here (count, last_observed); the second occurrence patches the
-- Event's series at once, later ones are written every 30 minutes
-- (refreshed_at) and when the series ends, 6 minutes after its last
-- occurrence, when the row goes.  An Event seen once leaves 6 minutes after
-- it was made.  src/outbox.c reads and writes it.
CREATE TABLE scheduler.event_series (
    namespace            text NOT NULL,
    name                 text NOT NULL,        -- the Event's name: <pod>.<hex nanoseconds>
    regarding_uid        text NOT NULL,
    related_uid          text NOT NULL DEFAULT '',
    type                 text NOT NULL,
    action               text NOT NULL,
    reason               text NOT NULL,
    reporting_controller text NOT NULL,
    note                 text NOT NULL,
    event_time           timestamptz NOT NULL,
    count                integer NOT NULL DEFAULT 1,  -- 1: no series yet
    last_observed        timestamptz,          -- series.lastObservedTime
    refreshed_at         timestamptz,          -- the series last put in the outbox
    body                 jsonb NOT NULL,       -- the Event as created
    PRIMARY KEY (namespace, name)
);
CREATE UNIQUE INDEX event_series_key ON scheduler.event_series
    (regarding_uid, reason, action, type, reporting_controller, related_uid, note);
COMMENT ON TABLE scheduler.event_series IS 'The events written through events.k8s.io/v1 and their series (count, last observed), as client-go''s event broadcaster folds repeats: kept 6 minutes past the last occurrence';
GRANT SELECT ON scheduler.event_series TO scheduler_reader;
-- 0.2's events were core/v1, which the ClusterRole no longer lets it create:
-- those not sent yet are closed
UPDATE scheduler.outbox SET state = 'failed', finished_at = pg_catalog.now(),
    last_error = 'not sent: a core/v1 event written by 0.2 (events go through events.k8s.io/v1 now)'
WHERE kind = 'event' AND state = 'pending' AND object IS NULL;

-- Each queued pod carries its spec.schedulerName: a call pops its own
-- active pods without looking up every active pod of another scheduler
-- (src/scheduling_queue.c, SchedQueuePop).
ALTER TABLE scheduler.queue ADD COLUMN scheduler_name text;
COMMENT ON COLUMN scheduler.queue.scheduler_name IS 'The pod''s spec.schedulerName, as its row in scheduler.pods says';
UPDATE scheduler.queue q SET scheduler_name = p.scheduler_name FROM scheduler.pods p WHERE p.uid = q.pod_uid;
-- a queue row whose pod is gone was left behind: nothing pops it
DELETE FROM scheduler.queue WHERE scheduler_name IS NULL;
ALTER TABLE scheduler.queue ALTER COLUMN scheduler_name SET NOT NULL;

-- The assume (schedule_pending's one write of a placement) is a HOT update:
-- no index reads assumed_node, and pods' pages keep half their room free
-- (the pages written before keep theirs full until VACUUM FULL rewrites
-- them).
ALTER TABLE scheduler.pods SET (fillfactor = 50);
DROP INDEX scheduler.pods_on_node;
CREATE INDEX pods_on_node ON scheduler.pods (node_name) WHERE node_name IS NOT NULL;
-- Each attempt's history row compared the pod's namespace and name, both
-- under the collation, at each level of attempt_history_pod: the name alone
DROP INDEX scheduler.attempt_history_pod;
CREATE INDEX attempt_history_pod ON scheduler.attempt_history (name, attempted_at);
-- snapshot_from_tables summed the pods of each node through that index:
-- now in one pass
CREATE OR REPLACE VIEW scheduler.snapshot_from_tables AS
SELECT n.name AS node, n.unschedulable, n.allocatable,
       coalesce(r.requested, '{}') AS requested,
       coalesce(u.nonzero_cpu, 0) AS nonzero_cpu, coalesce(u.nonzero_memory, 0) AS nonzero_memory,
       coalesce(u.pods, 0)::integer AS pods
FROM scheduler.nodes n
LEFT JOIN (SELECT t.node, jsonb_object_agg(t.key, t.total) AS requested FROM (
                SELECT coalesce(p.node_name, p.assumed_node) AS node, r.key, sum(r.value::numeric) AS total
                FROM scheduler.pods p,
                     jsonb_each(CASE WHEN jsonb_typeof(p.requests) = 'object' THEN p.requests END) r
                WHERE coalesce(p.node_name, p.assumed_node) IS NOT NULL AND jsonb_typeof(r.value) = 'number'
                  AND NOT p.terminal
                GROUP BY 1, 2) t
           GROUP BY t.node) r ON r.node = n.name
LEFT JOIN (SELECT coalesce(node_name, assumed_node) AS node, sum(nonzero_cpu) AS nonzero_cpu,
                  sum(nonzero_memory) AS nonzero_memory, count(*) AS pods
           FROM scheduler.pods
           WHERE coalesce(node_name, assumed_node) IS NOT NULL
             AND NOT terminal
           GROUP BY 1) u ON u.node = n.name
WHERE scheduler.require_role('scheduler_reader');

-- 0.2 kept an assumed pod's node while its deletion started: such a pod is
-- forgotten now, as kube-scheduler's handleAssumedPodDeletion forgets it
-- (src/mirror.c), and its room freed
UPDATE scheduler.pods SET assumed_node = NULL
WHERE assumed_node IS NOT NULL AND node_name IS NULL AND deletion_timestamp IS NOT NULL;

-- The changelog: the uids and names a statement changed, in arrays, one row
-- (two for an update) where there was a row per object, which cost
-- schedule_pending() as much as its assumption of the object.  A row of 0.2
-- becomes a row of one; the columns keep their places.
ALTER TABLE scheduler.changes ALTER COLUMN uid TYPE text[] COLLATE "C" USING ARRAY[uid],
    ALTER COLUMN name TYPE text[] USING ARRAY[name];
ALTER TABLE scheduler.changes RENAME COLUMN uid TO uids;
ALTER TABLE scheduler.changes RENAME COLUMN name TO names;
ALTER TABLE scheduler.changes ALTER COLUMN uids SET COMPRESSION lz4, ALTER COLUMN names SET COMPRESSION lz4;
ALTER TABLE scheduler.changes ADD CONSTRAINT changes_objects CHECK (cardinality(uids) = cardinality(names)
    AND array_position(uids, NULL) IS NULL AND array_position(names, NULL) IS NULL);
COMMENT ON TABLE scheduler.changes IS 'Every changed node and pod by transaction id (n node, p pod, t truncate): the uids and names a statement changed, in one row (two for an update: its old rows and its new rows), for the snapshot cache in each backend; pruned by schedule_pending()';
CREATE OR REPLACE FUNCTION scheduler_internal.log_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    INSERT INTO scheduler.changes (kind, uids, names) VALUES ('t', '{}', '{}');
    RETURN NULL;
END $$;
ALTER FUNCTION scheduler_internal.log_truncate() SET search_path = pg_catalog, pg_temp;

-- A pending pod's non-zero cpu and memory as the scorer reads it, where a
-- node counts it otherwise (pod-level requests; src/resources.c), and what
-- computes a pod's columns (scheduler.pod_requests).  0.2 read neither
-- pod-level requests nor in-place resizes: each row gets its pod's columns
-- as 0.3 computes them from its object, and only the rows that change are
-- written.  A stored object this version cannot read keeps its row as it
-- was, with a WARNING that names it (its next event is refused as apply()
-- refuses it): the rows are then computed one by one, after a WARNING.
ALTER TABLE scheduler.pods ADD COLUMN pending_nonzero_cpu bigint, ADD COLUMN pending_nonzero_memory bigint;
COMMENT ON COLUMN scheduler.pods.nonzero_cpu IS 'effective cpu request in millicores as a node counts it for scoring: with the 100m default for containers that set none (under pod-level requests, only when neither the pod nor a container sets cpu)';
COMMENT ON COLUMN scheduler.pods.nonzero_memory IS 'effective memory request in bytes as a node counts it for scoring: with the 200Mi default for containers that set none (under pod-level requests, only when neither the pod nor a container sets memory)';
COMMENT ON COLUMN scheduler.pods.pending_nonzero_cpu IS 'a pending pod''s cpu as NodeResourcesFit''s scorer reads the pod it schedules (its containers alone, the 100m default for each that sets none, and the overhead: released kube-scheduler skips pod-level requests there), where that differs from nonzero_cpu; NULL otherwise';
COMMENT ON COLUMN scheduler.pods.pending_nonzero_memory IS 'a pending pod''s memory as NodeResourcesFit''s scorer reads the pod it schedules (its containers alone, the 200Mi default for each that sets none, and the overhead: released kube-scheduler skips pod-level requests there), where that differs from nonzero_memory; NULL otherwise';
CREATE FUNCTION scheduler.pod_requests(pod jsonb, OUT requests jsonb, OUT nonzero_cpu bigint,
                                       OUT nonzero_memory bigint, OUT pending_nonzero_cpu bigint,
                                       OUT pending_nonzero_memory bigint)
    AS 'MODULE_PATHNAME', 'scheduler_pod_requests' LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION scheduler.pod_requests(jsonb) IS 'What scheduler.apply() stores of a Pod''s resources, from the object alone: its effective request (normalized), its non-zero cpu and memory as a node counts it, and, for a pending pod NodeResourcesFit''s scorer reads otherwise (pod-level requests), as that scorer reads it';
REVOKE ALL ON FUNCTION scheduler.pod_requests(jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler.pod_requests(jsonb) TO PUBLIC;
ALTER FUNCTION scheduler.pod_requests(jsonb) SET search_path = pg_catalog, pg_temp;
DO $$
DECLARE
    pod record;
    computed record;
    uids text[] := '{}';
    reqs jsonb[] := '{}';
    nzc bigint[] := '{}';
    nzm bigint[] := '{}';
    pnzc bigint[] := '{}';
    pnzm bigint[] := '{}';
BEGIN
    BEGIN
        UPDATE scheduler.pods p
            SET requests = r.requests, nonzero_cpu = r.nonzero_cpu, nonzero_memory = r.nonzero_memory,
                pending_nonzero_cpu = r.pending_nonzero_cpu, pending_nonzero_memory = r.pending_nonzero_memory
            FROM scheduler.pods o, LATERAL scheduler.pod_requests(o.object) r
            WHERE o.uid = p.uid
              AND (p.requests, p.nonzero_cpu, p.nonzero_memory, p.pending_nonzero_cpu, p.pending_nonzero_memory)
                  IS DISTINCT FROM (r.requests, r.nonzero_cpu, r.nonzero_memory, r.pending_nonzero_cpu,
                                    r.pending_nonzero_memory);
    EXCEPTION WHEN OTHERS THEN
        -- an object that cannot be read: each computed alone, then the
        -- others written in one statement
        RAISE WARNING 'scheduler: computing each pod''s requests alone: %', SQLERRM;
        FOR pod IN SELECT p.uid, p.namespace, p.name, p.object FROM scheduler.pods p LOOP
            BEGIN
                SELECT * INTO computed FROM scheduler.pod_requests(pod.object);
                uids := uids || pod.uid;
                reqs := reqs || computed.requests;
                nzc := nzc || computed.nonzero_cpu;
                nzm := nzm || computed.nonzero_memory;
                pnzc := pnzc || computed.pending_nonzero_cpu;
                pnzm := pnzm || computed.pending_nonzero_memory;
            EXCEPTION WHEN OTHERS THEN
                RAISE WARNING 'scheduler: pod %/% keeps the requests it had: %', pod.namespace, pod.name, SQLERRM;
            END;
        END LOOP;
        UPDATE scheduler.pods p
            SET requests = r.requests, nonzero_cpu = r.nonzero_cpu, nonzero_memory = r.nonzero_memory,
                pending_nonzero_cpu = r.pnzc, pending_nonzero_memory = r.pnzm
            FROM unnest(uids, reqs, nzc, nzm, pnzc, pnzm) AS r(uid, requests, nonzero_cpu, nonzero_memory, pnzc, pnzm)
            WHERE p.uid = r.uid
              AND (p.requests, p.nonzero_cpu, p.nonzero_memory, p.pending_nonzero_cpu, p.pending_nonzero_memory)
                  IS DISTINCT FROM (r.requests, r.nonzero_cpu, r.nonzero_memory, r.pnzc, r.pnzm);
    END;
END $$;

-- A placement whose binding goes to the API server counts in the metrics
-- when the binding is done (scheduled) or fails (error), as kube-scheduler
-- counts it after its binding cycle (src/metrics.c); its binding row keeps
-- what they read.  The bindings written before the update have none, and
-- are not counted.
ALTER TABLE scheduler.outbox ADD COLUMN cycle_started_at timestamptz, ADD COLUMN enqueued_at timestamptz,
    ADD COLUMN pod_attempts integer;
COMMENT ON COLUMN scheduler.outbox.cycle_started_at IS 'A binding''s scheduling cycle''s start: scheduler_scheduling_attempt_duration_seconds runs from it to the binding''s end, when the attempt is counted (scheduled when done, error when failed), as kube-scheduler counts it after its binding cycle';
COMMENT ON COLUMN scheduler.outbox.enqueued_at IS 'When a binding''s pod entered the queue: scheduler_pod_scheduling_sli_duration_seconds runs from it to the binding''s end';
COMMENT ON COLUMN scheduler.outbox.pod_attempts IS 'A binding''s pod''s attempts, this one included: the SLI histogram''s attempts label';
CREATE FUNCTION scheduler_internal.binding_metrics() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_binding_metrics' LANGUAGE C SECURITY DEFINER;
REVOKE ALL ON FUNCTION scheduler_internal.binding_metrics() FROM PUBLIC;
ALTER FUNCTION scheduler_internal.binding_metrics() SET search_path = pg_catalog, pg_temp;
CREATE TRIGGER binding_metrics AFTER UPDATE ON scheduler.outbox REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.binding_metrics();
