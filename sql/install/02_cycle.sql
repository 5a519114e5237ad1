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
    pod_uid         text COLLATE "C" PRIMARY KEY,
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
    pod_uid      text COLLATE "C" NOT NULL,
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
-- A pod's attempts are found by its name (namespace = … AND name = …), in
-- time order: the namespace left out, so that each attempt's entry compares
-- one text, under the database's collation, at each level, not two.  The
-- pruning reads the time.
CREATE INDEX attempt_history_pod ON scheduler.attempt_history (name, attempted_at);
CREATE INDEX attempt_history_time ON scheduler.attempt_history (attempted_at);

-- kube-scheduler's counters and histograms of attempts, as running totals
-- that the pruning of attempt_history leaves alone: schedule_pending() adds
-- each call's attempts in one statement at its end, and the outbox's
-- trigger the placements whose bindings finish (src/metrics.c).  The
-- buckets are cumulative, as Prometheus exposes them: element i counts the
-- observations of at most its bound.
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

