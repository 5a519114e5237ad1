
-- Every change to nodes and pods, for the snapshot cache in each backend
-- (snapshot.c): a cache re-reads the objects changed by transactions it may
-- not have seen, those with xid at or above the xmin of its last refresh.
-- The uids and names of the objects a statement changed, in arrays, one row
-- (two for an UPDATE: its old rows and its new rows); schedule_pending()
-- assumes a thousand pods in one statement, and a row each cost as much as
-- the assumption.  Such arrays are compressed: by lz4, which took about a
-- tenth of what pglz took of that statement's instructions.
CREATE TABLE scheduler.changes (
    xid   xid8 NOT NULL DEFAULT pg_current_xact_id(),
    kind  "char" NOT NULL CHECK (kind IN ('n', 'p', 't')),  -- node, pod, truncate
    uids  text[] COMPRESSION lz4 COLLATE "C" NOT NULL,      -- none for a truncate
    names text[] COMPRESSION lz4 NOT NULL,                  -- in the order of uids
    CONSTRAINT changes_objects CHECK (cardinality(uids) = cardinality(names)
        AND array_position(uids, NULL) IS NULL AND array_position(names, NULL) IS NULL)
);
CREATE INDEX changes_xid ON scheduler.changes (xid);
COMMENT ON TABLE scheduler.changes IS 'Every changed node and pod by transaction id (n node, p pod, t truncate): the uids and names a statement changed, in one row (two for an update: its old rows and its new rows), for the snapshot cache in each backend; pruned by schedule_pending()';
-- Changes below this xid have been pruned; a cache older than it rebuilds.
CREATE TABLE scheduler.changes_horizon (
    id      boolean PRIMARY KEY DEFAULT true CHECK (id),
    horizon xid8 NOT NULL DEFAULT '0'
);
INSERT INTO scheduler.changes_horizon DEFAULT VALUES;
COMMENT ON TABLE scheduler.changes_horizon IS 'One row: the changes below this xid have been pruned; a snapshot cache older than it rebuilds';

-- TRUNCATE cannot be logged row by row: it makes every cache rebuild.
CREATE FUNCTION scheduler_internal.log_truncate() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    INSERT INTO scheduler.changes (kind, uids, names) VALUES ('t', '{}', '{}');
    RETURN NULL;
END $$;
CREATE TRIGGER log_truncate AFTER TRUNCATE ON scheduler.nodes
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.log_truncate();
CREATE TRIGGER log_truncate AFTER TRUNCATE ON scheduler.pods
    FOR EACH STATEMENT EXECUTE FUNCTION scheduler_internal.log_truncate();

