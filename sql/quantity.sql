-- Kubernetes quantities: examples, rounding, errors, a property test and a
-- fuzz test.  (quantity_table.sql holds apimachinery's own test table.)
\set SHOW_CONTEXT never
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    RETURN scheduler.quantity_milli(q)::text;
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;

-- cpu in millicores (MilliValue) and bytes (Value), suffixes and exponents
SELECT q, scheduler.quantity_milli(q) AS milli, scheduler.quantity_value(q) AS value
FROM (VALUES ('100m'), ('1'), ('0.5'), ('1.5Gi'), ('500Mi'), ('1Ki'), ('1k'), ('1M'),
             ('1e3'), ('1E-3'), ('2.5e2'), ('32Gi'), ('16372140Ki'), ('3920m'), ('1Pi'),
             ('0'), ('-0'), ('.5'), ('1.'), ('+1'), ('5P'), ('1n'), ('1u')) t(q);

-- Rounding: MilliValue and Value round up, away from zero (never to zero)
SELECT q, scheduler.quantity_milli(q) AS milli, scheduler.quantity_value(q) AS value
FROM (VALUES ('0.0001'), ('1n'), ('1.0001m'), ('999u'), ('1001u'), ('0.1'), ('1.000000000000000000000000000001'),
             ('-1n'), ('-0.0001'), ('0.5Ki'), ('0.3Ki'), ('1e-30')) t(q);

-- Bad input: 22023, never a crash and never a silent zero
SELECT q, pg_temp.try(q) AS result
FROM (VALUES ('12x'), ('--1'), ('1.2.3'), (''), ('100E'), ('9223372036854775808m'),
             ('1e19'), ('Gi1'), ('1 Gi'), ('1e'), ('1e+'), ('0x10'), ('1K'), ('1mi'), ('NaN'), ('Inf'),
             ('1e99999999999999999999')) t(q);

-- Property: for random numbers written with every suffix, the result equals
-- ceil(value * 1000) computed exactly with numeric (values whose millicores
-- would not fit in int64 are left out; the error cases above cover those).
SELECT setseed(0.2024);
WITH suffixes(sfx, mult) AS (
    VALUES ('', 1::numeric), ('n', 1e-9), ('u', 1e-6), ('m', 1e-3), ('k', 1e3), ('M', 1e6),
           ('G', 1e9), ('T', 1e12), ('Ki', 1024), ('Mi', 1048576), ('Gi', 1073741824),
           ('Ti', 1099511627776), ('e2', 100), ('e-4', 1e-4), ('E1', 10), ('e0', 1)
), cases AS (
    SELECT floor(random() * 10 ^ floor(random() * 7))::bigint::text AS ip,
           CASE WHEN random() < 0.6 THEN '.' || lpad(floor(random() * 10 ^ 6)::bigint::text,
                                                      1 + floor(random() * 6)::int, '0')
                ELSE '' END AS fp,
           1 + floor(random() * 16)::int AS k
    FROM generate_series(1, 5000) i
), checked AS (
    SELECT c.ip || c.fp || s.sfx AS q, s.sfx, (c.ip || c.fp)::numeric * s.mult AS exact
    FROM cases c JOIN (SELECT row_number() OVER () AS k, sfx, mult FROM suffixes) s USING (k)
    WHERE (c.ip || c.fp)::numeric * s.mult * 1000 < 9e18   -- in range in millicores
)
SELECT count(*) AS cases,
       count(*) FILTER (WHERE scheduler.quantity_milli(q) <> ceil(exact * 1000)) AS milli_mismatches,
       count(*) FILTER (WHERE scheduler.quantity_value(q) <> ceil(exact)) AS value_mismatches,
       count(DISTINCT sfx) AS suffixes_covered
FROM checked;

-- Fuzz: random strings over the grammar's alphabet.  Each is accepted exactly
-- when apimachinery's grammar accepts it (the regular expression below), and
-- a rejection is always SQLSTATE 22023.
SELECT setseed(0.42);
CREATE FUNCTION pg_temp.fuzz_one(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM scheduler.quantity_value(q);
    RETURN 'accepted';
EXCEPTION WHEN invalid_parameter_value THEN
    RETURN CASE WHEN SQLERRM LIKE '%out of range' THEN 'range' ELSE 'rejected' END;
END $$;
WITH fuzz AS (
    SELECT string_agg(substr('0123456789.+-eEinumkKMGTPx ', 1 + floor(random() * 27)::int, 1), '') AS q
    FROM generate_series(1, 20000) i, generate_series(1, 1 + (i % 8)) j
    GROUP BY i
), verdicts AS (
    SELECT q, pg_temp.fuzz_one(q) AS verdict,
           q ~ '^[+-]?[0-9]*(\.[0-9]*)?([numkMGTPE]|[KMGTPE]i|[eE][+-]?[0-9]+)?$' AS grammar_ok
    FROM fuzz
)
SELECT count(*) AS strings,
       count(*) FILTER (WHERE verdict = 'accepted') AS accepted,
       count(*) FILTER (WHERE verdict = 'rejected') AS rejected,
       count(*) FILTER (WHERE verdict = 'range') AS out_of_range,
       count(*) FILTER (WHERE (verdict <> 'rejected') <> grammar_ok) AS disagreements
FROM verdicts;
