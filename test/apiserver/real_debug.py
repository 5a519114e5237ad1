"""The stand-in's test hooks (/debug/...) where a real kube-apiserver runs
(real_apiserver.py; server.json says "real": true): kreq.py answers them
itself, through the API, so a test reads the same either way.

  POST   /debug/bulk      the objects created one by one through the API
                          (the same body as the stand-in's App.bulk): the
                          namespaces first (missing ones made), then nodes,
                          pods and the rest in the stand-in's order; a status
                          given that create dropped (a pod's) is written
                          through the status subresource.  Any object the
                          server refused makes the answer 422.
  GET    /debug/bindings  every binding request and its response code, from
                          kube-apiserver's audit log (?pod=ns/name,
                          ?summary=1 as the stand-in)
  DELETE /debug/bindings  forgets the requests logged so far

The others (state, requests, faults, reset) exist only in the stand-in:
501, naming the hook.
"""

import http.client
import json
import os
import queue
import ssl
import threading
import urllib.parse

import kube_apiserver as ka

THREADS = 4


class Client:
    def __init__(self, server):
        u = urllib.parse.urlsplit(server["url"])
        self.host, self.port = u.hostname, u.port
        self.ctx = ssl.create_default_context(cafile=server["ca"])
        self.token = server["token"]
        self.conn = None

    def request(self, method, path, body=None, ctype="application/json"):
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=300)
            hdrs = {"Authorization": "Bearer " + self.token, "Accept": "application/json"}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                hdrs["Content-Type"] = ctype
            try:
                self.conn.request(method, path, data, hdrs)
                r = self.conn.getresponse()
                out = r.read()
                return r.status, json.loads(out) if out else None
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        return None, None


def collection(res, ns):
    r = ka.RESOURCES[res]
    base = "/apis/%s/v1" % r.group if r.group else "/api/v1"
    return "%s/namespaces/%s/%s" % (base, ns, res) if r.namespaced else "%s/%s" % (base, res)


def _subset(a, b):
    """every field of a is in b, the same (b may have more: defaults)"""
    if isinstance(a, dict):
        return isinstance(b, dict) and all(k in b and _subset(v, b[k]) for k, v in a.items())
    return a == b


def _create_one(c, res, o):
    """(code, message) of creating o (a resource res) through connection c"""
    if not isinstance(o, dict):
        return 400, "not an object"
    md = o.get("metadata") if isinstance(o.get("metadata"), dict) else {}
    ns = (md.get("namespace") or "default") if ka.RESOURCES[res].namespaced else None
    path = collection(res, ns)
    code, out = c.request("POST", path, o)
    if code == 201 and o.get("status") and "status" in ka.RESOURCES[res].subresources and \
            not _subset(o["status"], (out or {}).get("status")):
        # create dropped the status given (a pod's): written through /status
        code, out = c.request("PATCH", "%s/%s/status" % (path, md.get("name")), {"status": o["status"]},
                              "application/merge-patch+json")
        code = 201 if code == 200 else code
    return code, (out or {}).get("message") if isinstance(out, dict) else out


def _create_all(server, todo, errors):
    """Create (res, obj) pairs over THREADS connections; every failure, a
    transport error included, goes in errors."""
    q = queue.Queue()
    for t in todo:
        q.put(t)
    lock = threading.Lock()

    def work():
        c = Client(server)
        while True:
            try:
                res, o = q.get_nowait()
            except queue.Empty:
                return
            try:
                code, message = _create_one(c, res, o)
            except Exception as e:  # noqa: BLE001  (a transport error, a body that is not JSON: counted)
                code, message = None, "%s: %s" % (type(e).__name__, e)
            if code != 201 and not (res == "namespaces" and code == 409):
                md = o.get("metadata") if isinstance(o, dict) and isinstance(o.get("metadata"), dict) else {}
                with lock:
                    errors.append({"resource": res, "name": md.get("name"), "code": code, "message": message})

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def bulk(server, body):
    if isinstance(body, list):
        body = {"items": body}
    if not isinstance(body, dict):
        return 400, {"message": "bulk: expected a JSON list or object"}
    groups = {}
    order = ("namespaces", "nodes", "pods", "events", "poddisruptionbudgets") + ka.WORKLOAD_RESOURCES + \
        ka.STORAGE_BULK_ORDER
    for res in order:
        for o in body.get(res) or []:
            groups.setdefault(res, []).append(o)
    for o in body.get("items") or []:
        res = ka.KIND_TO_RESOURCE.get(o.get("kind") if isinstance(o, dict) else None)
        if res is None:
            return 400, {"message": "bulk: item without a known kind"}
        groups.setdefault(res, []).append(o)
    gen = body.get("generate") or {}
    for res, make, prefix in (("nodes", ka.make_node, "node-"), ("pods", ka.make_pod, "pod-")):
        g = gen.get(res)
        if g:
            start = int(g.get("start", 0))
            groups.setdefault(res, []).extend(make("%s%d" % (g.get("prefix", prefix), i), g)
                                              for i in range(start, start + int(g.get("count", 0))))
    meta = lambda o: o.get("metadata") if isinstance(o, dict) and isinstance(o.get("metadata"), dict) else {}  # noqa
    namespaces = {meta(o).get("namespace") or "default"
                  for res, objs in groups.items() if ka.RESOURCES[res].namespaced for o in objs}
    have = {meta(o).get("name") for o in groups.get("namespaces", [])}
    errors, total = [], 0
    # the missing ones made first, as the stand-in makes them (one that
    # exists is answered 409; one that fails is counted)
    ns_errors = []
    _create_all(server, [("namespaces", {"metadata": {"name": n}}) for n in sorted(namespaces - have)], ns_errors)
    for res in sorted(groups, key=lambda r: order.index(r) if r in order else len(order)):
        total += len(groups[res])
        _create_all(server, [(res, o) for o in groups[res]], errors)
    try:
        code, ns = Client(server).request("GET", "/api/v1/namespaces?limit=1")
        rv = (ns or {}).get("metadata", {}).get("resourceVersion") if code == 200 else None
    except (OSError, ValueError, http.client.HTTPException):
        rv = None
    out = {"created": total - len(errors), "errorCount": len(ns_errors) + len(errors),
           "errors": (ns_errors + errors)[:100], "resourceVersion": rv}
    errors = ns_errors + errors
    return (422 if errors else 200), out


def _audit_entries(server):
    path = server["audit_log"]
    start = 0
    try:
        with open(path + ".cleared") as f:
            start = int(f.read().strip() or 0)
    except (OSError, ValueError):
        pass
    items = []
    try:
        f = open(path, "rb")
    except OSError:
        return items
    with f:
        f.seek(start)
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue  # a line still being written
            ref = e.get("objectRef") or {}
            if e.get("stage") != "ResponseComplete" or e.get("verb") != "create" or not (
                    (ref.get("resource") == "pods" and ref.get("subresource") == "binding") or
                    (ref.get("resource") == "bindings" and not ref.get("subresource"))):
                continue
            b = e.get("requestObject") if isinstance(e.get("requestObject"), dict) else {}
            md = b.get("metadata") if isinstance(b.get("metadata"), dict) else {}
            target = b.get("target") if isinstance(b.get("target"), dict) else {}
            code = (e.get("responseStatus") or {}).get("code")
            entry = {"time": e.get("stageTimestamp"), "namespace": ref.get("namespace"),
                     "pod": ref.get("name") or md.get("name"), "uid": md.get("uid"), "node": target.get("name"),
                     "code": code, "result": "Bound" if code == 201 else (e.get("responseStatus") or {}).get("reason"),
                     "message": (e.get("responseStatus") or {}).get("message")}
            if code == 201:
                entry["podUID"] = md.get("uid")  # a precondition the server checked
            entry["seq"] = len(items) + 1
            items.append(entry)
    return items


def bindings(server, method, params):
    if method == "DELETE":
        size = os.path.getsize(server["audit_log"]) if os.path.exists(server["audit_log"]) else 0
        ka._write(server["audit_log"] + ".cleared", "%d\n" % size)
        return 200, []
    return 200, ka.bindings_view(_audit_entries(server), params)


def answer(server, method, path, body):
    """(code, decoded body) for a /debug/ path, against a real server"""
    u = urllib.parse.urlsplit(path)
    params = dict(urllib.parse.parse_qsl(u.query))
    if u.path == "/debug/bulk" and method == "POST":
        try:
            b = json.loads(body) if body else None
        except ValueError as e:
            return 400, {"message": "bulk: %s" % e}
        return bulk(server, b)
    if u.path == "/debug/bindings" and method in ("GET", "DELETE"):
        return bindings(server, method, params)
    return 501, {"message": "%s %s: only the stand-in API server has it (a real kube-apiserver runs: "
                            "KUBE_APISERVER_BIN is set)" % (method, u.path)}
