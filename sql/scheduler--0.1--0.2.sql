\echo Use "ALTER EXTENSION scheduler UPDATE TO '0.2'" to load this file. \quit

-- From 0.1 to 0.2.  As the install script, this runs as a superuser with
-- the caller's search_path: every name is resolved in pg_catalog alone, and
-- every object is schema-qualified.
SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
