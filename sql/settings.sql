-- The API server's connection settings (issue #5): a non-superuser can never
-- read a secret.  The token, CA and client certificate files are
-- GUC_SUPERUSER_ONLY: hidden from SHOW, current_setting() and pg_settings
-- for anyone without superuser or pg_read_all_settings.  They are read at
-- reload (SIGHUP) only, and kube_api_url can be set by a superuser only,
-- so nobody else can point the workers at another server either.
LOAD 'scheduler';
CREATE ROLE scheduler_settings_reader;
SET ROLE scheduler_settings_reader;
SHOW scheduler.kube_token_file;
SELECT current_setting('scheduler.kube_ca_file');
SHOW scheduler.kube_client_cert_file;
SHOW scheduler.kube_client_key_file;
SELECT name FROM pg_settings WHERE name LIKE 'scheduler.kube%' ORDER BY name;
SET scheduler.kube_api_url = 'https://elsewhere.example:6443';
SET scheduler.watch_batch_size = 10;
RESET ROLE;
-- a superuser sees them; even a superuser sets the files only in the
-- configuration (they are read at reload)
SELECT name, context FROM pg_settings WHERE name LIKE 'scheduler.kube%' OR name LIKE 'scheduler.watch%'
    OR name LIKE 'scheduler.bind%' OR name = 'scheduler.status_qps' ORDER BY name;
SET scheduler.kube_token_file = '/tmp/token';
DROP ROLE scheduler_settings_reader;
