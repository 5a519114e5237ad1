------------------------------------------------------------------------------
-- Scheduling state
------------------------------------------------------------------------------

-- One row; schedule_pending() updates it first, so calls run one at a time.
CREATE TABLE scheduler.cycle_lock (
    id            boolean PRIMARY KEY DEFAULT true CHECK (id),
    generation    bigint NOT NULL DEFAULT 0,
    last_cycle_at timestamptz,
    next_start_node_index integer NOT NULL DEFAULT 0  -- where the next node search starts
);
INSERT INTO scheduler.cycle_lock DEFAULT VALUES;
COMMENT ON TABLE scheduler.cycle_lock IS 'One row, updated first by each schedule_pending() call, so calls run one at a time (writers of the mirror hold the table in SHARE mode): the cycle generation, when the last cycle ran, and where the next node search starts';

-- The latest attempt for each pod.
CREATE TABLE scheduler.pod_attempts (
    pod_uid         text PRIMARY KEY,
    attempts        integer NOT NULL,
    last_attempt_at timestamptz NOT NULL,
    result          text NOT NULL CHECK (result IN ('scheduled', 'unschedulable')),
    node            text,
    message         text NOT NULL,
    rejected_by     text[] NOT NULL DEFAULT '{}',
    history_id      bigint,      -- its row in attempt_history, which holds the per-node diagnosis
    posted_message  text,        -- the PodScheduled message last put in the outbox
    event_posted_at timestamptz  -- the FailedScheduling event last put in the outbox
);
COMMENT ON TABLE scheduler.pod_attempts IS 'The latest scheduling attempt of each pod: result, kube-scheduler''s message, and which plugin rejected which node';

-- Every attempt, for "why was this pod pending an hour ago"; kept for
-- scheduler.history_retention.
CREATE TABLE scheduler.attempt_history (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pod_uid      text NOT NULL,
    namespace    text NOT NULL,
    name         text NOT NULL,
    attempted_at timestamptz NOT NULL,
    result       text NOT NULL,
    node         text,
    message      text NOT NULL,
    rejected_by  text[] NOT NULL DEFAULT '{}',
    diagnosis    jsonb COMPRESSION lz4,  -- [{"plugin", "code", "reason", "nodes": [...]}], "reasons" when several
    diagnosis_of bigint,           -- or: the attempt (of the same call) whose equal diagnosis it shares
    queue_wait   interval,         -- from entering active to this attempt
    cycle_time   interval          -- this pod's scheduling cycle
);
COMMENT ON TABLE scheduler.attempt_history IS 'Every scheduling attempt, kept for scheduler.history_retention: when, result, node, kube-scheduler''s message, the plugins that rejected it, the per-node diagnosis (or diagnosis_of, the attempt whose equal diagnosis it shares), the time waited in the active queue and the cycle time';
CREATE INDEX attempt_history_pod ON scheduler.attempt_history (namespace, name, attempted_at);
CREATE INDEX attempt_history_time ON scheduler.attempt_history (attempted_at);

