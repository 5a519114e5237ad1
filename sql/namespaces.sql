-- Namespaces are mirrored (issue #6 reads their labels: InterPodAffinity's
-- namespaceSelector): a Namespace, a NamespaceList from the API server (its
-- items carry no kind), watch events, and relisting as the whole truth.
\set SHOW_CONTEXT never
TRUNCATE scheduler.namespaces;
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {"name": "team-a", "uid": "u-a", "labels": {"team": "a"}}}');
SELECT scheduler.apply('{"kind": "NamespaceList", "metadata": {"resourceVersion": "5"}, "items": [
    {"metadata": {"name": "default", "uid": "u-default"}},
    {"metadata": {"name": "team-b", "uid": "u-b", "labels": {"team": "b"}}}]}');
SELECT name, uid, labels FROM scheduler.namespaces ORDER BY name;
-- unchanged: nothing written
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {"name": "team-a", "uid": "u-a", "labels": {"team": "a"}}}') AS changed;
-- watch events: a label changed, a namespace deleted
SELECT scheduler.apply('{"type": "MODIFIED", "object": {"kind": "Namespace", "metadata": {"name": "team-a", "uid": "u-a", "labels": {"team": "a", "tier": "gold"}}}}');
SELECT scheduler.apply('{"type": "DELETED", "object": {"kind": "Namespace", "metadata": {"name": "team-b", "uid": "u-b"}}}');
SELECT name, labels FROM scheduler.namespaces ORDER BY name;
-- the same name under a new uid: the older namespace is gone
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {"name": "team-a", "uid": "u-a2"}}');
SELECT name, uid FROM scheduler.namespaces ORDER BY name;
-- a relist is the whole truth, and is where the watch resumes
SELECT scheduler.relist('{"kind": "NamespaceList", "metadata": {"resourceVersion": "42"}, "items": [
    {"metadata": {"name": "kube-system", "uid": "u-ks"}}]}');
SELECT name FROM scheduler.namespaces ORDER BY name;
SELECT resource, resource_version FROM scheduler.watch_state WHERE resource = 'namespaces';
-- bad input names the field
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {"name": "bad", "labels": {"x": 1}}}');
SELECT scheduler.apply('{"kind": "Namespace", "metadata": {}}');
-- leave nothing for the tests after this one
DELETE FROM scheduler.watch_state WHERE resource = 'namespaces';
TRUNCATE scheduler.namespaces;
