-- scheduler.kubeconfig (issue 15): connection settings from a kubeconfig
-- file, as kubectl and client-go read one (clientcmd): the current-context,
-- or the context asked for, names a cluster and a user; relative file names
-- are relative to the kubeconfig's folder (clientcmd.ResolveLocalPaths);
-- tokenFile wins over token (client-go's transport reads the file);
-- what the scheduler cannot do (exec plugins, auth-provider, basic auth,
-- impersonation) is refused by name.  Checked through kube_connection(),
-- which reports what the workers would connect with: never a secret.
\set SHOW_CONTEXT never
-- files in the data directory, line by line (COPY's csv with quote and
-- delimiter characters no line has: written as they are)
CREATE FUNCTION kc_write(name text, body text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('COPY (SELECT l FROM unnest(string_to_array(%L, E''\n'')) WITH ORDINALITY AS t(l, i)'
                   ' WHERE l <> '''' ORDER BY i) TO %L WITH (FORMAT csv, QUOTE E''\x01'', DELIMITER E''\x02'')',
                   body, current_setting('data_directory') || '/' || name);
END $$;
-- kube_connection() of a file there, the data directory's path shown as $PGDATA;
-- an error as its SQLSTATE and message
CREATE FUNCTION kc(name text, context text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    d text := current_setting('data_directory');
BEGIN
    RETURN replace(scheduler.kube_connection(d || '/' || name, context)::text, d, '$PGDATA');
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || replace(SQLERRM, d, '$PGDATA');
END $$;

-- nothing set: no connection (the in-cluster files are not there)
SELECT scheduler.kube_connection();

-- what `kind get kubeconfig` writes: inline CA, client certificate and key;
-- a second context with a token user
SELECT kc_write('kind.yaml', $y$
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    server: https://127.0.0.1:40123
  name: kind-kind
- cluster:
    server: https://10.0.0.1:6443/   # trailing slash dropped
    certificate-authority: certs/ca.crt
  name: prod
contexts:
- context:
    cluster: kind-kind
    user: kind-kind
  name: kind-kind
- context:
    cluster: prod
    namespace: kube-system
    user: "scheduler@prod"
  name: prod
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    client-key-data: LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tCg==
- name: 'scheduler@prod'
  user:
    token: "s3cr3t-t0ken"
$y$);
SELECT kc('kind.yaml');
-- the context asked for instead of the current one; the CA file is relative
-- to the kubeconfig's folder; the token is inline (and never shown)
SELECT kc('kind.yaml', 'prod');
SELECT kc('kind.yaml', 'staging');

-- tokenFile, relative, wins over token; client certificate files, relative
SELECT kc_write('token', 'from-the-file');
SELECT kc_write('files.yaml', $y$
---
# a comment line
apiVersion: v1
kind: Config
current-context: "a"
contexts:
  - name: a
    context: {cluster: c, user: u}
clusters:
  - name: c
    cluster:
      server: "https://api.example:443"
      insecure-skip-tls-verify: true
users:
  - name: u
    user:
      token: ignored
      tokenFile: token
      client-certificate: ./client.crt
      client-key: /etc/keys/client.key
$y$);
SELECT kc('files.yaml');
-- a token file that cannot be read: the inline token, as client-go falls
-- back on it; without one, the error names the file
SELECT kc_write('files2.yaml', replace(pg_read_file(current_setting('data_directory') || '/files.yaml'), 'tokenFile: token', 'tokenFile: missing-token'));
SELECT kc('files2.yaml');
SELECT kc_write('files3.yaml', replace(pg_read_file(current_setting('data_directory') || '/files2.yaml'), 'token: ignored', ''));
SELECT kc('files3.yaml');

-- JSON, as `kubectl config view -o json` writes it
SELECT kc_write('kube.json', $j$
{
  "kind": "Config", "apiVersion": "v1",
  "clusters": [{"name": "j", "cluster": {"server": "http://127.0.0.1:8080"}}],
  "users": [{"name": "j", "user": {"token": "t"}}],
  "contexts": [{"name": "j", "context": {"cluster": "j", "user": "j"}}],
  "current-context": "j"
}
$j$);
SELECT kc('kube.json');
-- a context without a user: no credentials
SELECT kc_write('nouser.yaml', $y$
clusters: [{name: c, cluster: {server: 'https://h:1'}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
$y$);
SELECT kc('nouser.yaml');

-- what the scheduler cannot do is refused by name: the credential plugins
-- of EKS, GKE and AKS (exec), the old auth-providers, basic auth, impersonation
SELECT kc_write('exec.yaml', $y$
apiVersion: v1
clusters:
- name: eks
  cluster:
    server: https://ABC.gr7.eu-west-1.eks.amazonaws.com
contexts:
- name: eks
  context:
    cluster: eks
    user: aws
current-context: eks
users:
- name: aws
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args:
        - eks
        - get-token
$y$);
SELECT kc('exec.yaml');
SELECT kc_write('authprovider.yaml', replace(replace(pg_read_file(current_setting('data_directory') || '/exec.yaml'),
    'exec:', 'auth-provider:'), 'apiVersion: client.authentication.k8s.io/v1beta1', 'name: gcp'));
SELECT kc('authprovider.yaml');
SELECT kc_write('basic.yaml', replace(pg_read_file(current_setting('data_directory') || '/nouser.yaml'),
    'context: {cluster: c}', 'context: {cluster: c, user: b}') || E'users: [{name: b, user: {username: admin, password: pw}}]\n');
SELECT kc('basic.yaml');
SELECT kc_write('as.yaml', replace(pg_read_file(current_setting('data_directory') || '/basic.yaml'),
    'username: admin, password: pw', 'token: t, as: system:admin'));
SELECT kc('as.yaml');

-- what client-go's validation refuses (clientcmd/validation.go)
SELECT kc_write('bad.yaml', $y$
current-context: none-such
contexts:
- name: nocluster
  context: {user: u}
- name: lost
  context: {cluster: gone, user: u}
- name: lostuser
  context: {cluster: noserver, user: gone}
- name: noserver
  context: {cluster: noserver}
- name: ftp
  context: {cluster: ftp}
- name: both
  context: {cluster: both}
- name: insecureca
  context: {cluster: insecureca}
- name: notbool
  context: {cluster: notbool}
- name: halfcert
  context: {cluster: ok, user: halfcert}
- name: bothcert
  context: {cluster: ok, user: bothcert}
- name: badb64
  context: {cluster: badb64}
- name: sni
  context: {cluster: sni}
- name: servermap
  context: {cluster: servermap}
clusters:
- {name: noserver, cluster: {certificate-authority: /ca}}
- {name: ftp, cluster: {server: 'ftp://h'}}
- {name: both, cluster: {server: 'https://h', certificate-authority: /ca, certificate-authority-data: LS0t}}
- {name: insecureca, cluster: {server: 'https://h', certificate-authority: /ca, insecure-skip-tls-verify: true}}
- {name: notbool, cluster: {server: 'https://h', insecure-skip-tls-verify: maybe}}
- {name: ok, cluster: {server: 'https://h'}}
- {name: badb64, cluster: {server: 'https://h', certificate-authority-data: '@@not base64@@'}}
- {name: sni, cluster: {server: 'https://h', tls-server-name: other}}
- {name: servermap, cluster: {server: {url: 'https://h'}}}
users:
- {name: halfcert, user: {client-certificate: /c.crt}}
- {name: bothcert, user: {client-certificate: /c.crt, client-certificate-data: LS0t, client-key: /k}}
$y$);
SELECT c, kc('bad.yaml', c) FROM unnest(ARRAY[NULL, 'nocluster', 'lost', 'lostuser', 'noserver', 'ftp', 'both',
    'insecureca', 'notbool', 'halfcert', 'bothcert', 'badb64', 'sni', 'servermap']) AS c;

-- the YAML it cannot read is refused with the line it stopped at
SELECT kc_write('y1.yaml', E'clusters:\n\t- name: x');
SELECT kc('y1.yaml');
SELECT kc_write('y2.yaml', E'base: &b {server: x}\nclusters: *b');
SELECT kc('y2.yaml');
SELECT kc_write('y3.yaml', E'current-context: a\ncontexts: !!seq []');
SELECT kc('y3.yaml');
SELECT kc_write('y4.yaml', E'users:\n- name: u\n  user:\n    token: |\n      abc');
SELECT kc('y4.yaml');
SELECT kc_write('y5.yaml', E'current-context: a long\n  value on two lines');
SELECT kc('y5.yaml');
SELECT kc_write('y6.yaml', E'current-context: "open');
SELECT kc('y6.yaml');
SELECT kc_write('y7.yaml', E'clusters: [{name: c, cluster: {server: x}');
SELECT kc('y7.yaml');
SELECT kc_write('y8.yaml', E'- just\n- a list');
SELECT kc('y8.yaml');
SELECT kc_write('y9.yaml', E'just a line of text');
SELECT kc('y9.yaml');
SELECT kc_write('y10.yaml', E'%YAML 1.2\n---\ncurrent-context: a');
SELECT kc('y10.yaml');
SELECT kc_write('y11.yaml', E'clusters:\n  - name: c\n   cluster: {}');
SELECT kc('y11.yaml');
SELECT kc_write('y12.yaml', E'current-context: "a\\qb"');
SELECT kc('y12.yaml');
SELECT kc('none-such.yaml');
-- deep nesting stops at 64 levels, without recursion past them
SELECT kc_write('deep.yaml', 'x: ' || repeat('[', 100000));
SELECT kc('deep.yaml');
-- a second document is not read (kubectl reads one)
SELECT kc_write('docs.yaml', pg_read_file(current_setting('data_directory') || '/kube.json') || E'---\ncurrent-context: other');
SELECT kc('docs.yaml');
-- escapes in double quotes, '' in single quotes
SELECT kc_write('esc.yaml', $y$
clusters: [{name: "c\u00e9", cluster: {server: 'https://h/it''s'}}]
contexts: [{name: "a\tb", context: {cluster: "c\u00e9"}}]
current-context: "a\tb"
$y$);
SELECT kc('esc.yaml');

-- as client-go's decoder reads YAML 1.1: yes is true; a UTF-8 byte order
-- mark is skipped; empty impersonation fields are unset; an unreadable
-- tokenFile falls back on the inline token
SELECT kc_write('yaml11.yaml', E'\xEF\xBB\xBF' || $y$current-context: x
contexts: [{name: x, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: 'https://h:1', insecure-skip-tls-verify: yes}}]
users: [{name: u, user: {token: inline-t, tokenFile: no-such-file, as-groups: [], as-user-extra: {}, exec: null}}]
$y$);
SELECT kc('yaml11.yaml');

-- superusers only: it reads files
CREATE ROLE regress_kc_user;
GRANT scheduler_admin TO regress_kc_user;
SET ROLE regress_kc_user;
SELECT scheduler.kube_connection();
RESET ROLE;
DROP ROLE regress_kc_user;
