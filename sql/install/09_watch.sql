------------------------------------------------------------------------------
-- Watching: where each watch resumes, and relisting.
------------------------------------------------------------------------------
CREATE TABLE scheduler.watch_state (
    resource         text PRIMARY KEY,     -- 'nodes', 'pods'
    resource_version text NOT NULL,
    updated_at       timestamptz NOT NULL DEFAULT now(),
    listed_at        timestamptz           -- the last list applied (relist()), NULL before one
);
COMMENT ON TABLE scheduler.watch_state IS 'The resourceVersion each watch resumes from; a restart resumes, a 410 relists';
COMMENT ON COLUMN scheduler.watch_state.updated_at IS 'When a resourceVersion was last stored: a batch of watch events applied, or a list';
COMMENT ON COLUMN scheduler.watch_state.listed_at IS 'When a list of the resource was last applied (the watch worker''s list, or scheduler.relist()); NULL when none has been since 0.3';

/*
 * A full list of one kind (what GET /api/v1/nodes or /api/v1/pods returns, or kubectl
 * get -o json): apply every item, delete the rows of that kind the list no
 * longer has (objects that vanished while the watch was down), and record
 * the list's resourceVersion for the watch.  The rows of the uids in keep
 * stay (the watch worker keeps those of items it had to leave out of the
 * list: refused, they keep what was last mirrored, as on the watch).
 * Returns how many objects changed, the deleted ones included.  (mirror.c)
 */
CREATE FUNCTION scheduler.relist(doc jsonb, keep text[] DEFAULT '{}') RETURNS integer
    AS 'MODULE_PATHNAME', 'scheduler_relist' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.relist(jsonb, text[]) IS 'Apply a list of one kind scheduler.kinds() lists (a NodeList, a PodList, ...) as the whole truth: apply its items, delete what it no longer has (but the uids in keep), record its resourceVersion';

------------------------------------------------------------------------------
-- Leadership of the watch and bind workers, for maintenance and tests
-- (superusers only): the worker stands by while a session holds its lead.
------------------------------------------------------------------------------
CREATE FUNCTION scheduler.hold_lead(worker text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'scheduler_hold_lead' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.hold_lead(text) IS 'Take the ''watch'' or ''bind'' worker''s lead in this session (superusers only): the worker stands by until the session ends or release_lead()';
CREATE FUNCTION scheduler.release_lead(worker text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'scheduler_release_lead' LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION scheduler.release_lead(text) IS 'Give back a lead taken with hold_lead()';


------------------------------------------------------------------------------
-- The connection the workers use (kube_client.c, kubeconfig.c), or what a
-- kubeconfig file would give: for checking a file before setting
-- scheduler.kubeconfig.  Superusers only (it reads files); never a secret.
------------------------------------------------------------------------------
CREATE FUNCTION scheduler.kube_connection(kubeconfig text DEFAULT NULL, context text DEFAULT NULL) RETURNS jsonb
    AS 'MODULE_PATHNAME', 'scheduler_kube_connection' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION scheduler.kube_connection(text, text) IS 'The API server connection the workers use (source: settings, kubeconfig, in-cluster or none), or the one the kubeconfig file given would (its context, or scheduler.kube_context, or its current-context): server, context, cluster, user, CA, client certificate and token source, never a secret; an ERROR says what is wrong (superusers only)';
