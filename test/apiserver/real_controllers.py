"""What a cluster runs beside kube-apiserver that the worker tests need, for
real_apiserver.py: no kube-controller-manager and no kubelet run there, so
this plays the two parts the stand-in plays inside (kube_apiserver.py), as
ordinary clients of the real server:

  * the disruption controller: each PodDisruptionBudget's status, computed
    by the stand-in's own rules (kube_apiserver.pdb_status, which follow
    pkg/controller/disruption) from the pods, budgets and controllers it
    watches, written through /status (a JSON patch setting it whole) when it
    differs;
  * a kubelet that finishes graceful deletions: a bound pod given a
    deletionTimestamp is deleted for good (gracePeriodSeconds=0, its uid a
    precondition) FINISH_SECONDS later, or at its grace period if shorter --
    so a preemption's victim goes, after a moment Terminating.

Each kind is listed, then watched from the list's resourceVersion; any
error (a 410 included) relists after a short pause.
"""

import http.client
import json
import ssl
import sys
import threading
import time
import urllib.parse

import kube_apiserver as ka

FINISH_SECONDS = 2.0
KINDS = {"pods": "/api/v1/pods", "poddisruptionbudgets": "/apis/policy/v1/poddisruptionbudgets",
         "replicationcontrollers": "/api/v1/replicationcontrollers",
         "replicasets": "/apis/apps/v1/replicasets", "statefulsets": "/apis/apps/v1/statefulsets"}


class Controllers:
    def __init__(self, url, token, ca):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.ctx = ssl.create_default_context(cafile=ca)
        self.token = token
        self.lock = threading.Condition()
        self.objs = {k: {} for k in KINDS}      # kind -> (ns, name) -> object
        self.dirty = set()                      # namespaces whose budgets to recount
        self.finish = {}                        # (ns, name) -> (when, uid)

    def conn(self, timeout=30):
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def call(self, c, method, path, body=None, ctype="application/json"):
        hdrs = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = ctype
        c.request(method, path, data, hdrs)
        r = c.getresponse()
        out = r.read()
        return r.status, out

    def start(self):
        for kind in KINDS:
            threading.Thread(target=self.watch_loop, args=(kind,), daemon=True).start()
        threading.Thread(target=self.work_loop, daemon=True).start()

    # --- the caches
    def note(self, kind, etype, obj):
        md = obj.get("metadata") or {}
        key = (md.get("namespace"), md.get("name"))
        with self.lock:
            if etype == "DELETED":
                self.objs[kind].pop(key, None)
                if kind == "pods":
                    self.finish.pop(key, None)
            else:
                self.objs[kind][key] = obj
                if kind == "pods" and md.get("deletionTimestamp") and (obj.get("spec") or {}).get("nodeName") \
                        and key not in self.finish:
                    grace = md.get("deletionGracePeriodSeconds")
                    wait = FINISH_SECONDS if grace is None else min(FINISH_SECONDS, max(0, grace))
                    self.finish[key] = (time.time() + wait, md.get("uid"))
            self.dirty.add(key[0])
            self.lock.notify_all()

    def watch_loop(self, kind):
        path = KINDS[kind]
        while True:
            try:
                c = self.conn()
                code, out = self.call(c, "GET", path)
                if code != 200:
                    raise OSError("list %s: HTTP %d" % (path, code))
                lst = json.loads(out)
                with self.lock:
                    self.objs[kind] = {}
                for o in lst.get("items") or []:
                    self.note(kind, "ADDED", o)
                rv = lst["metadata"]["resourceVersion"]
                c.close()
                c = self.conn(timeout=None)
                c.request("GET", "%s?watch=1&allowWatchBookmarks=true&resourceVersion=%s" % (path, rv), None,
                          {"Authorization": "Bearer " + self.token, "Accept": "application/json"})
                r = c.getresponse()
                if r.status != 200:
                    raise OSError("watch %s: HTTP %d" % (path, r.status))
                while True:
                    line = r.readline()
                    if not line:
                        break
                    ev = json.loads(line)
                    if ev.get("type") == "ERROR":
                        break
                    if ev.get("type") in ("ADDED", "MODIFIED", "DELETED"):
                        self.note(kind, ev["type"], ev["object"])
            except (OSError, ValueError, KeyError, http.client.HTTPException) as e:
                sys.stderr.write("real_controllers: %s: %s\n" % (kind, e))
            time.sleep(0.5)

    # --- the work: budgets recounted, deletions finished
    def scale(self, ns, ref):
        res = {"ReplicationController": "replicationcontrollers", "ReplicaSet": "replicasets",
               "StatefulSet": "statefulsets"}.get(ref.get("kind"))
        o = self.objs[res].get((ns, ref.get("name"))) if res else None
        if o is None or o["metadata"].get("uid") != ref.get("uid"):
            return None
        n = (o.get("spec") or {}).get("replicas")
        return n if isinstance(n, int) else 1

    def work_loop(self):
        c = None
        while True:
            with self.lock:
                due = [(k, uid) for k, (when, uid) in self.finish.items() if when <= time.time()]
                while not self.dirty and not due:
                    nxt = min((w for w, _ in self.finish.values()), default=None)
                    self.lock.wait(None if nxt is None else max(0.01, nxt - time.time()))
                    due = [(k, uid) for k, (when, uid) in self.finish.items() if when <= time.time()]
                for k, _ in due:
                    self.finish[k] = (float("inf"), None)
                now = time.time()
                todo = []
                for ns in self.dirty:
                    budgets = [pdb for (bns, _), pdb in self.objs["poddisruptionbudgets"].items() if bns == ns]
                    pods = [o for (pns, _), o in self.objs["pods"].items() if pns == ns] if budgets else []
                    for pdb in budgets:
                        status = ka.pdb_status(pdb, pods, now, self.scale)
                        if status != pdb.get("status"):
                            todo.append((pdb, status))
                self.dirty.clear()
            try:
                c = c or self.conn()
                for (ns, name), uid in due:
                    self.call(c, "DELETE", "/api/v1/namespaces/%s/pods/%s?gracePeriodSeconds=0" % (ns, name),
                              {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                               "preconditions": {"uid": uid}})
                for pdb, status in todo:
                    md = pdb["metadata"]
                    self.call(c, "PATCH", "/apis/policy/v1/namespaces/%s/poddisruptionbudgets/%s/status"
                              % (md["namespace"], md["name"]), [{"op": "add", "path": "/status", "value": status}],
                              "application/json-patch+json")
            except (OSError, http.client.HTTPException) as e:
                sys.stderr.write("real_controllers: %s\n" % e)
                c = None
                time.sleep(0.5)
