-- Fuzz test of scheduler.apply()'s JSON field parsing: take real objects
-- (test/fixtures), replace one field anywhere in them with a value of another
-- shape, and apply.  Every outcome must be success or a clear input error,
-- SQLSTATE class 22 (22023 invalid_parameter_value; 22007/22008 for a bad
-- timestamp): never a crash, never an internal error.
\set SHOW_CONTEXT never
TRUNCATE scheduler.nodes, scheduler.pods, scheduler.pod_attempts;
\set nodes `cat test/fixtures/kubectl-get-nodes.json`
\set pods `cat test/fixtures/kubectl-get-pods.json`
SELECT setseed(0.31);

CREATE FUNCTION pg_temp.outcome(doc jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM scheduler.apply(doc);
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE;
END $$;

-- every path to a value inside each object
CREATE TEMP TABLE objects AS
SELECT row_number() OVER () AS id, o AS obj
FROM jsonb_array_elements(((:'nodes'::jsonb)->'items') || ((:'pods'::jsonb)->'items')) o;
CREATE TEMP TABLE paths AS
WITH RECURSIVE walk(id, path, val) AS (
    SELECT id, ARRAY[]::text[], obj FROM objects
    UNION ALL
    SELECT w.id, w.path || c.key, c.val
    FROM walk w,
         LATERAL (SELECT key, value AS val FROM jsonb_each(CASE WHEN jsonb_typeof(w.val) = 'object' THEN w.val END)
                  UNION ALL
                  SELECT (ord - 1)::text, value FROM jsonb_array_elements(CASE WHEN jsonb_typeof(w.val) = 'array' THEN w.val END)
                       WITH ORDINALITY AS e(value, ord)) c
)
SELECT id, path FROM walk WHERE cardinality(path) > 0;
SELECT count(*) > 1000 AS many_paths FROM paths;

-- replacement values of every JSON shape, and quantity-like strings
CREATE TEMP TABLE shapes(v jsonb);
INSERT INTO shapes VALUES ('null'), ('true'), ('0'), ('-1'), ('1.5'), ('1e400'), ('""'), ('"x"'),
    ('"12x"'), ('"-5"'), ('"1.5Gi"'), ('"99999E"'), ('"2024-13-45T99:00:00Z"'), ('[]'), ('[1, "a"]'),
    ('{}'), ('{"a": 1}'), ('{"cpu": "1"}'), ('[{"key": 1}]'), ('"Always"'), ('"NoSchedule"');

CREATE TEMP TABLE trials AS
SELECT t, pg_temp.outcome(jsonb_set(o.obj, p.path, s.v)) AS result
FROM generate_series(1, 3000) t,
     LATERAL (SELECT id, path FROM paths ORDER BY random() + t * 0 LIMIT 1) p,
     LATERAL (SELECT v FROM shapes ORDER BY random() + t * 0 LIMIT 1) s,
     objects o
WHERE o.id = p.id;

SELECT count(*) AS trials,
       count(*) FILTER (WHERE result = 'ok') > 0 AS some_accepted,
       count(*) FILTER (WHERE result = '22023') > 0 AS some_rejected,
       count(*) FILTER (WHERE result <> 'ok' AND result NOT LIKE '22%') AS unexpected
FROM trials;
SELECT DISTINCT result FROM trials ORDER BY 1;
