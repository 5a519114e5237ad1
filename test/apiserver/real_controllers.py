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
        self.listed = set()                     # the kinds listed once
        self.c = None                           # the work loop's connection

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
        """One watch event (caller does not hold the lock)."""
        md = obj.get("metadata") or {}
        key = (md.get("namespace"), md.get("name"))
        with self.lock:
            if etype == "DELETED":
                self.objs[kind].pop(key, None)
                if kind == "pods":
                    self.finish.pop(key, None)
            else:
                self.objs[kind][key] = obj
                if kind == "pods":
                    self.note_terminating(key, obj)
            self.dirty.add(key[0])
            self.lock.notify_all()

    def note_terminating(self, key, obj):
        """A bound pod being deleted is finished later (caller holds the lock)."""
        md = obj.get("metadata") or {}
        if md.get("deletionTimestamp") and (obj.get("spec") or {}).get("nodeName") and key not in self.finish:
            grace = md.get("deletionGracePeriodSeconds")
            wait = FINISH_SECONDS if grace is None else min(FINISH_SECONDS, max(0, grace))
            self.finish[key] = (time.time() + wait, md.get("uid"))

    def relisted(self, kind, items):
        """A list's items replace the cache of kind at once; the namespaces
        of what came and went are recounted."""
        new = {((o.get("metadata") or {}).get("namespace"), (o.get("metadata") or {}).get("name")): o
               for o in items}
        with self.lock:
            old = self.objs[kind]
            self.objs[kind] = new
            self.dirty.update(k[0] for k in set(old) | set(new))
            if kind == "pods":
                self.finish = {k: v for k, v in self.finish.items() if k in new}
                for k, o in new.items():
                    self.note_terminating(k, o)
            self.listed.add(kind)
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
                self.relisted(kind, lst.get("items") or [])
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
            except Exception as e:  # noqa: BLE001  (any: the thread must go on)
                sys.stderr.write("real_controllers: %s: %s\n" % (kind, e))
            time.sleep(0.5)

    # --- the work: budgets recounted, deletions finished
    def scale(self, ns, ref):
        return ka.controller_scale(lambda res, key: self.objs[res].get(key), ns, ref)

    def next_work(self):
        """(deletions due, budgets to write), once every kind was listed
        (as the controller waits for its caches to sync); waits for work."""
        with self.lock:
            while True:
                now = time.time()
                due = [(k, uid) for k, (when, uid) in self.finish.items() if when <= now]
                if len(self.listed) == len(KINDS) and (due or self.dirty):
                    break
                nxt = min((w for w, _ in self.finish.values()), default=None)
                self.lock.wait(None if nxt is None else min(60.0, max(0.01, nxt - now)))
            for k, _ in due:
                del self.finish[k]
            todo = []
            for ns in self.dirty:
                budgets = [pdb for (bns, _), pdb in self.objs["poddisruptionbudgets"].items() if bns == ns]
                pods = [o for (pns, _), o in self.objs["pods"].items() if pns == ns] if budgets else []
                for pdb in budgets:
                    status = ka.pdb_status(pdb, pods, now, self.scale)
                    if status != pdb.get("status"):
                        todo.append((pdb, status))
            self.dirty.clear()
            return due, todo

    def retry_later(self, ns, key=None, uid=None):
        with self.lock:
            if key is not None and key in self.objs["pods"]:
                self.finish[key] = (time.time() + 1.0, uid)
            self.dirty.add(ns)

    def work_loop(self):
        while True:
            due, todo = self.next_work()
            for (ns, name), uid in due:
                code = self.send("DELETE", "/api/v1/namespaces/%s/pods/%s?gracePeriodSeconds=0" % (ns, name),
                                 {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0,
                                  "preconditions": {"uid": uid}})
                if code is None or code == 429 or code >= 500:
                    self.retry_later(ns, (ns, name), uid)
            for pdb, status in todo:
                md = pdb["metadata"]
                # as UpdateStatus: refused when the budget changed meanwhile
                # (its next event recounts it)
                code = self.send("PATCH", "/apis/policy/v1/namespaces/%s/poddisruptionbudgets/%s/status"
                                 % (md["namespace"], md["name"]),
                                 [{"op": "test", "path": "/metadata/resourceVersion", "value": md["resourceVersion"]},
                                  {"op": "add", "path": "/status", "value": status}], "application/json-patch+json")
                if code is None or code == 429 or code >= 500:
                    self.retry_later(md["namespace"])

    def send(self, method, path, body, ctype="application/json"):
        """The response's code, on a kept connection made again once if it
        was closed (kube-apiserver closes idle ones); None if both fail."""
        for attempt in range(2):
            try:
                if self.c is None:
                    self.c = self.conn()
                code, out = self.call(self.c, method, path, body, ctype)
                if code >= 400 and code not in (404, 409, 422):
                    sys.stderr.write("real_controllers: %s %s: HTTP %d %s\n" % (method, path, code, out[:200]))
                return code
            except (OSError, http.client.HTTPException) as e:
                self.c = None
                if attempt:
                    sys.stderr.write("real_controllers: %s %s: %s\n" % (method, path, e))
        return None
