#!/usr/bin/env python3
"""The WaitForFirstConsumer workload of the API bench (api.sh): pods whose
claims the stand-in API server provisions during the run, once the
scheduler's PreBind has annotated them volume.kubernetes.io/selected-node.

    wffc.py SERVER_JSON objects PODS NODES   the StorageClass, the nodes, the claims
    wffc.py SERVER_JSON run PODS             the pods, timed; then the outcome checked

objects: a StorageClass "wffc" (volumeBindingMode WaitForFirstConsumer,
provisioner wffc.csi.example.com), NODES nodes wffc-node-<i> in three zones
(topology.kubernetes.io/zone zone-<i % 3>; 4 cpu, 32Gi, 110 pods), and, in
namespace wffc, PODS claims claim-<i> of that class (ReadWriteOnce, 1Gi),
unbound: no volume exists for them.

run: PODS pods pod-<i> (100m, 500Mi), each with its own claim-<i> as volume
"vol", created at once; the clock runs from just before that request until
the stand-in's record shows PODS bindings that succeeded (polled every 20
ms over one connection).  Prints
    wffc_provisioned_pvs: <pods/s> pods/s
    wffc: <detail>
and exits 1 with "wffc bench: ..." on standard error when the outcome is
wrong: a pod not bound exactly once, or bound before its claim; a claim not
bound to the volume provisioned for it, or annotated for another node than
its pod's; a volume not in its pod's node's zone (label and nodeAffinity),
or whose nodeAffinity the node does not match; a volume more or fewer than
the claims.  Python 3 standard library only.
"""
import http.client
import json
import ssl
import sys
import time

DRIVER = "wffc.csi.example.com"
NS = "wffc"
ZONE = "topology.kubernetes.io/zone"
SELECTED = "volume.kubernetes.io/selected-node"


class Api:
    def __init__(self, server_json):
        s = json.load(open(server_json))
        self.ctx = ssl.create_default_context(cafile=s["ca"])
        self.port = s["port"]
        self.hdr = {"Authorization": "Bearer " + s["token"], "Content-Type": "application/json"}
        self.conn = None

    def req(self, method, path, body=None):
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=600)
            try:
                self.conn.request(method, path, json.dumps(body) if body is not None else None, self.hdr)
                r = self.conn.getresponse()
                data = r.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn = None
                if attempt:
                    raise
        if r.status >= 400:
            fail("%s %s: HTTP %d: %s" % (method, path, r.status, data[:300].decode(errors="replace")))
        return json.loads(data)

    def items(self, path):
        return self.req("GET", path)["items"]


def fail(msg):
    sys.stderr.write("wffc bench: %s\n" % msg)
    sys.exit(1)


def bulk(api, body):
    out = api.req("POST", "/debug/bulk", body)
    if out["errorCount"]:
        fail("bulk load: %d errors, first: %s" % (out["errorCount"], out["errors"][0]))


def objects(api, pods, nodes):
    bulk(api, {"storageclasses": [{
        "metadata": {"name": "wffc"}, "provisioner": DRIVER, "volumeBindingMode": "WaitForFirstConsumer",
        "reclaimPolicy": "Delete"}]})
    for z in range(3):
        start = nodes * z // 3
        bulk(api, {"generate": {"nodes": {
            "count": nodes * (z + 1) // 3 - start, "start": start, "prefix": "wffc-node-",
            "cpu": "4", "memory": "32Gi", "pods": "110", "labels": {ZONE: "zone-%d" % z}}}})
    bulk(api, {"namespaces": [{"metadata": {"name": NS}}], "persistentvolumeclaims": [{
        "metadata": {"name": "claim-%d" % i, "namespace": NS},
        "spec": {"storageClassName": "wffc", "accessModes": ["ReadWriteOnce"],
                 "resources": {"requests": {"storage": "1Gi"}}}} for i in range(pods)]})


def node_matches(terms, labels):
    """A required nodeSelectorTerms list (In, NotIn, Exists, DoesNotExist)
    against a node's labels: one term whose every expression holds."""
    for t in terms or []:
        ok = True
        for e in t.get("matchExpressions") or []:
            v = labels.get(e.get("key"))
            op = e.get("operator")
            if op == "In":
                ok = v is not None and v in (e.get("values") or [])
            elif op == "NotIn":
                ok = v is None or v not in (e.get("values") or [])
            elif op == "Exists":
                ok = v is not None
            elif op == "DoesNotExist":
                ok = v is None
            else:
                ok = False
            if not ok:
                break
        if ok and t.get("matchExpressions") and not t.get("matchFields"):
            return True
    return False


def check(api, pods, seconds):
    nodes = {n["metadata"]["name"]: n for n in api.items("/api/v1/nodes")}
    podmap = {p["metadata"]["name"]: p for p in api.items("/api/v1/namespaces/%s/pods" % NS)}
    claims = {c["metadata"]["name"]: c for c in api.items("/api/v1/namespaces/%s/persistentvolumeclaims" % NS)}
    pvs = {v["metadata"]["name"]: v for v in api.items("/api/v1/persistentvolumes")}
    summary = api.req("GET", "/debug/bindings?summary=1")
    binds = [b for b in api.req("GET", "/debug/bindings") if b["namespace"] == NS]
    events = [e for e in api.items("/api/v1/namespaces/%s/events" % NS) if e.get("reason") == "ProvisioningFailed"]
    if len(podmap) != pods or len(claims) != pods:
        fail("%d pods and %d claims in the API, %d expected" % (len(podmap), len(claims), pods))
    if len(pvs) != pods:
        fail("%d volumes provisioned for %d claims" % (len(pvs), pods))
    bound_rv = {b["pod"]: int(b["resourceVersion"]) for b in binds if b["code"] == 201}
    zones = {}
    for i in range(pods):
        name = "pod-%d" % i
        p = podmap.get(name)
        s = summary.get("%s/%s" % (NS, name))
        if p is None or s is None or s["succeeded"] != 1:
            fail("pod %s/%s bound %s times, once expected" % (NS, name, s["succeeded"] if s else 0))
        node = p["spec"].get("nodeName")
        if not node or node not in nodes or s["nodes"] != [node]:
            fail("pod %s/%s: on node %r, its binding to %s" % (NS, name, node, s["nodes"]))
        c = claims["claim-%d" % i]
        md = c["metadata"]
        ann = md.get("annotations") or {}
        vname = c["spec"].get("volumeName")
        if c["status"].get("phase") != "Bound" or vname != "pvc-" + md["uid"] or \
                ann.get("pv.kubernetes.io/bind-completed") != "yes":
            fail("claim %s/%s: phase %s, volume %r: not bound to the volume provisioned for it"
                 % (NS, md["name"], c["status"].get("phase"), vname))
        if ann.get(SELECTED) != node:
            fail("claim %s/%s annotated for node %r, its pod is on %s" % (NS, md["name"], ann.get(SELECTED), node))
        if bound_rv[name] <= int(md["resourceVersion"]):
            fail("pod %s/%s bound (resourceVersion %d) before its claim was (%s)"
                 % (NS, name, bound_rv[name], md["resourceVersion"]))
        v = pvs.get(vname)
        labels = nodes[node]["metadata"].get("labels") or {}
        zone = labels.get(ZONE)
        if v is None or (v["spec"].get("claimRef") or {}).get("uid") != md["uid"] or \
                v["status"].get("phase") != "Bound" or (v["spec"].get("csi") or {}).get("driver") != DRIVER:
            fail("volume %s: not the bound CSI volume of claim %s/%s" % (vname, NS, md["name"]))
        terms = (((v["spec"].get("nodeAffinity") or {}).get("required") or {}).get("nodeSelectorTerms"))
        if zone is None or (v["metadata"].get("labels") or {}).get(ZONE) != zone or \
                terms != [{"matchExpressions": [{"key": ZONE, "operator": "In", "values": [zone]}]}] or \
                not node_matches(terms, labels):
            fail("volume %s of pod %s/%s on node %s (zone %s): not in that zone (labels %s, nodeAffinity %s)"
                 % (vname, NS, name, node, zone, v["metadata"].get("labels"), json.dumps(terms)))
        zones[zone] = zones.get(zone, 0) + 1
    failed = sum(1 for b in binds if b["code"] != 201)
    used = len({p["spec"]["nodeName"] for p in podmap.values()})
    print("wffc_provisioned_pvs: %d pods/s" % round(pods / seconds))
    print("wffc: %d pods, each with its own WaitForFirstConsumer claim provisioned by the stand-in after "
          "PreBind's selected-node, bound in %.2f s: every claim bound to its volume, every volume in its "
          "pod's node's zone (%s), every pod bound once, after its claim, on %d of %d nodes; %d bindings "
          "refused, %d provisioning failures"
          % (pods, seconds, ", ".join("%s %d" % z for z in sorted(zones.items())), used, len(nodes), failed,
             len(events)))


def run(api, pods):
    body = {"pods": [{
        "metadata": {"name": "pod-%d" % i, "namespace": NS},
        "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}],
                 "volumes": [{"name": "vol", "persistentVolumeClaim": {"claimName": "claim-%d" % i}}]}}
        for i in range(pods)]}
    deadline = time.time() + 600
    t0 = time.time()
    bulk(api, body)
    while api.req("GET", "/debug/state")["bindings"]["succeeded"] < pods:
        if time.time() > deadline:
            fail("timed out: %d of %d pods bound after 600 s"
                 % (api.req("GET", "/debug/state")["bindings"]["succeeded"], pods))
        time.sleep(0.02)
    t1 = time.time()
    check(api, pods, t1 - t0)


def main(argv):
    if len(argv) < 4 or argv[2] not in ("objects", "run"):
        sys.stderr.write(__doc__)
        return 2
    api = Api(argv[1])
    if argv[2] == "objects":
        objects(api, int(argv[3]), int(argv[4]))
    else:
        run(api, int(argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
