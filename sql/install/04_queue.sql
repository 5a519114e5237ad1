------------------------------------------------------------------------------
-- The scheduling queue (kube-scheduler's activeQ, backoffQ, unschedulablePods
-- and gated pods), one row per pending pod, kept by triggers on pods:
--   active         ready to be tried, by priority, then enqueued_at;
--   backoff        tried and failed; tried again after backoff_until;
--   unschedulable  rejected; moves back only when a QueueingHint says an
--                  event could help it, or after scheduler.unschedulable_timeout;
--   gated          spec.schedulingGates not empty: never tried until cleared.
------------------------------------------------------------------------------
CREATE TABLE scheduler.queue (
    pod_uid             text COLLATE "C" PRIMARY KEY,
    state               text NOT NULL CHECK (state IN ('active', 'backoff', 'unschedulable', 'gated')),
    enqueued_at         timestamptz NOT NULL,   -- QueueSort's timestamp
    first_enqueued_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    attempts            integer NOT NULL DEFAULT 0,
    backoff_until       timestamptz,
    unschedulable_since timestamptz,
    rejected_by         text[] NOT NULL DEFAULT '{}',  -- kube-scheduler's UnschedulablePlugins
    internal_errors     integer NOT NULL DEFAULT 0,   -- cycles in a row that threw (twice: set aside)
    moved_at            timestamptz,            -- last moved back by an event
    moved_by            text,                   -- which event and plugin
    nominated_node      text,                   -- where preemption made room for it (the nominator)
    scheduler_name      text NOT NULL           -- the pod's spec.schedulerName, as its row says
);
CREATE INDEX queue_state ON scheduler.queue (state, backoff_until);
CREATE INDEX queue_nominated ON scheduler.queue (nominated_node) WHERE nominated_node IS NOT NULL;
COMMENT ON TABLE scheduler.queue IS 'The scheduling queue: one row per pending pod, with its state (active, backoff, unschedulable, gated), attempts, backoff and the plugins that rejected it';
COMMENT ON COLUMN scheduler.queue.scheduler_name IS 'The pod''s spec.schedulerName, as its row in scheduler.pods says';

CREATE FUNCTION scheduler_internal.truncate_queue() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_truncate_queue' LANGUAGE C SECURITY DEFINER;
CREATE TRIGGER queue_truncate AFTER TRUNCATE ON scheduler.pods
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.truncate_queue();

-- QueueingHints (queue.c): the rows a statement changed become cluster events.
CREATE FUNCTION scheduler_internal.dispatch_events(kind text, old_rows jsonb, new_rows jsonb) RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_dispatch_events' LANGUAGE C VOLATILE;
------------------------------------------------------------------------------
-- What every write to nodes and pods sets off, in order, from one statement
-- trigger per table and operation (scheduling_queue.c, reading the
-- statement's transition tables): (1) the changelog the snapshot cache
-- reads; (2) for pods, the queue (pending pods in, gone pods out, spec
-- changes retried; a deleted pod's latest attempt goes with it); (3) the
-- QueueingHints (queue.c) for the unschedulable pods the change could help.
-- A pod is pending while scheduler.pods.pending says so.
------------------------------------------------------------------------------
CREATE FUNCTION scheduler_internal.wakeup() RETURNS void
    AS 'MODULE_PATHNAME', 'scheduler_wakeup' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler_internal.wakeup() IS 'At commit: NOTIFY scheduler_wakeup and wake the background worker';

CREATE FUNCTION scheduler_internal.nodes_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_nodes_changed' LANGUAGE C SECURITY DEFINER;

-- A pod object without what changes by itself (kube-scheduler's isPodUpdated
-- strips status, resourceVersion, generation, managedFields, finalizers)
CREATE FUNCTION scheduler_internal.pod_sans_status(o jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(o) = 'object'
                THEN (o - 'status') #- '{metadata,resourceVersion}' #- '{metadata,generation}'
                     #- '{metadata,managedFields}' #- '{metadata,finalizers}'
                ELSE o END
$$;

CREATE FUNCTION scheduler_internal.pods_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_pods_changed' LANGUAGE C SECURITY DEFINER;

CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.nodes REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.nodes_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.nodes_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.nodes_changed();
CREATE TRIGGER changed_insert AFTER INSERT ON scheduler.pods REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.pods_changed();
CREATE TRIGGER changed_update AFTER UPDATE ON scheduler.pods REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.pods_changed();
CREATE TRIGGER changed_delete AFTER DELETE ON scheduler.pods REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.pods_changed();

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

-- A node deleted (or truncated) under a pod assumed on it and not bound:
-- the assumption is forgotten (kube-scheduler's Cache.ForgetPod of a
-- binding that cannot complete), so the pod is pending again and the
-- triggers above put it back in the queue; its binding still in the outbox
-- is closed unsent (forget_assumed.c).
CREATE FUNCTION scheduler_internal.forget_assumed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'scheduler_forget_assumed' LANGUAGE C;
CREATE TRIGGER forget_assumed AFTER DELETE ON scheduler.nodes REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.forget_assumed();
CREATE TRIGGER forget_assumed_truncate AFTER TRUNCATE ON scheduler.nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.forget_assumed();
