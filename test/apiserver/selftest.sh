#!/usr/bin/env bash
# Self-test of test/apiserver/kube_apiserver.py, the stand-in Kubernetes API
# server: it starts the server on a free port and talks to it with real
# clients -- Debian's kubectl 1.20 (package kubernetes-client), the Python
# `kubernetes` client 22.6 (python3-kubernetes) and curl -- including
# PodDisruptionBudgets (policy/v1) and the status its disruption controller
# computes, events through core/v1 and events.k8s.io/v1 (one store, two
# views: conversion, validation, series patches, kubectl's event table),
# Services, ReplicationControllers (v1), ReplicaSets and
# StatefulSets (apps/v1), and the storage kinds with what its PV controller
# and provisioner do (binding, provisioning, the provision_fail fault), then
# checks the test hooks (faults, bindings record, bulk load, thread hygiene).
#
# Output is TAP: "ok N - ..." / "not ok N - ..." lines, then the plan "1..N".
# Exits non-zero when a check fails.  Takes about 40-60 s.
#
# Environment: KUBECTL=/path/to/kubectl to use another kubectl;
# SELFTEST_KEEP=1 keeps the work folder (its path is printed).
#
# Packages: installs kubernetes-client, python3-kubernetes, openssl and curl
# when missing.  When /usr/bin/kubectl belongs to another package (for
# example Google Cloud SDK's kubectl), kubernetes-client cannot be installed
# beside it, so its kubectl is unpacked into /var/cache/scheduler-test instead.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SERVER=$HERE/kube_apiserver.py
T_START=$(date +%s)

n=0
failed=0
emit() { # status desc [details...]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		if [ -n "${3:-}" ]; then printf '%s\n' "$3" | tail -n 25 | sed 's/^/#   /'; fi
	fi
}
# check DESC FUNCTION [ARGS...]: runs FUNCTION in a subshell with errexit on;
# its output is shown only when it fails.
check() {
	local desc=$1 out rc
	shift
	out=$(set -eo pipefail; "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then emit ok "$desc"; else emit fail "$desc" "$out"; fi
}
finish() {
	echo "# $((n - failed)) passed, $failed failed ($(($(date +%s) - T_START)) s)"
	echo "1..$n"
	[ "$failed" -eq 0 ]
	exit $?
}

# ------------------------------------------------------------ packages
. "$HERE/../apt.sh"	# apt_get: waits for apt's locks, shows its errors
APT_UPDATED=
apt_update() {
	[ -n "$APT_UPDATED" ] && return 0
	APT_UPDATED=1
	apt_get update -qq
}
apt_install() {
	[ $# -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ]; then
		echo "# cannot install $* (not root)" >&2
		return 1
	fi
	apt_update
	apt_get install -y -qq "$@"
}

PY=python3
command -v "$PY" >/dev/null 2>&1 || PY=/usr/bin/python3
missing=()
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v curl >/dev/null 2>&1 || missing+=(curl)
PYK=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import kubernetes' >/dev/null 2>&1; then PYK=$p; break; fi
done
[ -n "$PYK" ] || missing+=(python3-kubernetes)

kubectl_is_debian() { dpkg-query -W -f='${Status}' kubernetes-client 2>/dev/null | grep -q 'install ok installed'; }
CACHE=${SCHEDULER_TEST_CACHE:-/var/cache/scheduler-test}
if [ -z "${KUBECTL:-}" ]; then
	if kubectl_is_debian; then
		KUBECTL=/usr/bin/kubectl
	elif [ -x "$CACHE/kubernetes-client/usr/bin/kubectl" ]; then
		KUBECTL=$CACHE/kubernetes-client/usr/bin/kubectl
	elif [ ! -e /usr/bin/kubectl ]; then
		missing+=(kubernetes-client)
		KUBECTL=/usr/bin/kubectl
	fi
fi
apt_install "${missing[@]}" || echo "# apt-get install ${missing[*]} failed" >&2
if [ -z "${KUBECTL:-}" ]; then
	# /usr/bin/kubectl belongs to another package: unpack Debian's beside it.
	dl=$(mktemp -d)
	chmod 755 "$dl"
	( cd "$dl" && { apt-get download -qq kubernetes-client >/dev/null 2>&1 ||
		{ apt_update; apt-get download -qq kubernetes-client >/dev/null 2>&1; }; } )
	deb=$(ls "$dl"/kubernetes-client_*.deb 2>/dev/null | head -n1)
	if [ -n "$deb" ]; then
		mkdir -p "$CACHE" 2>/dev/null || CACHE=${TMPDIR:-/tmp}/scheduler-test-cache
		mkdir -p "$CACHE"
		rm -rf "$CACHE/kubernetes-client"
		dpkg-deb -x "$deb" "$CACHE/kubernetes-client"
	fi
	rm -rf "$dl"
	KUBECTL=$CACHE/kubernetes-client/usr/bin/kubectl
fi
if [ -z "$PYK" ]; then
	for p in /usr/bin/python3 python3; do
		if "$p" -c 'import kubernetes' >/dev/null 2>&1; then PYK=$p; break; fi
	done
fi
echo "# kubectl: $KUBECTL ($("$KUBECTL" version --client --short 2>/dev/null || echo missing))"
echo "# python with kubernetes: ${PYK:-missing} ($("${PYK:-false}" -c 'import kubernetes; print(kubernetes.__version__)' 2>/dev/null))"

# ------------------------------------------------------------ server
WORK=$(mktemp -d /tmp/kube-apiserver-selftest.XXXXXX)
CERTS=$WORK/certs
mkdir -p "$WORK/home"
SPID=
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}" $SPID; do kill "$p" 2>/dev/null; done
	# the servers were started in command substitutions: not our children, so poll
	for p in "${PIDS[@]}" $SPID; do
		for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
	if [ -n "${SELFTEST_KEEP:-}" ]; then echo "# kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server() { # outfile args...
	local out=$1
	shift
	"$PY" "$SERVER" --port 0 "$@" >"$out" 2>"$out.err" &
	local pid=$! i
	for i in $(seq 1 150); do
		grep -q '^READY ' "$out" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "$pid"
}
SPID=$(start_server "$WORK/server.out" --cert-dir "$CERTS" --bookmark-interval 10)
URL=$(sed -n 's/^READY //p' "$WORK/server.out")
TOKEN=$(cat "$CERTS/token" 2>/dev/null)
CA=$CERTS/ca.crt
KC=$CERTS/kubeconfig

t_started() {
	[ -n "$URL" ] || { cat "$WORK/server.out" "$WORK/server.out.err"; return 1; }
	echo "url=$URL"
	case $URL in https://127.0.0.1:[0-9]*) ;; *) return 1 ;; esac
	for f in ca.crt server.crt server.key token kubeconfig server.json; do [ -s "$CERTS/$f" ]; done
	openssl verify -CAfile "$CA" "$CERTS/server.crt"
	openssl x509 -in "$CERTS/server.crt" -noout -text | grep -q 'IP Address:127.0.0.1'
	grep -q "server: $URL" "$KC"
	# listening on 127.0.0.1 only (not 0.0.0.0)
	"$PY" - "$URL" <<-'EOF'
		import sys, urllib.parse
		port = urllib.parse.urlsplit(sys.argv[1]).port
		local = [l.split()[1] for l in open("/proc/net/tcp").read().splitlines()[1:] if l.split()[3] == "0A"]
		mine = [a for a in local if int(a.split(":")[1], 16) == port]
		assert mine == ["0100007F:%04X" % port], mine
	EOF
}
check "server starts on a free port, writes CA, cert, token and kubeconfig, listens on 127.0.0.1 only" t_started
if [ -z "$URL" ]; then finish; fi

# ------------------------------------------------------------ helpers
K() { HOME=$WORK/home "$KUBECTL" --kubeconfig "$KC" "$@"; }
api() { curl -sS --cacert "$CA" -H "Authorization: Bearer $TOKEN" "$@"; }
# api_code METHOD PATH [curl args]: prints the HTTP status; the body goes to $WORK/body
api_code() {
	local m=$1 p=$2
	shift 2
	api -o "$WORK/body" -w '%{http_code}' -X "$m" "$@" "$URL$p"
}
post_json() { api_code POST "$1" -H 'Content-Type: application/json' --data-binary "$2"; }
merge_patch() { api_code PATCH "$1" -H 'Content-Type: application/merge-patch+json' --data-binary "$2"; }
fault() { api -X POST -H 'Content-Type: application/json' --data-binary "$1" "$URL/debug/faults" >/dev/null; }
# js EXPR < json: runs python with d = the JSON document; EXPR is statements
js() { "$PY" -c "import json,sys
d=json.load(sys.stdin)
$1"; }
mkpod() { # name [namespace] [extra json for metadata]
	printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"%s"%s},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}}' \
		"$1" "${2:-default}" "${3:-}"
}
wait_watches() { # count: wait until the server has at least count open watches
	local i
	for i in $(seq 1 100); do
		[ "$(api "$URL/debug/state" | js 'print(d["activeWatches"])')" -ge "$1" ] && return 0
		sleep 0.1
	done
	echo "watches never reached $1"
	return 1
}
# js_lines EXPR < watch stream: evs = the events, one JSON per line
js_lines() { "$PY" -c "import json,sys
evs=[json.loads(l) for l in sys.stdin if l.strip()]
$1"; }
cur_rv() { api "$URL/debug/state" | js 'print(d["resourceVersion"])'; }

# ------------------------------------------------------------ 1. kubectl
cat >"$WORK/node.yaml" <<'EOF'
apiVersion: v1
kind: Node
metadata:
  name: kn1
  labels:
    zone: a
status:
  capacity:
    cpu: "4"
    memory: 8Gi
    pods: "110"
  conditions:
  - type: Ready
    status: "True"
EOF
mkpod kp1 >"$WORK/pod.json"

t_kubectl_version() {
	local out
	out=$(K version)
	echo "$out"
	grep -q 'Client Version.*Minor:"20"' <<<"$out"
	grep -q 'Server Version.*GitVersion:"v1.20.2"' <<<"$out"
}
check "kubectl 1.20 version reaches the server (discovery, TLS, token)" t_kubectl_version

t_kubectl_create() {
	local out
	out=$(K create -f "$WORK/node.yaml")
	echo "$out"
	grep -q 'node/kn1 created' <<<"$out"
	out=$(K create -f "$WORK/pod.json")
	echo "$out"
	grep -q 'pod/kp1 created' <<<"$out"
	if out=$(K create -f "$WORK/pod.json" 2>&1); then echo "duplicate create succeeded"; return 1; fi
	echo "$out"
	grep -q 'AlreadyExists' <<<"$out"
}
check "kubectl create -f a Node (YAML) and a Pod (JSON); a duplicate gets AlreadyExists" t_kubectl_create

t_kubectl_get_json() {
	K get nodes -o json >"$WORK/nodes.json"
	js 'n=[i for i in d["items"] if i["metadata"]["name"]=="kn1"][0]
assert n["status"]["allocatable"]["cpu"]=="4", n
assert n["metadata"]["uid"] and int(n["metadata"]["resourceVersion"])>0' <"$WORK/nodes.json"
	K get pods -o json >"$WORK/pods.json"
	js 'p=[i for i in d["items"] if i["metadata"]["name"]=="kp1"][0]
assert p["status"]["phase"]=="Pending" and p["spec"]["schedulerName"]=="default-scheduler", p
assert p["metadata"]["creationTimestamp"].endswith("Z") and p["metadata"]["uid"]' <"$WORK/pods.json"
	# the raw list: items have no kind, the list has a resourceVersion
	api "$URL/api/v1/namespaces/default/pods" | js 'assert d["kind"]=="PodList" and int(d["metadata"]["resourceVersion"])>0
assert all("kind" not in i for i in d["items"]), d'
}
check "kubectl get nodes/pods -o json returns them (uid, resourceVersion, defaults)" t_kubectl_get_json

t_default_tolerations() {
	# the DefaultTolerationSeconds admission plugin: not-ready and unreachable,
	# NoExecute, 300 s, unless a toleration of the key (or of every key) with
	# effect NoExecute (or every effect) is there
	[ "$(post_json /api/v1/namespaces/default/pods "$(mkpod tol-none)")" = 201 ]
	js 't=[(x["key"],x["operator"],x["effect"],x["tolerationSeconds"]) for x in d["spec"]["tolerations"]]
assert t==[("node.kubernetes.io/not-ready","Exists","NoExecute",300),("node.kubernetes.io/unreachable","Exists","NoExecute",300)], t' <"$WORK/body"
	[ "$(post_json /api/v1/namespaces/default/pods '{"metadata":{"name":"tol-all"},"spec":{"tolerations":[{"operator":"Exists"}],"containers":[{"name":"c","image":"pause"}]}}')" = 201 ]
	js 'assert d["spec"]["tolerations"]==[{"operator":"Exists"}], d["spec"]' <"$WORK/body"
	[ "$(post_json /api/v1/namespaces/default/pods '{"metadata":{"name":"tol-nr"},"spec":{"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":5}],"containers":[{"name":"c","image":"pause"}]}}')" = 201 ]
	js 't=[(x["key"],x.get("tolerationSeconds")) for x in d["spec"]["tolerations"]]
assert t==[("node.kubernetes.io/not-ready",5),("node.kubernetes.io/unreachable",300)], t' <"$WORK/body"
	for p in tol-none tol-all tol-nr; do [ "$(api_code DELETE /api/v1/namespaces/default/pods/$p)" = 200 ]; done
}
check "pods get DefaultTolerationSeconds' tolerations unless they tolerate the taint already" t_default_tolerations

t_namespace_label() {
	# SetDefaults_Namespace: kubernetes.io/metadata.name, on create and on
	# every update, the initial namespaces too
	[ "$(post_json /api/v1/namespaces '{"metadata":{"name":"lbl","labels":{"team":"a"}}}')" = 201 ]
	js 'assert d["metadata"]["labels"]=={"team":"a","kubernetes.io/metadata.name":"lbl"}, d' <"$WORK/body"
	[ "$(merge_patch /api/v1/namespaces/lbl '{"metadata":{"labels":{"kubernetes.io/metadata.name":"other"}}}')" = 200 ]
	js 'assert d["metadata"]["labels"]["kubernetes.io/metadata.name"]=="lbl", d' <"$WORK/body"
	api "$URL/api/v1/namespaces/kube-system" | js 'assert d["metadata"]["labels"]=={"kubernetes.io/metadata.name":"kube-system"}, d'
	[ "$(api_code DELETE /api/v1/namespaces/lbl)" = 200 ]
}
check "namespaces carry the label kubernetes.io/metadata.name, kept equal to the name" t_namespace_label

t_kubectl_get_table() {
	local out
	out=$(K get pods -o wide)
	echo "$out"
	grep -Eq '^kp1 +0/1 +Pending' <<<"$out"
	out=$(K get nodes)
	echo "$out"
	grep -Eq '^kn1 +Ready' <<<"$out"
	out=$(K get pods --field-selector spec.nodeName= -l 'app notin (zz)' -o name)
	echo "$out"
	grep -q 'pod/kp1' <<<"$out"
}
check "kubectl get (server-side Table printing, -o wide, selectors)" t_kubectl_get_table

t_kubectl_delete() {
	local out
	out=$(K delete pod kp1)
	echo "$out"
	grep -q 'pod "kp1" deleted' <<<"$out"
	if out=$(K get pod kp1 2>&1); then echo "still there: $out"; return 1; fi
	echo "$out"
	grep -q 'NotFound' <<<"$out"
}
check "kubectl delete pod; the pod is gone (NotFound)" t_kubectl_delete

t_kubectl_watch() {
	(K get pods -w --request-timeout=4s >"$WORK/kw1.out" 2>&1 || true) &
	local w1=$!
	(K get pods -w --request-timeout=4s -o json --output-watch-events >"$WORK/kw2.out" 2>&1 || true) &
	local w2=$!
	wait_watches 2
	[ "$(post_json /api/v1/namespaces/default/pods "$(mkpod kw1)")" = 201 ]
	wait $w1 $w2
	echo "--- table watch:"
	cat "$WORK/kw1.out"
	echo "--- json watch:"
	head -c 600 "$WORK/kw2.out"
	grep -Eq '^kw1 +0/1 +Pending' "$WORK/kw1.out"
	"$PY" - "$WORK/kw2.out" <<-'EOF'
		import json, sys
		text = open(sys.argv[1]).read()
		dec, i, evs = json.JSONDecoder(), 0, []
		while True:
		    while i < len(text) and text[i].isspace(): i += 1
		    if i >= len(text) or text[i] != "{": break
		    o, i = dec.raw_decode(text, i); evs.append(o)
		assert any(e["type"] == "ADDED" and e["object"]["metadata"]["name"] == "kw1" for e in evs), evs
	EOF
}
check "kubectl get pods -w (table and --output-watch-events) sees a pod created by curl" t_kubectl_watch

# ------------------------------------------------------------ 2. python client
cat >"$WORK/pyclient.py" <<'EOF'
import json, sys, threading, time, traceback
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

def result(ok, desc, detail=""):
    print(("PASS " if ok else "FAIL ") + desc + ((" :: " + detail.replace("\n", " | ")) if detail and not ok else ""),
          flush=True)

def pod(name):
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name, labels={"test": "py"}),
                        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="pause:3.9")]))

def binding(name, node, uid=None):
    return client.V1Binding(metadata=client.V1ObjectMeta(name=name, uid=uid),
                            target=client.V1ObjectReference(kind="Node", name=node))

try:
    config.load_kube_config(config_file=sys.argv[1])
    v1 = client.CoreV1Api()
    names = [n.metadata.name for n in v1.list_node().items]
    result("kn1" in names, "python client: load_kube_config + list_node", repr(names))

    r = v1.create_namespaced_pod("default", pod("py1"))
    got = v1.read_namespaced_pod("py1", "default")
    result(r.metadata.uid and got.metadata.uid == r.metadata.uid and got.status.phase == "Pending",
           "python client: create_namespaced_pod / read_namespaced_pod", repr(r.metadata))

    errors = []
    def writer():
        try:
            time.sleep(0.5)
            v1.create_namespaced_pod("default", pod("py2"))
            resp = v1.create_namespaced_binding("default", binding("py2", "kn1"), _preload_content=False)
            errors.append(("bind-status", resp.status))
        except Exception as e:  # reported by the main thread
            errors.append(("writer", repr(e)))
    t = threading.Thread(target=writer)
    t.start()
    seen = []
    t0 = time.time()
    for ev in watch.Watch().stream(v1.list_namespaced_pod, "default", label_selector="test=py", timeout_seconds=3):
        o = ev["object"]
        seen.append((ev["type"], o.metadata.name, o.spec.node_name))
    elapsed = time.time() - t0
    t.join()
    ok = ("ADDED", "py1", None) in seen and ("ADDED", "py2", None) in seen and ("MODIFIED", "py2", "kn1") in seen
    result(ok and 2.5 < elapsed < 6, "python client: watch.Watch().stream(list_namespaced_pod, timeout_seconds=3) "
           "sees ADDED and the binding's MODIFIED, ends on time", "%r %r %.1fs" % (seen, errors, elapsed))

    result(("bind-status", 201) in errors, "python client: create_namespaced_binding -> 201", repr(errors))
    try:
        v1.create_namespaced_binding("default", binding("py2", "kn1"), _preload_content=False)
        result(False, "python client: second binding -> 409 Conflict", "no error")
    except ApiException as e:
        body = json.loads(e.body)
        result(e.status == 409 and body["reason"] == "Conflict" and
               'pod py2 is already assigned to node "kn1"' in body["message"],
               "python client: second binding -> 409 Conflict 'already assigned'", "%s %s" % (e.status, e.body))
    # pods/{name}/binding through the api_client, with a uid precondition
    uid = v1.read_namespaced_pod("py1", "default").metadata.uid
    resp = v1.api_client.call_api("/api/v1/namespaces/{namespace}/pods/{name}/binding", "POST",
                                  path_params={"namespace": "default", "name": "py1"},
                                  body={"apiVersion": "v1", "kind": "Binding",
                                        "metadata": {"name": "py1", "uid": uid},
                                        "target": {"kind": "Node", "name": "kn1"}},
                                  header_params={"Content-Type": "application/json", "Accept": "application/json"},
                                  auth_settings=["BearerToken"], _preload_content=False)
    result(resp[1] == 201 and v1.read_namespaced_pod("py1", "default").spec.node_name == "kn1",
           "python client: raw POST pods/py1/binding (uid precondition) via api_client -> 201", repr(resp[1]))
except Exception:
    result(False, "python client run", traceback.format_exc())
EOF
if [ -n "$PYK" ]; then
	pyout=$(HOME=$WORK/home timeout 60 "$PYK" "$WORK/pyclient.py" "$KC" 2>&1)
	while IFS= read -r line; do
		case $line in
		PASS\ *) emit ok "${line#PASS }" ;;
		FAIL\ *) emit fail "${line#FAIL }" "${line#* :: }" ;;
		esac
	done <<<"$pyout"
	grep -qE '^(PASS|FAIL) ' <<<"$pyout" || emit fail "python client script ran" "$pyout"
else
	emit fail "python3 kubernetes client available"
fi

t_bindings_record() {
	api "$URL/debug/bindings?pod=default/py2" >"$WORK/b.json"
	cat "$WORK/b.json"
	echo
	js 'ok=[e for e in d if e["code"]==201]; bad=[e for e in d if e["code"]==409]
assert len(ok)==1 and ok[0]["node"]=="kn1" and ok[0]["podUID"], d
assert len(bad)==1 and "already assigned" in bad[0]["message"], d' <"$WORK/b.json"
	api "$URL/debug/bindings?summary=1" | js 's=d["default/py2"]; assert s["succeeded"]==1 and s["attempts"]==2, d'
}
check "/debug/bindings records every binding request: py2 bound exactly once, one 409" t_bindings_record

t_binding_errors() {
	local uid
	[ "$(post_json /api/v1/namespaces/default/pods/nosuch/binding \
		'{"apiVersion":"v1","kind":"Binding","metadata":{"name":"nosuch"},"target":{"kind":"Node","name":"kn1"}}')" = 404 ]
	js 'assert d["kind"]=="Status" and d["reason"]=="NotFound" and d["code"]==404, d' <"$WORK/body"
	[ "$(post_json /api/v1/namespaces/default/pods "$(mkpod bu1)")" = 201 ]
	[ "$(post_json /api/v1/namespaces/default/pods/bu1/binding \
		'{"metadata":{"name":"bu1","uid":"00000000-0000-0000-0000-000000000000"},"target":{"kind":"Node","name":"kn1"}}')" = 409 ]
	cat "$WORK/body"
	grep -q 'Precondition failed: UID' "$WORK/body"
	[ "$(post_json /api/v1/namespaces/default/pods/bu1/binding \
		'{"metadata":{"name":"other"},"target":{"kind":"Node","name":"kn1"}}')" = 400 ]
	uid=$(api "$URL/api/v1/namespaces/default/pods/bu1" | js 'print(d["metadata"]["uid"])')
	[ "$(post_json /api/v1/namespaces/default/pods/bu1/binding \
		"{\"metadata\":{\"name\":\"bu1\",\"uid\":\"$uid\"},\"target\":{\"kind\":\"Node\",\"name\":\"kn1\"}}")" = 201 ]
	js 'assert d=={"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}, d' <"$WORK/body"
	api "$URL/api/v1/namespaces/default/pods/bu1" | js 'assert d["spec"]["nodeName"]=="kn1"
c=[c for c in d["status"]["conditions"] if c["type"]=="PodScheduled"][0]; assert c["status"]=="True", d'
	api "$URL/debug/bindings?pod=default/bu1" | js 'assert [e["code"] for e in d]==[409,400,201], d'
	api "$URL/debug/bindings?pod=default/nosuch" | js 'assert [e["code"] for e in d]==[404], d'
}
check "binding: 404 for a missing pod, 409 on uid mismatch, 400 on name mismatch, 201 + PodScheduled" t_binding_errors

# ------------------------------------------------------------ 3. lists, selectors, patches
t_field_selectors() {
	api "$URL/api/v1/pods?fieldSelector=spec.nodeName%3D" | js 'names={i["metadata"]["name"] for i in d["items"]}
assert "kw1" in names and "py2" not in names and "bu1" not in names, names'
	api "$URL/api/v1/pods?fieldSelector=spec.nodeName!%3D" | js 'names={i["metadata"]["name"] for i in d["items"]}
assert {"py2","bu1","py1"} <= names and "kw1" not in names, names'
	api "$URL/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dpy1,spec.nodeName%3Dkn1" |
		js 'assert [i["metadata"]["name"] for i in d["items"]]==["py1"], d'
	api "$URL/api/v1/pods?labelSelector=test%20in%20(py),test!%3Dzz" | js 'names={i["metadata"]["name"] for i in d["items"]}
assert names=={"py1","py2"}, names'
	[ "$(api_code GET '/api/v1/pods?fieldSelector=spec.bogus%3Dx')" = 400 ]
	js 'assert d["reason"]=="BadRequest", d' <"$WORK/body"
}
check "list: fieldSelector spec.nodeName=/!=, metadata.name, labelSelector; unknown field -> 400" t_field_selectors

t_paging() {
	local body i
	body='{"generate":{"pods":{"count":25,"prefix":"pg-","namespace":"paging"}}}'
	api -X POST -H 'Content-Type: application/json' --data-binary "$body" "$URL/debug/bulk" | js 'assert d["created"]==25, d'
	api "$URL/api/v1/namespaces/paging/pods?limit=10" >"$WORK/p1.json"
	js 'assert len(d["items"])==10 and d["metadata"]["continue"] and d["metadata"]["remainingItemCount"]==15, d["metadata"]' <"$WORK/p1.json"
	local rv cont
	rv=$(js 'print(d["metadata"]["resourceVersion"])' <"$WORK/p1.json")
	cont=$(js 'print(d["metadata"]["continue"])' <"$WORK/p1.json")
	# writes between pages must not show up: a consistent snapshot at rv
	[ "$(post_json /api/v1/namespaces/paging/pods "$(mkpod pg-zz paging)")" = 201 ]
	[ "$(api_code DELETE /api/v1/namespaces/paging/pods/pg-9)" = 200 ]
	api "$URL/api/v1/namespaces/paging/pods?limit=10&continue=$cont" >"$WORK/p2.json"
	cont=$(js 'assert d["metadata"]["resourceVersion"]=="'"$rv"'", d["metadata"]
print(d["metadata"]["continue"])' <"$WORK/p2.json")
	api "$URL/api/v1/namespaces/paging/pods?limit=10&continue=$cont" >"$WORK/p3.json"
	js 'assert "continue" not in d["metadata"], d["metadata"]' <"$WORK/p3.json"
	"$PY" - "$WORK"/p1.json "$WORK"/p2.json "$WORK"/p3.json <<-'EOF'
		import json, sys
		names = [i["metadata"]["name"] for f in sys.argv[1:] for i in json.load(open(f))["items"]]
		assert len(names) == 25 and len(set(names)) == 25, names
		assert "pg-zz" not in names and "pg-9" in names, names
	EOF
	# resourceVersion=0 is served from the "cache": no paging, as the real server
	api "$URL/api/v1/namespaces/paging/pods?limit=10&resourceVersion=0" | js 'assert len(d["items"])==25, len(d["items"])'
	# resourceVersionMatch=Exact gives the old state
	api "$URL/api/v1/namespaces/paging/pods?resourceVersion=$rv&resourceVersionMatch=Exact" |
		js 'n=[i["metadata"]["name"] for i in d["items"]]; assert "pg-9" in n and "pg-zz" not in n, n'
}
check "list paging: limit/continue over a consistent snapshot, remainingItemCount, RV=0 unpaged, Exact" t_paging

t_patches() {
	local rv
	# merge patch on /status: only the status changes
	[ "$(api_code PATCH /api/v1/namespaces/default/pods/py1/status -H 'Content-Type: application/merge-patch+json' \
		--data-binary '{"spec":{"nodeName":"elsewhere"},"metadata":{"labels":{"x":"y"}},"status":{"phase":"Running","podIP":"10.0.0.1"}}')" = 200 ]
	js 'assert d["status"]["phase"]=="Running" and d["status"]["podIP"]=="10.0.0.1"
assert d["spec"]["nodeName"]=="kn1" and "x" not in d["metadata"].get("labels",{}), d' <"$WORK/body"
	# strategic merge patch with a merge key list and $setElementOrder (what kube-scheduler sends)
	[ "$(api_code PATCH /api/v1/namespaces/default/pods/kw1/status -H 'Content-Type: application/strategic-merge-patch+json' \
		--data-binary '{"status":{"$setElementOrder/conditions":[{"type":"PodScheduled"}],"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/1 nodes are available"}],"nominatedNodeName":"kn1"}}')" = 200 ]
	js 'c=d["status"]["conditions"]; assert c==[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"0/1 nodes are available"}], c
assert d["status"]["nominatedNodeName"]=="kn1" and "$setElementOrder/conditions" not in d["status"], d["status"]' <"$WORK/body"
	# main resource: status is ignored, labels change, spec.nodeName is immutable (422)
	[ "$(api_code PATCH /api/v1/namespaces/default/pods/kw1 -H 'Content-Type: application/merge-patch+json' \
		--data-binary '{"metadata":{"labels":{"l":"v"}},"status":{"phase":"Failed"}}')" = 200 ]
	js 'assert d["metadata"]["labels"]["l"]=="v" and d["status"]["phase"]=="Pending", d' <"$WORK/body"
	[ "$(api_code PATCH /api/v1/namespaces/default/pods/kw1 -H 'Content-Type: application/merge-patch+json' \
		--data-binary '{"spec":{"nodeName":"kn1"}}')" = 422 ]
	js 'assert d["reason"]=="Invalid", d' <"$WORK/body"
	# json patch on a node, then optimistic concurrency: a stale resourceVersion gets 409
	[ "$(api_code PATCH /api/v1/nodes/kn1 -H 'Content-Type: application/json-patch+json' \
		--data-binary '[{"op":"add","path":"/spec/unschedulable","value":true}]')" = 200 ]
	api "$URL/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue" | js 'assert len(d["items"])==1, d'
	rv=$(api "$URL/api/v1/nodes/kn1" | js 'print(d["metadata"]["resourceVersion"])')
	[ "$(api_code PATCH /api/v1/nodes/kn1 -H 'Content-Type: application/merge-patch+json' \
		--data-binary "{\"metadata\":{\"resourceVersion\":\"1\"},\"spec\":{\"unschedulable\":false}}")" = 409 ]
	js 'assert d["reason"]=="Conflict" and "the object has been modified" in d["message"], d' <"$WORK/body"
	api "$URL/api/v1/nodes/kn1" | js 'd.pop("status"); d["spec"]["unschedulable"]=False; print(json.dumps(d))' >"$WORK/node-put.json"
	[ "$(api_code PUT /api/v1/nodes/kn1 -H 'Content-Type: application/json' --data-binary @"$WORK/node-put.json")" = 200 ]
	js 'assert d["spec"]["unschedulable"] is False and d["status"]["capacity"]["cpu"]=="4"' <"$WORK/body"
	[ "$(api_code PUT /api/v1/nodes/kn1 -H 'Content-Type: application/json' --data-binary @"$WORK/node-put.json")" = 409 ]
	# a no-op patch keeps the resourceVersion
	rv=$(api "$URL/api/v1/nodes/kn1" | js 'print(d["metadata"]["resourceVersion"])')
	[ "$(api_code PATCH /api/v1/nodes/kn1 -H 'Content-Type: application/merge-patch+json' --data-binary '{"spec":{"unschedulable":false}}')" = 200 ]
	js 'assert d["metadata"]["resourceVersion"]=="'"$rv"'", d["metadata"]' <"$WORK/body"
}
check "PATCH (merge, strategic with \$setElementOrder, json-patch), /status only, PUT, 409 on stale RV, 422" t_patches

t_events() {
	local ev='{"apiVersion":"v1","kind":"Event","metadata":{"name":"py1.1"},"involvedObject":{"kind":"Pod","namespace":"default","name":"py1"},"reason":"Scheduled","message":"Successfully assigned default/py1 to kn1","type":"Normal","source":{"component":"scheduler"}}'
	[ "$(post_json /api/v1/namespaces/default/events "$ev")" = 201 ]
	api "$URL/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dpy1,reason%3DScheduled" |
		js 'assert d["kind"]=="EventList" and len(d["items"])==1, d'
	K get events | grep -q 'Successfully assigned'
}
check "events: POST, list with fieldSelector, kubectl get events" t_events

# ------------------------------------------------------------ 3a. events.k8s.io/v1 (the same events, a second view)
micro_now() { date -u +%Y-%m-%dT%H:%M:%S.%6NZ; }
ev1() { # name [extra fields json, after a comma]: an events.k8s.io/v1 Event as kube-scheduler writes it
	printf '{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"%s","namespace":"default"},"eventTime":"%s","reportingController":"default-scheduler","reportingInstance":"default-scheduler-host","action":"Scheduling","reason":"FailedScheduling","regarding":{"kind":"Pod","namespace":"default","name":"evp","uid":"u-evp","apiVersion":"v1"},"note":"0/3 nodes are available","type":"Warning"%s}' \
		"$1" "$(micro_now)" "${2:-}"
}
EV1=/apis/events.k8s.io/v1/namespaces/default/events

t_events_v1_discovery() {
	api "$URL/apis" | js 'g=[g for g in d["groups"] if g["name"]=="events.k8s.io"][0]
assert g["versions"]==[{"groupVersion":"events.k8s.io/v1","version":"v1"}] and g["preferredVersion"]["groupVersion"]=="events.k8s.io/v1", d'
	api "$URL/apis/events.k8s.io" | js 'assert d["kind"]=="APIGroup" and d["name"]=="events.k8s.io", d'
	api "$URL/apis/events.k8s.io/v1" | js 'assert d["kind"]=="APIResourceList" and d["groupVersion"]=="events.k8s.io/v1", d
r=d["resources"]
assert len(r)==1 and r[0]["name"]=="events" and r[0]["singularName"]=="event" and r[0]["namespaced"] is True, r
assert r[0]["kind"]=="Event" and r[0]["shortNames"]==["ev"], r
assert sorted(r[0]["verbs"])==["create","delete","deletecollection","get","list","patch","update","watch"], r'
	local out
	out=$(K api-resources --api-group=events.k8s.io)
	echo "$out"
	grep -Eq '^events +ev +events.k8s.io/v1 +true +Event' <<<"$out"
	# kubectl still reads the core events (the core group comes first)
	K get events -o name | grep -q '^event/py1.1$'
}
check "events.k8s.io/v1 discovery: /apis, /apis/events.k8s.io, /apis/events.k8s.io/v1 (events, ev); kubectl api-resources" t_events_v1_discovery

t_events_v1_create() {
	[ "$(post_json $EV1 "$(ev1 evp.1)")" = 201 ]
	js 'assert d["kind"]=="Event" and d["apiVersion"]=="events.k8s.io/v1", d
assert d["note"]=="0/3 nodes are available" and d["regarding"]["name"]=="evp" and d["eventTime"].endswith("Z"), d
assert d["deprecatedSource"]=={} and d["deprecatedFirstTimestamp"] is None and "deprecatedCount" not in d, d' <"$WORK/body"
	# the same event through core/v1, in its field names
	api "$URL/api/v1/namespaces/default/events/evp.1" | js 'assert d["kind"]=="Event" and d["apiVersion"]=="v1", d
assert d["involvedObject"]=={"kind":"Pod","namespace":"default","name":"evp","uid":"u-evp","apiVersion":"v1"}, d
assert d["message"]=="0/3 nodes are available" and d["reason"]=="FailedScheduling" and d["type"]=="Warning", d
assert d["reportingComponent"]=="default-scheduler" and d["reportingInstance"]=="default-scheduler-host", d
assert d["action"]=="Scheduling" and d["source"]=={} and d["firstTimestamp"] is None and "note" not in d, d
assert len(d["eventTime"])==len("2006-01-02T15:04:05.000000Z"), d'
	# a core/v1 event through events.k8s.io/v1
	api "$URL$EV1/py1.1" | js 'assert d["apiVersion"]=="events.k8s.io/v1" and d["note"].startswith("Successfully assigned"), d
assert d["regarding"]["name"]=="py1" and d["deprecatedSource"]=={"component":"scheduler"} and "message" not in d, d'
	# lists: all namespaces and one, field selectors in the group's names
	api "$URL/apis/events.k8s.io/v1/events?fieldSelector=regarding.name%3Devp,reportingController%3Ddefault-scheduler" |
		js 'assert d["kind"]=="EventList" and d["apiVersion"]=="events.k8s.io/v1", d
assert [i["metadata"]["name"] for i in d["items"]]==["evp.1"] and "kind" not in d["items"][0], d'
	api "$URL$EV1?fieldSelector=metadata.name%3Dpy1.1" | js 'assert [i["metadata"]["name"] for i in d["items"]]==["py1.1"], d'
	[ "$(api_code GET "$EV1?fieldSelector=involvedObject.name%3Dpy1")" = 400 ]
	# a duplicate name: 409 AlreadyExists of events.events.k8s.io
	[ "$(post_json $EV1 "$(ev1 evp.1)")" = 409 ]
	js 'assert d["reason"]=="AlreadyExists" and d["message"]=="events.events.k8s.io \"evp.1\" already exists", d
assert d["details"]=={"name":"evp.1","group":"events.k8s.io","kind":"events"}, d' <"$WORK/body"
}
check "events.k8s.io/v1 POST: 201, seen through /api/v1 converted (involvedObject, message, reportingComponent); lists, field selectors; 409 on a duplicate" t_events_v1_create

t_events_v1_series() {
	local t
	t=$(micro_now)
	# kube-scheduler's repeat: a strategic merge patch of the series
	[ "$(api_code PATCH "$EV1/evp.1" -H 'Content-Type: application/strategic-merge-patch+json' \
		--data-binary "{\"series\":{\"count\":2,\"lastObservedTime\":\"$t\"}}")" = 200 ]
	js 'assert d["apiVersion"]=="events.k8s.io/v1" and d["series"]["count"]==2, d' <"$WORK/body"
	api "$URL/api/v1/namespaces/default/events/evp.1" | js 'assert d["series"]=={"count":2,"lastObservedTime":"'"$t"'"}, d
assert d["message"]=="0/3 nodes are available", d'
	[ "$(api_code PATCH "$EV1/evp.1" -H 'Content-Type: application/merge-patch+json' \
		--data-binary "{\"series\":{\"count\":3,\"lastObservedTime\":\"$t\"}}")" = 200 ]
	[ "$(api_code PATCH "$EV1/evp.1" -H 'Content-Type: application/json-patch+json' \
		--data-binary '[{"op":"replace","path":"/series/count","value":4}]')" = 200 ]
	js 'assert d["series"]["count"]==4, d' <"$WORK/body"
	# a patch of an event that is not there: 404; the client then POSTs it whole, with its series
	[ "$(api_code PATCH "$EV1/evp.2" -H 'Content-Type: application/strategic-merge-patch+json' \
		--data-binary "{\"series\":{\"count\":2,\"lastObservedTime\":\"$t\"}}")" = 404 ]
	js 'assert d["reason"]=="NotFound" and d["message"]=="events.events.k8s.io \"evp.2\" not found", d
assert d["details"]=={"name":"evp.2","group":"events.k8s.io","kind":"events"}, d' <"$WORK/body"
	[ "$(post_json $EV1 "$(ev1 evp.2 ",\"series\":{\"count\":2,\"lastObservedTime\":\"$t\"}")")" = 201 ]
	# PUT replaces (series), and creates a name not there (201)
	api "$URL$EV1/evp.2" | js 'd["series"]["count"]=5; print(json.dumps(d))' >"$WORK/evput.json"
	[ "$(api_code PUT "$EV1/evp.2" -H 'Content-Type: application/json' --data-binary @"$WORK/evput.json")" = 200 ]
	js 'assert d["series"]["count"]==5, d' <"$WORK/body"
	[ "$(api_code PUT "$EV1/evp.3" -H 'Content-Type: application/json' --data-binary "$(ev1 evp.3)")" = 201 ]
	# DELETE: a Status naming the group; gone from both views
	[ "$(api_code DELETE "$EV1/evp.3")" = 200 ]
	js 'assert d["kind"]=="Status" and d["status"]=="Success" and d["details"]["group"]=="events.k8s.io", d' <"$WORK/body"
	[ "$(api_code GET /api/v1/namespaces/default/events/evp.3)" = 404 ]
}
check "events.k8s.io/v1 PATCH of series (strategic, merge, json), 404 for a missing event then POST; PUT (update, create); DELETE" t_events_v1_series

t_events_v1_watch() {
	local rv
	rv=$(cur_rv)
	( api -N --max-time 5 "$URL/apis/events.k8s.io/v1/watch/namespaces/default/events?resourceVersion=$rv&timeoutSeconds=2" >"$WORK/evw.out" ) &
	local w=$!
	wait_watches 1
	[ "$(post_json /api/v1/namespaces/default/events '{"metadata":{"name":"evw.1"},"involvedObject":{"kind":"Pod","namespace":"default","name":"evw"},"reason":"Scheduled","message":"m","type":"Normal"}')" = 201 ]
	wait $w
	js_lines 'assert [(e["type"],e["object"]["apiVersion"],e["object"]["metadata"]["name"],e["object"]["note"]) for e in evs]==[("ADDED","events.k8s.io/v1","evw.1","m")], evs' <"$WORK/evw.out"
}
check "events.k8s.io/v1 watch: a core/v1 event created is ADDED in the group's form" t_events_v1_watch

# inv PATH BODY FIELD MESSAGE [METHOD [CONTENT-TYPE]]: the request gets 422 and a cause FIELD with MESSAGE
inv() {
	local code
	code=$(api_code "${5:-POST}" "$1" -H "Content-Type: ${6:-application/json}" --data-binary "$2")
	[ "$code" = 422 ] || { echo "code $code"; cat "$WORK/body"; return 1; }
	F=$3 M=$4 js 'import os
assert d["reason"]=="Invalid" and d["details"]["group"]=="events.k8s.io" and d["details"]["kind"]=="Event", d
assert d["message"].startswith("Event.events.k8s.io \"%s\" is invalid: " % d["details"]["name"]), d
assert {"field":os.environ["F"],"message":os.environ["M"]} in [{"field":c["field"],"message":c["message"]} for c in d["details"]["causes"]], d
assert "%s: %s" % (os.environ["F"], os.environ["M"]) in d["message"], d' <"$WORK/body"
}

t_events_v1_invalid() {
	inv $EV1 "$(ev1 evi.1 ',"series":{"count":1,"lastObservedTime":"2024-01-02T03:04:05.000000Z"}')" series.count 'Invalid value: "": should be at least 2'
	inv $EV1 "$(ev1 evi.1 ',"series":{"count":2}')" series.lastObservedTime 'Required value'
	inv $EV1 "$(ev1 evi.1 | js 'd["eventTime"]=None; print(json.dumps(d))')" eventTime 'Required value'
	inv $EV1 "$(ev1 evi.1 | js 'del d["reportingInstance"]; print(json.dumps(d))')" reportingInstance 'Required value'
	inv $EV1 "$(ev1 evi.1 | js 'del d["action"]; print(json.dumps(d))')" action 'Required value'
	inv $EV1 "$(ev1 evi.1 | js 'd["reason"]="r"*129; print(json.dumps(d))')" reason 'Invalid value: "": can have at most 128 characters'
	inv $EV1 "$(ev1 evi.1 | js 'd["type"]="Bad"; print(json.dumps(d))')" type 'Invalid value: "": has invalid value: Bad'
	inv $EV1 "$(ev1 evi.1 | js 'd["note"]="n"*1025; print(json.dumps(d))')" message 'Invalid value: "": can have at most 1024 characters'
	inv $EV1 "$(ev1 evi.1 | js 'd["reportingController"]="bad name"; print(json.dumps(d))')" reportingController \
		"Invalid value: \"bad name\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	inv $EV1 "$(ev1 evi.1 | js 'del d["reportingController"]; print(json.dumps(d))')" reportingController 'Required value'
	inv $EV1 "$(ev1 evi.1 ',"deprecatedCount":3')" count 'Invalid value: "": needs to be unset'
	inv $EV1 "$(ev1 evi.1 ',"deprecatedFirstTimestamp":"2024-01-02T03:04:05Z"')" firstTimestamp 'Invalid value: "": needs to be unset'
	inv $EV1 "$(ev1 evi.1 ',"deprecatedLastTimestamp":"2024-01-02T03:04:05Z"')" lastTimestamp 'Invalid value: "": needs to be unset'
	inv $EV1 "$(ev1 evi.1 ',"deprecatedSource":{"host":"h"}')" source 'Invalid value: "": needs to be unset'
	inv $EV1 "$(ev1 "" | js 'del d["metadata"]["name"]; print(json.dumps(d))')" metadata.name 'Required value: name or generateName is required'
	inv $EV1 "$(ev1 Bad.Name)" metadata.name "Invalid value: \"Bad.Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	# regarding without a namespace: the event's must be default or kube-system
	inv /apis/events.k8s.io/v1/namespaces/kube-public/events "$(ev1 evi.1 | js 'del d["metadata"]["namespace"]; d["regarding"]={"kind":"Node","name":"n1"}; print(json.dumps(d))')" \
		involvedObject.namespace 'Invalid value: "": does not match event.namespace'
	[ "$(post_json $EV1 "$(ev1 evi.2 | js 'd["regarding"]={"kind":"Node","name":"n1"}; print(json.dumps(d))')")" = 201 ]
	# every rule at once is every cause, in kube's order
	[ "$(post_json $EV1 '{"metadata":{"name":"evi.3"},"type":"X","deprecatedCount":2}')" = 422 ]
	js 'assert [c["field"] for c in d["details"]["causes"]]==["eventTime","type","count"], d
assert [c["reason"] for c in d["details"]["causes"]]==["FieldValueRequired","FieldValueInvalid","FieldValueInvalid"], d' <"$WORK/body"
	# updates: the immutable fields (named as in the core type), a series changed to a count of 1
	inv "$EV1/evp.1" '{"note":"changed"}' message 'Invalid value: "changed": field is immutable' PATCH application/strategic-merge-patch+json
	inv "$EV1/evp.1" '{"regarding":{"name":"other"}}' involvedObject \
		'Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"other", UID:"u-evp", APIVersion:"v1", ResourceVersion:"", FieldPath:""}: field is immutable' \
		PATCH application/merge-patch+json
	inv "$EV1/evp.1" '{"reportingInstance":"other"}' reportingInstance 'Invalid value: "other": field is immutable' PATCH application/merge-patch+json
	inv "$EV1/evp.1" '{"series":{"count":1}}' series.count 'Invalid value: "": should be at least 2' PATCH application/strategic-merge-patch+json
	api "$URL/api/v1/namespaces/default/events/evp.1" | js 'assert d["message"]=="0/3 nodes are available" and d["series"]["count"]==4, d'
	# the core/v1 path keeps its legacy (lenient) rules
	[ "$(post_json /api/v1/namespaces/default/events '{"metadata":{"name":"evi.4"},"involvedObject":{"kind":"Pod","name":"x"},"count":3,"source":{"component":"c"}}')" = 201 ]
	# a MicroTime must have its 6 digits (Go's RFC3339Micro): 400 otherwise
	[ "$(post_json $EV1 "$(ev1 evi.5 | js 'd["eventTime"]="2024-01-02T03:04:05Z"; print(json.dumps(d))')")" = 400 ]
	js 'assert d["reason"]=="BadRequest" and "as \"2006-01-02T15:04:05.000000Z07:00\"" in d["message"], d' <"$WORK/body"
}
check "events.k8s.io/v1 validation: 422 Invalid for each create rule (series, eventTime, reportingInstance, type, deprecated fields, lengths, names, namespace) and update rule (immutable note/regarding, series); core/v1 stays lenient" t_events_v1_invalid

t_events_table() {
	local t out
	t=$(micro_now)
	[ "$(post_json $EV1 "$(ev1 evt.1 ",\"series\":{\"count\":7,\"lastObservedTime\":\"$t\"}" | js 'd["regarding"]["name"]="evt"; print(json.dumps(d))')")" = 201 ]
	out=$(K get events -o wide --field-selector involvedObject.name=evt)
	echo "$out"
	grep -Eq '^[0-9]+s +Warning +FailedScheduling +pod/evt +default-scheduler, default-scheduler-host +0/3 nodes are available +[0-9]+s +7 +evt\.1$' <<<"$out"
	# the server's cells: LAST SEEN from lastTimestamp, else the first timestamp; COUNT 1 for a count of 0; SOURCE from source
	api -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' "$URL/api/v1/namespaces/default/events/py1.1" |
		js 'assert [c["name"] for c in d["columnDefinitions"]]==["Last Seen","Type","Reason","Object","Subobject","Source","Message","First Seen","Count","Name"], d
r=d["rows"][0]["cells"]
assert r[0]=="<unknown>" and r[5]=="scheduler" and r[7]=="<unknown>" and r[8]==1 and r[9]=="py1.1", r'
	[ "$(post_json /api/v1/namespaces/default/events '{"metadata":{"name":"evt.2"},"involvedObject":{"kind":"Node","name":"n9"},"reason":"R","message":" m ","type":"Normal","count":4,"firstTimestamp":"2020-01-01T00:00:00Z","lastTimestamp":"2020-01-02T00:00:00Z","source":{"component":"kubelet","host":"n9"}}')" = 201 ]
	api -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io' "$URL/api/v1/namespaces/default/events/evt.2" |
		js 'r=d["rows"][0]["cells"]
assert r[0].endswith("y") or r[0].endswith("d"), r
assert r[3]=="node/n9" and r[5]=="kubelet, n9" and r[6]=="m" and r[8]==4, r'
}
check "kubectl get events -o wide: the real printEvent (series count and last seen, source from reportingController/reportingInstance, First Seen, Count)" t_events_table

# ------------------------------------------------------------ 3b. PodDisruptionBudgets (policy/v1)
# Pods of namespace pdbt, counted as kube-controller-manager's disruption
# controller counts them: healthy = Ready=True (IsPodReady); a percent or
# maxUnavailable budget expects its pods' controllers' replicas.
cat >"$WORK/pdb.yaml" <<'YAML'
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: pdbt
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: web
YAML
pdb_get() { # name: the budget's JSON
	api "$URL/apis/policy/v1/namespaces/pdbt/poddisruptionbudgets/$1"
}
web_pod() { # name [labels json]
	local labels='{"app":"web"}'
	[ $# -lt 2 ] || labels=$2
	mkpod "$1" pdbt ",\"labels\":$labels"
}

t_pdb_discovery() {
	local out
	api "$URL/apis" | js 'g=[g for g in d["groups"] if g["name"]=="policy"][0]
assert g["versions"]==[{"groupVersion":"policy/v1","version":"v1"}] and g["preferredVersion"]["version"]=="v1", d'
	api "$URL/apis/policy/v1" | js 'assert d["kind"]=="APIResourceList" and d["groupVersion"]=="policy/v1", d
r={x["name"]: x for x in d["resources"]}
p=r["poddisruptionbudgets"]; assert p["shortNames"]==["pdb"] and p["namespaced"] and p["kind"]=="PodDisruptionBudget", p
assert "watch" in p["verbs"] and "create" in p["verbs"] and "poddisruptionbudgets/status" in r, d'
	out=$(K api-resources --api-group=policy)
	echo "$out"
	grep -Eq '^poddisruptionbudgets +pdb +policy/v1 +true +PodDisruptionBudget' <<<"$out"
	[ "$(api_code GET /api/v1/poddisruptionbudgets)" = 404 ]
	[ "$(api_code GET /apis/policy/v1/pods)" = 404 ]
}
check "discovery: /apis lists policy/v1, /apis/policy/v1 has poddisruptionbudgets (pdb) and /status; kubectl api-resources" t_pdb_discovery

t_pdb_create() {
	local out
	cur_rv >"$WORK/pdb.rv"
	K create namespace pdbt
	out=$(K create -f "$WORK/pdb.yaml")
	echo "$out"
	grep -q 'poddisruptionbudget.policy/web created' <<<"$out"
	out=$(K get pdb -n pdbt)
	echo "$out"
	grep -Eq '^NAME +MIN AVAILABLE +MAX UNAVAILABLE +ALLOWED DISRUPTIONS +AGE' <<<"$out"
	grep -Eq '^web +1 +N/A +0 ' <<<"$out"
	K get pdb -n pdbt web -o json | js 'assert d["apiVersion"]=="policy/v1" and d["kind"]=="PodDisruptionBudget", d
assert d["metadata"]["generation"]==1, d["metadata"]
s=d["status"]; assert (s["observedGeneration"],s["expectedPods"],s["currentHealthy"],s["desiredHealthy"],s["disruptionsAllowed"])==(1,0,0,1,0), s
c=s["conditions"]; assert len(c)==1 and (c[0]["type"],c[0]["status"],c[0]["reason"])==("DisruptionAllowed","False","InsufficientPods"), c'
	api "$URL/apis/policy/v1/poddisruptionbudgets?fieldSelector=metadata.namespace%3Dpdbt,metadata.name%3Dweb" |
		js 'assert d["kind"]=="PodDisruptionBudgetList" and d["apiVersion"]=="policy/v1" and [i["metadata"]["name"] for i in d["items"]]==["web"], d'
	# exactly one of minAvailable and maxUnavailable: 422 naming the field
	sed 's/^  minAvailable: 1/  minAvailable: 1\n  maxUnavailable: 1/; s/name: web/name: both/' "$WORK/pdb.yaml" >"$WORK/pdb-both.yaml"
	if out=$(K create -f "$WORK/pdb-both.yaml" 2>&1); then echo "both set accepted"; return 1; fi
	echo "$out"
	grep -q 'minAvailable and maxUnavailable cannot be both set' <<<"$out"
	[ "$(post_json /apis/policy/v1/namespaces/pdbt/poddisruptionbudgets '{"metadata":{"name":"neither"},"spec":{"selector":{}}}')" = 422 ]
	js 'assert d["reason"]=="Invalid" and d["details"]["causes"][0]["field"]=="spec.minAvailable", d' <"$WORK/body"
	[ "$(post_json /apis/policy/v1/namespaces/pdbt/poddisruptionbudgets '{"apiVersion":"v1","kind":"PodDisruptionBudget","metadata":{"name":"v"},"spec":{"minAvailable":1}}')" = 400 ]
}
check "kubectl create -f a PodDisruptionBudget (YAML); kubectl get pdb; status computed; both/neither -> 422" t_pdb_create

t_pdb_status() {
	local out
	[ "$(post_json /api/v1/namespaces/pdbt/pods "$(web_pod w1)")" = 201 ]
	pdb_get web | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["disruptionsAllowed"])==(1,0,0), s'
	[ "$(post_json /api/v1/namespaces/pdbt/pods/w1/binding '{"metadata":{"name":"w1"},"target":{"name":"kn1"}}')" = 201 ]
	# phase Running alone is not Ready: not healthy
	[ "$(merge_patch /api/v1/namespaces/pdbt/pods/w1/status '{"status":{"phase":"Running"}}')" = 200 ]
	pdb_get web | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["desiredHealthy"],s["disruptionsAllowed"])==(1,0,1,0), s'
	[ "$(api_code PATCH /api/v1/namespaces/pdbt/pods/w1/status -H 'Content-Type: application/strategic-merge-patch+json' \
		--data-binary '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}')" = 200 ]
	pdb_get web | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["desiredHealthy"],s["disruptionsAllowed"])==(1,1,1,0), s'
	# a second matching pod, bound and Ready: one disruption allowed
	[ "$(post_json /api/v1/namespaces/pdbt/pods "$(web_pod w2)")" = 201 ]
	[ "$(post_json /api/v1/namespaces/pdbt/pods/w2/binding '{"metadata":{"name":"w2"},"target":{"name":"kn1"}}')" = 201 ]
	[ "$(api_code PATCH /api/v1/namespaces/pdbt/pods/w2/status -H 'Content-Type: application/strategic-merge-patch+json' \
		--data-binary '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}')" = 200 ]
	pdb_get web | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["desiredHealthy"],s["disruptionsAllowed"])==(2,2,1,1), s
c=s["conditions"][0]; assert (c["status"],c["reason"])==("True","SufficientPods"), c'
	out=$(K get pdb -n pdbt)
	echo "$out"
	grep -Eq '^web +1 +N/A +1 ' <<<"$out"
	# a pod the selector does not match changes nothing (no new resourceVersion)
	local rv
	rv=$(pdb_get web | js 'print(d["metadata"]["resourceVersion"])')
	[ "$(post_json /api/v1/namespaces/pdbt/pods "$(web_pod o1 '{"app":"other"}')")" = 201 ]
	pdb_get web | js 'assert d["metadata"]["resourceVersion"]=="'"$rv"'", d["metadata"]'
	# Ready=False: not healthy again
	[ "$(api_code PATCH /api/v1/namespaces/pdbt/pods/w2/status -H 'Content-Type: application/strategic-merge-patch+json' \
		--data-binary '{"status":{"conditions":[{"type":"Ready","status":"False"}]}}')" = 200 ]
	pdb_get web | js 's=d["status"]; assert (s["currentHealthy"],s["disruptionsAllowed"])==(1,0), s'
	[ "$(api_code PATCH /api/v1/namespaces/pdbt/pods/w2/status -H 'Content-Type: application/strategic-merge-patch+json' \
		--data-binary '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}')" = 200 ]
	pdb_get web | js 's=d["status"]; assert (s["currentHealthy"],s["disruptionsAllowed"])==(2,1), s'
}
check "PDB status follows its pods: expectedPods, currentHealthy (Ready=True, IsPodReady: phase Running alone is not), disruptionsAllowed" t_pdb_status

t_pdb_watch() {
	local rv
	rv=$(cat "$WORK/pdb.rv")
	# from the resourceVersion before the budget was made: history replayed
	api -N --max-time 5 "$URL/apis/policy/v1/poddisruptionbudgets?watch=1&resourceVersion=$rv&timeoutSeconds=1" >"$WORK/pdbw.out"
	cut -c1-200 "$WORK/pdbw.out"
	js_lines 'assert all(e["object"]["kind"]=="PodDisruptionBudget" and e["object"]["apiVersion"]=="policy/v1" for e in evs), evs
assert [e["type"] for e in evs][:2]==["ADDED","MODIFIED"] and set(e["type"] for e in evs[1:])=={"MODIFIED"}, [e["type"] for e in evs]
assert all(e["object"]["metadata"]["name"]=="web" for e in evs), evs
st=[e["object"]["status"] for e in evs]
assert all(a!=b for a,b in zip(st,st[1:])), "a MODIFIED without a status change"
allowed=[s["disruptionsAllowed"] for s in st]; assert allowed[-1]==1 and 0 in allowed, allowed
rvs=[int(e["object"]["metadata"]["resourceVersion"]) for e in evs]; assert rvs==sorted(rvs) and len(set(rvs))==len(rvs), rvs' <"$WORK/pdbw.out"
	# namespaced watch, no resourceVersion: the current state as ADDED, a BOOKMARK at the end of it
	api -N --max-time 5 "$URL/apis/policy/v1/namespaces/pdbt/poddisruptionbudgets?watch=1&timeoutSeconds=1&allowWatchBookmarks=true&sendInitialEvents=true" |
		js_lines 'assert [e["type"] for e in evs][:2]==["ADDED","BOOKMARK"] and {e["type"] for e in evs[2:]}<={"BOOKMARK"}, evs
assert evs[1]["object"]["metadata"]["annotations"]=={"k8s.io/initial-events-end":"true"}, evs[1]
assert evs[0]["object"]["status"]["disruptionsAllowed"]==1 and evs[1]["object"]["kind"]=="PodDisruptionBudget" and evs[1]["object"]["apiVersion"]=="policy/v1", evs'
	# a watch sees a spec change (generation 2) and the status it leads to: a
	# percent counts the replicas of the pods' controllers, and w1 and w2
	# have none (unmanaged): none expected, none allowed
	rv=$(cur_rv)
	[ "$(api_code PATCH /apis/policy/v1/namespaces/pdbt/poddisruptionbudgets/web -H 'Content-Type: application/merge-patch+json' \
		--data-binary '{"spec":{"minAvailable":"50%"}}')" = 200 ]
	api -N --max-time 5 "$URL/apis/policy/v1/watch/namespaces/pdbt/poddisruptionbudgets?resourceVersion=$rv&timeoutSeconds=1" |
		js_lines 'assert [e["type"] for e in evs]==["MODIFIED","MODIFIED"], evs
a,b=[e["object"] for e in evs]
assert a["metadata"]["generation"]==2 and a["status"]["observedGeneration"]==1, a
s=b["status"]; assert (s["observedGeneration"],s["expectedPods"],s["desiredHealthy"],s["disruptionsAllowed"])==(2,0,0,0), b'
	# the fault hooks apply here too
	fault '{"http_500_next":1,"match":"/apis/policy/"}'
	[ "$(api_code GET /apis/policy/v1/poddisruptionbudgets)" = 500 ]
	[ "$(api_code GET /apis/policy/v1/poddisruptionbudgets)" = 200 ]
}
check "watch /apis/policy/v1/poddisruptionbudgets: ADDED, then MODIFIED only on status changes; namespaced; faults" t_pdb_watch

t_pdb_selectors() {
	local body uid p
	# w1 and w2 belong to ReplicaSet web (3 replicas): the percent budget web
	# expects 3, desires ceil(1.5) = 2, has 2 healthy
	[ "$(post_json /apis/apps/v1/namespaces/pdbt/replicasets '{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"pause"}]}}}}')" = 201 ]
	uid=$(js 'print(d["metadata"]["uid"])' <"$WORK/body")
	for p in w1 w2; do
		[ "$(api_code PATCH /api/v1/namespaces/pdbt/pods/$p -H 'Content-Type: application/merge-patch+json' \
			--data-binary "{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web\",\"uid\":\"$uid\",\"controller\":true}]}}")" = 200 ]
	done
	pdb_get web | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["desiredHealthy"],s["disruptionsAllowed"])==(3,2,2,0), s'
	for body in \
		'{"metadata":{"name":"pct"},"spec":{"maxUnavailable":"50%","selector":{"matchExpressions":[{"key":"app","operator":"In","values":["web","other"]},{"key":"gone","operator":"DoesNotExist"}]}}}' \
		'{"metadata":{"name":"all"},"spec":{"minAvailable":0,"selector":{}}}' \
		'{"metadata":{"name":"none"},"spec":{"maxUnavailable":1}}'; do
		[ "$(post_json /apis/policy/v1/namespaces/pdbt/poddisruptionbudgets "$body")" = 201 ]
	done
	# pods w1 w2 (healthy, ReplicaSet web's) and o1 (pending, unmanaged: left
	# out of pct's scale): pct 3 expected, 2 healthy, 3-ceil(1.5)=1 desired,
	# 1 allowed; all (an int minAvailable) counts its 3 pods
	pdb_get pct | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["desiredHealthy"],s["disruptionsAllowed"])==(3,2,1,1), s'
	pdb_get all | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["desiredHealthy"],s["disruptionsAllowed"])==(3,2,0,2), s'
	pdb_get none | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["disruptionsAllowed"])==(0,0,0), s'
	# a terminal pod is still one of the budget's pods (getPodsForPdb)
	[ "$(merge_patch /api/v1/namespaces/pdbt/pods/o1/status '{"status":{"phase":"Succeeded"}}')" = 200 ]
	pdb_get pct | js 's=d["status"]; assert (s["expectedPods"],s["desiredHealthy"],s["disruptionsAllowed"])==(3,1,1), s'
	pdb_get all | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"])==(3,2), s'
	# the controller's scale: 5 replicas, 5-ceil(2.5)=2 desired, none allowed; back to 3
	[ "$(merge_patch /apis/apps/v1/namespaces/pdbt/replicasets/web '{"spec":{"replicas":5}}')" = 200 ]
	pdb_get pct | js 's=d["status"]; assert (s["expectedPods"],s["desiredHealthy"],s["disruptionsAllowed"])==(5,2,0), s'
	[ "$(merge_patch /apis/apps/v1/namespaces/pdbt/replicasets/web '{"spec":{"replicas":3}}')" = 200 ]
	pdb_get pct | js 's=d["status"]; assert (s["expectedPods"],s["disruptionsAllowed"])==(3,1), s'
	# a pod whose controller is not there fails the sync (failSafe): none allowed
	[ "$(post_json /api/v1/namespaces/pdbt/pods "$(web_pod o2 '{"app":"other"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"gone","uid":"00000000-0000-0000-0000-000000000001","controller":true}]')")" = 201 ]
	pdb_get pct | js 's=d["status"]; c=s["conditions"][0]
assert s["disruptionsAllowed"]==0 and (c["status"],c["reason"],c["message"])==("False","SyncFailed","found no controllers for pod \"o2\""), s'
	[ "$(api_code DELETE /api/v1/namespaces/pdbt/pods/o2)" = 200 ]
	pdb_get pct | js 's=d["status"]; c=s["conditions"][0]
assert s["disruptionsAllowed"]==1 and (c["status"],c["reason"])==("True","SufficientPods"), s'
	[ "$(api_code DELETE /apis/policy/v1/namespaces/pdbt/poddisruptionbudgets/none)" = 200 ]
	[ "$(api_code GET /apis/policy/v1/namespaces/pdbt/poddisruptionbudgets/none)" = 404 ]
}
check "PDB selectors (matchExpressions, {} = every pod, none = no pod), percentages of the controllers' replicas rounded up, unmanaged and terminal pods, a missing controller (SyncFailed)" t_pdb_selectors

t_pod_delete_preconditions() {
	local uid rv
	uid=$(api "$URL/api/v1/namespaces/pdbt/pods/w2" | js 'print(d["metadata"]["uid"])')
	rv=$(cur_rv)
	[ "$(api_code DELETE /api/v1/namespaces/pdbt/pods/w2 -H 'Content-Type: application/json' \
		--data-binary '{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}}')" = 409 ]
	cat "$WORK/body"
	js 'assert d["reason"]=="Conflict" and d["code"]==409 and "Precondition failed: UID in precondition" in d["message"], d' <"$WORK/body"
	[ "$(api_code GET /api/v1/namespaces/pdbt/pods/w2)" = 200 ]
	[ "$(api_code DELETE /api/v1/namespaces/pdbt/pods/w2 -H 'Content-Type: application/json' \
		--data-binary "{\"preconditions\":{\"uid\":\"$uid\"}}")" = 200 ]
	[ "$(api_code GET /api/v1/namespaces/pdbt/pods/w2)" = 404 ]
	api -N --max-time 5 "$URL/api/v1/namespaces/pdbt/pods?watch=1&resourceVersion=$rv&timeoutSeconds=1" |
		js_lines 'assert [(e["type"],e["object"]["metadata"]["name"]) for e in evs]==[("DELETED","w2")], evs'
	pdb_get web | js 's=d["status"]; assert (s["expectedPods"],s["currentHealthy"],s["disruptionsAllowed"])==(3,1,0), s'
	K get pdb -n pdbt web | grep -Eq '^web +50% +N/A +0 '
}
check "DELETE pod with preconditions.uid: a wrong uid -> 409 Conflict, the right one deletes (DELETED), PDB updated" t_pod_delete_preconditions

t_nominated_node() {
	local rv prv
	prv=$(pdb_get all | js 'print(d["metadata"]["resourceVersion"])')
	rv=$(cur_rv)
	[ "$(post_json /api/v1/namespaces/pdbt/pods "$(web_pod n1)")" = 201 ]
	[ "$(api_code PATCH /api/v1/namespaces/pdbt/pods/n1/status -H 'Content-Type: application/merge-patch+json' \
		--data-binary '{"status":{"nominatedNodeName":"kn1"}}')" = 200 ]
	[ "$(api_code PATCH /api/v1/namespaces/pdbt/pods/n1/status -H 'Content-Type: application/strategic-merge-patch+json' \
		--data-binary '{"status":{"nominatedNodeName":"kn2"}}')" = 200 ]
	api "$URL/api/v1/pods?fieldSelector=status.nominatedNodeName%3Dkn2" | js 'assert [i["metadata"]["name"] for i in d["items"]]==["n1"], d'
	api -N --max-time 5 "$URL/api/v1/namespaces/pdbt/pods?watch=1&resourceVersion=$rv&timeoutSeconds=1" |
		js_lines 'got=[(e["type"],e["object"]["status"].get("nominatedNodeName")) for e in evs]
assert got==[("ADDED",None),("MODIFIED","kn1"),("MODIFIED","kn2")], got'
	# n1 (pending) joined budget all: one status write, not one per patch
	api -N --max-time 5 "$URL/apis/policy/v1/namespaces/pdbt/poddisruptionbudgets?watch=1&resourceVersion=$prv&timeoutSeconds=1&fieldSelector=metadata.name%3Dall" |
		js_lines 'assert len(evs)==1 and evs[0]["object"]["status"]["expectedPods"]==3, evs'
}
check "pods/status merge and strategic patches of status.nominatedNodeName: MODIFIED events" t_nominated_node

t_pdb_python() {
	[ -n "$PYK" ]
	HOME=$WORK/home timeout 60 "$PYK" - "$KC" <<-'EOF'
		import sys
		from kubernetes import client, config, watch
		config.load_kube_config(config_file=sys.argv[1])
		p = client.PolicyV1Api()
		items = p.list_pod_disruption_budget_for_all_namespaces().items
		web = [i for i in items if i.metadata.name == "web"][0]
		assert web.spec.min_available == "50%" and web.spec.selector.match_labels == {"app": "web"}, web.spec
		assert web.status.disruptions_allowed == 0 and web.status.expected_pods == 3, web.status
		assert web.status.conditions[0].type == "DisruptionAllowed" and web.status.conditions[0].last_transition_time
		r = p.read_namespaced_pod_disruption_budget("all", "pdbt")
		assert r.status.expected_pods == 3 and r.status.observed_generation == 1, r.status
		evs = [(e["type"], e["object"].metadata.name) for e in
		       watch.Watch().stream(p.list_namespaced_pod_disruption_budget, "pdbt", timeout_seconds=1)]
		assert sorted(evs) == [("ADDED", "all"), ("ADDED", "pct"), ("ADDED", "web")], evs
		print("ok")
	EOF
}
check "python client: PolicyV1Api list/read/watch of PodDisruptionBudgets" t_pdb_python

t_pdb_controller_gone() {
	# ReplicaSet web deleted: w1's controller is not there, web's sync fails
	[ "$(api_code DELETE /apis/apps/v1/namespaces/pdbt/replicasets/web)" = 200 ]
	pdb_get web | js 's=d["status"]; c=s["conditions"][0]
assert s["disruptionsAllowed"]==0 and (c["reason"],c["message"])==("SyncFailed","found no controllers for pod \"w1\""), s'
}
check "PDB: the controller of a pod deleted -> SyncFailed, none allowed" t_pdb_controller_gone

t_pdb_disrupted_deleting() {
	local now
	now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	K create namespace dp
	[ "$(post_json /apis/policy/v1/namespaces/dp/poddisruptionbudgets '{"metadata":{"name":"b"},"spec":{"minAvailable":0,"selector":{"matchLabels":{"app":"dp"}}}}')" = 201 ]
	[ "$(post_json /api/v1/namespaces/dp/pods "$(mkpod d1 dp ',"labels":{"app":"dp"}')")" = 201 ]
	[ "$(post_json /api/v1/namespaces/dp/pods/d1/binding '{"metadata":{"name":"d1"},"target":{"name":"kn1"}}')" = 201 ]
	# an eviction's entry for d1 (not Ready), kept while d1 is there
	[ "$(merge_patch /apis/policy/v1/namespaces/dp/poddisruptionbudgets/b/status "{\"status\":{\"disruptedPods\":{\"d1\":\"$now\"}}}")" = 200 ]
	pdb_get_ns() { api "$URL/apis/policy/v1/namespaces/dp/poddisruptionbudgets/b"; }
	pdb_get_ns | js 'assert list(d["status"].get("disruptedPods",{}))==["d1"], d["status"]'
	# d1 being deleted (Terminating): the entry goes (buildDisruptedPodMap)
	fault '{"graceful_delete_seconds":30}'
	[ "$(api_code DELETE /api/v1/namespaces/dp/pods/d1)" = 200 ]
	fault '{"graceful_delete_seconds":0}'
	api "$URL/api/v1/namespaces/dp/pods/d1" | js 'assert d["metadata"].get("deletionTimestamp"), d["metadata"]'
	pdb_get_ns | js 'assert "disruptedPods" not in d["status"], d["status"]'
	[ "$(api_code DELETE "/api/v1/namespaces/dp/pods/d1?gracePeriodSeconds=0")" = 200 ]
	[ "$(api_code DELETE /api/v1/namespaces/dp)" = 200 ]
}
check "PDB: a disrupted pod being deleted leaves status.disruptedPods" t_pdb_disrupted_deleting

# ------------------------------------------------------------ 3c. workloads (Services, RCs, ReplicaSets, StatefulSets)
# Stored, listed and watched only: no controller makes pods or endpoints.
cat >"$WORK/workloads.yaml" <<'YAML'
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: wl
spec:
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: v1
kind: ReplicationController
metadata:
  name: web-rc
  namespace: wl
spec:
  replicas: 2
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: c
        image: registry.k8s.io/pause:3.9
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-rs
  namespace: wl
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
    matchExpressions:
    - {key: tier, operator: NotIn, values: [db]}
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: c
        image: registry.k8s.io/pause:3.9
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: wl
spec:
  serviceName: db
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: c
        image: registry.k8s.io/pause:3.9
YAML
mkrs() { # name [namespace] [selector json]
	local sel='{"matchLabels":{"app":"x"}}'
	[ $# -lt 3 ] || sel=$3
	printf '{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"%s","namespace":"%s"},"spec":{"selector":%s,"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"pause"}]}}}}' \
		"$1" "${2:-default}" "$sel"
}

t_workload_discovery() {
	local out
	api "$URL/api/v1" | js 'r={x["name"]: x for x in d["resources"]}
for name, short, kind in (("services","svc","Service"), ("replicationcontrollers","rc","ReplicationController")):
    e=r[name]; assert e["shortNames"]==[short] and e["namespaced"] and e["kind"]==kind and "watch" in e["verbs"], e
    assert r[name+"/status"]["verbs"]==["get","patch","update"], r
assert "replicasets" not in r and "statefulsets" not in r, r'
	api "$URL/apis" | js 'g=[g for g in d["groups"] if g["name"]=="apps"][0]
assert g["versions"]==[{"groupVersion":"apps/v1","version":"v1"}] and g["preferredVersion"]["groupVersion"]=="apps/v1", d'
	api "$URL/apis/apps" | js 'assert d["kind"]=="APIGroup" and d["name"]=="apps", d'
	api "$URL/apis/apps/v1" | js 'assert d["kind"]=="APIResourceList" and d["groupVersion"]=="apps/v1", d
r={x["name"]: x for x in d["resources"]}
assert set(r)=={"replicasets","replicasets/status","statefulsets","statefulsets/status"}, r
assert r["replicasets"]["shortNames"]==["rs"] and r["statefulsets"]["shortNames"]==["sts"] and r["statefulsets"]["kind"]=="StatefulSet", r
assert "all" in r["replicasets"]["categories"] and "create" in r["statefulsets"]["verbs"], r'
	out=$(K api-resources)
	echo "$out"
	grep -Eq '^services +svc +v1 +true +Service$' <<<"$out"
	grep -Eq '^replicationcontrollers +rc +v1 +true +ReplicationController$' <<<"$out"
	grep -Eq '^replicasets +rs +apps/v1 +true +ReplicaSet$' <<<"$out"
	grep -Eq '^statefulsets +sts +apps/v1 +true +StatefulSet$' <<<"$out"
	grep -Eq '^poddisruptionbudgets +pdb +policy/v1 +true +PodDisruptionBudget$' <<<"$out"
	[ "$(api_code GET /api/v1/replicasets)" = 404 ]
	[ "$(api_code GET /apis/apps/v1/services)" = 404 ]
	[ "$(api_code GET /apis/apps/v2/replicasets)" = 404 ]
}
check "discovery: /api/v1 has services (svc), replicationcontrollers (rc); /apis/apps/v1 has replicasets (rs), statefulsets (sts); kubectl api-resources" t_workload_discovery

t_workload_kubectl() {
	local out
	cur_rv >"$WORK/wl.rv"
	K create namespace wl
	out=$(K create -f "$WORK/workloads.yaml")
	echo "$out"
	grep -q '^service/web created' <<<"$out"
	grep -q '^replicationcontroller/web-rc created' <<<"$out"
	grep -q '^replicaset.apps/web-rs created' <<<"$out"
	grep -q '^statefulset.apps/db created' <<<"$out"
	out=$(K get svc,rc,rs,sts -n wl -o wide)
	echo "$out"
	grep -Eq '^service/web +ClusterIP +10\.[0-9.]+ +<none> +80/TCP +[0-9]+s +app=web$' <<<"$out"
	grep -Eq '^replicationcontroller/web-rc +2 +0 +0 +[0-9]+s +c +registry.k8s.io/pause:3.9 +app=web$' <<<"$out"
	grep -Eq '^replicaset.apps/web-rs +3 +0 +0 +[0-9]+s +c +registry.k8s.io/pause:3.9 +app=web,tier notin \(db\)$' <<<"$out"
	grep -Eq '^statefulset.apps/db +0/1 +[0-9]+s +c +registry.k8s.io/pause:3.9$' <<<"$out"
	K get svc web -n wl -o json | js 'assert d["kind"]=="Service" and d["apiVersion"]=="v1", d
s=d["spec"]; assert s["type"]=="ClusterIP" and s["clusterIP"].startswith("10.") and s["clusterIPs"]==[s["clusterIP"]], s
assert s["ports"]==[{"port":80,"targetPort":8080,"protocol":"TCP"}] and s["selector"]=={"app":"web"}, s
assert "generation" not in d["metadata"] and d["status"]=={"loadBalancer":{}}, d'
	K get rc web-rc -n wl -o json | js 'assert d["kind"]=="ReplicationController" and d["apiVersion"]=="v1", d
assert d["spec"]["selector"]=={"app":"web"} and d["metadata"]["labels"]=={"app":"web"}, d
assert d["metadata"]["generation"]==1 and d["status"]=={"replicas":0}, d'
	K get rs web-rs -n wl -o json | js 'assert d["kind"]=="ReplicaSet" and d["apiVersion"]=="apps/v1", d
assert d["spec"]["selector"]=={"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"NotIn","values":["db"]}]}, d
assert d["spec"]["replicas"]==3 and d["metadata"]["generation"]==1 and d["status"]=={"replicas":0}, d'
	K get sts db -n wl -o json | js 'assert d["kind"]=="StatefulSet" and d["apiVersion"]=="apps/v1", d
s=d["spec"]; assert s["replicas"]==1 and s["podManagementPolicy"]=="OrderedReady" and s["updateStrategy"]["type"]=="RollingUpdate", s'
	# no controllers: no pods made
	[ "$(api "$URL/api/v1/namespaces/wl/pods" | js 'print(len(d["items"]))')" = 0 ]
	if out=$(K create -f "$WORK/workloads.yaml" 2>&1); then echo "duplicate create succeeded"; return 1; fi
	echo "$out"
	grep -q 'replicasets.apps "web-rs" already exists' <<<"$out"
}
check "kubectl create -f a Service, an RC, a ReplicaSet and a StatefulSet (YAML); kubectl get (tables, -o json, defaults)" t_workload_kubectl

t_workload_lists() {
	[ "$(post_json /api/v1/namespaces/default/services '{"metadata":{"name":"other","labels":{"tier":"fe"}},"spec":{"selector":{"app":"other"},"ports":[{"port":8080}]}}')" = 201 ]
	js 'assert d["kind"]=="Service" and d["spec"]["type"]=="ClusterIP" and d["spec"]["clusterIP"], d' <"$WORK/body"
	# across namespaces
	api "$URL/api/v1/services" | js 'assert d["kind"]=="ServiceList" and d["apiVersion"]=="v1" and int(d["metadata"]["resourceVersion"])>0, d
got=sorted((i["metadata"]["namespace"], i["metadata"]["name"]) for i in d["items"])
assert got==[("default","other"),("wl","web")], got
assert all("kind" not in i for i in d["items"]), d
ips=[i["spec"]["clusterIP"] for i in d["items"]]; assert len(set(ips))==2, ips'
	api "$URL/api/v1/services?fieldSelector=metadata.namespace%3Dwl" | js 'assert [i["metadata"]["name"] for i in d["items"]]==["web"], d'
	api "$URL/api/v1/services?labelSelector=tier%3Dfe" | js 'assert [i["metadata"]["name"] for i in d["items"]]==["other"], d'
	api "$URL/api/v1/services?limit=1" | js 'assert len(d["items"])==1 and d["metadata"]["continue"] and d["metadata"]["remainingItemCount"]==1, d["metadata"]'
	[ "$(api_code GET '/api/v1/services?fieldSelector=spec.clusterIP%3Dx')" = 400 ]
	api "$URL/api/v1/replicationcontrollers?fieldSelector=status.replicas%3D0" | js 'assert d["kind"]=="ReplicationControllerList" and [i["metadata"]["name"] for i in d["items"]]==["web-rc"], d'
	api "$URL/apis/apps/v1/statefulsets" | js 'assert d["kind"]=="StatefulSetList" and d["apiVersion"]=="apps/v1" and [i["metadata"]["name"] for i in d["items"]]==["db"], d'
	api "$URL/apis/apps/v1/namespaces/wl/replicasets/web-rs" | js 'assert d["kind"]=="ReplicaSet" and d["apiVersion"]=="apps/v1", d'
	[ "$(api_code GET /apis/apps/v1/namespaces/wl/replicasets/nosuch)" = 404 ]
	js 'assert d["message"]=="replicasets.apps \"nosuch\" not found" and d["details"]["group"]=="apps", d' <"$WORK/body"
	# /debug/bulk takes them too (by key or by kind)
	api -X POST -H 'Content-Type: application/json' --data-binary '{"services":[{"metadata":{"name":"bs","namespace":"wlbulk"}}],"items":[
		{"kind":"StatefulSet","apiVersion":"apps/v1","metadata":{"name":"bss","namespace":"wlbulk"},"spec":{"selector":{"matchLabels":{"a":"b"}}},"status":{"replicas":2}},
		{"kind":"ReplicationController","metadata":{"name":"brc","namespace":"wlbulk"},"spec":{"selector":{"a":"b"}}}]}' "$URL/debug/bulk" |
		js 'assert d["created"]==3 and d["errorCount"]==0, d'
	api "$URL/apis/apps/v1/namespaces/wlbulk/statefulsets/bss" | js 'assert d["status"]=={"replicas":2}, d'
	api "$URL/debug/state" | js 'c=d["counts"]; assert (c["services"],c["replicationcontrollers"],c["replicasets"],c["statefulsets"])==(3,2,1,2), c'
	# deleting the namespace deletes them
	[ "$(api_code DELETE /api/v1/namespaces/wlbulk)" = 200 ]
	api "$URL/debug/state" | js 'c=d["counts"]; assert (c["services"],c["replicationcontrollers"],c["replicasets"],c["statefulsets"])==(2,1,1,1), c'
}
check "list /api/v1/services across namespaces (selectors, paging), RCs, StatefulSets; /debug/bulk; namespace deletion" t_workload_lists

t_workload_watch() {
	local rv
	rv=$(cur_rv)
	(sleep 0.3; post_json /apis/apps/v1/namespaces/wl/replicasets "$(mkrs rs-w wl)" >/dev/null
	 api -o /dev/null -X PATCH -H 'Content-Type: application/merge-patch+json' --data-binary '{"status":{"replicas":1,"readyReplicas":1}}' "$URL/apis/apps/v1/namespaces/wl/replicasets/rs-w/status"
	 api -o /dev/null -X PATCH -H 'Content-Type: application/strategic-merge-patch+json' --data-binary '{"spec":{"replicas":5}}' "$URL/apis/apps/v1/namespaces/wl/replicasets/rs-w") &
	api -N --max-time 6 "$URL/apis/apps/v1/replicasets?watch=true&resourceVersion=$rv&timeoutSeconds=2&allowWatchBookmarks=true" >"$WORK/wrs.out"
	wait
	cut -c1-200 "$WORK/wrs.out"
	js_lines 'ch=[e for e in evs if e["type"]!="BOOKMARK"]
assert [(e["type"],e["object"]["metadata"]["name"]) for e in ch]==[("ADDED","rs-w"),("MODIFIED","rs-w"),("MODIFIED","rs-w")], evs
assert all(e["object"]["kind"]=="ReplicaSet" and e["object"]["apiVersion"]=="apps/v1" for e in evs), evs
a,b,c=[e["object"] for e in ch]
assert a["status"]=={"replicas":0} and a["metadata"]["generation"]==1, a
assert b["status"]=={"replicas":1,"readyReplicas":1} and b["metadata"]["generation"]==1, b
assert c["spec"]["replicas"]==5 and c["metadata"]["generation"]==2 and c["status"]==b["status"], c
bm=[e for e in evs if e["type"]=="BOOKMARK"]; assert bm and bm[-1]["object"]["metadata"]["resourceVersion"]==c["metadata"]["resourceVersion"], bm' <"$WORK/wrs.out"
	# no resourceVersion: the current ones as ADDED first
	api -N --max-time 5 "$URL/apis/apps/v1/namespaces/wl/replicasets?watch=1&timeoutSeconds=1" |
		js_lines 'assert sorted((e["type"],e["object"]["metadata"]["name"]) for e in evs)==[("ADDED","rs-w"),("ADDED","web-rs")], evs'
	# a watch of services (all namespaces) with a field selector: the transition out of it is a DELETED
	rv=$(cur_rv)
	[ "$(api_code PATCH /api/v1/namespaces/default/services/other -H 'Content-Type: application/merge-patch+json' --data-binary '{"metadata":{"labels":{"tier":"be"}}}')" = 200 ]
	api -N --max-time 5 "$URL/api/v1/services?watch=1&resourceVersion=$rv&timeoutSeconds=1&labelSelector=tier%3Dfe" |
		js_lines 'assert [(e["type"],e["object"]["kind"],e["object"]["metadata"]["name"]) for e in evs]==[("DELETED","Service","other")], evs'
	# and the fault hooks: a 500, an ERROR 410 mid-stream
	fault '{"http_500_next":1,"match":"/apis/apps/"}'
	[ "$(api_code GET /apis/apps/v1/statefulsets)" = 500 ]
	[ "$(api_code GET /apis/apps/v1/statefulsets)" = 200 ]
	fault '{"expire_watch_after_events":1,"match":"statefulsets"}'
	api -N --max-time 5 "$URL/apis/apps/v1/statefulsets?watch=1&timeoutSeconds=2" |
		js_lines 'assert [e["type"] for e in evs]==["ADDED","ERROR"] and evs[1]["object"]["code"]==410, evs'
}
check "watch /apis/apps/v1/replicasets sees ADDED, /status MODIFIED, generation 2 on a spec change; services watch; faults" t_workload_watch

t_workload_invalid() {
	local out body
	# a ReplicaSet's or StatefulSet's selector must be a LabelSelector: 422 naming spec.selector
	for body in "$(mkrs bad1 wl '"app=web"')" "$(mkrs bad2 wl '{"app":"web"}')" "$(mkrs bad3 wl null)" \
		"$(mkrs bad4 wl '{"matchExpressions":[{"key":"app","operator":"Near"}]}')"; do
		[ "$(post_json /apis/apps/v1/namespaces/wl/replicasets "$body")" = 422 ]
		js 'assert d["kind"]=="Status" and d["reason"]=="Invalid" and d["code"]==422, d
assert d["details"]["kind"]=="ReplicaSet" and d["details"]["causes"][0]["field"].startswith("spec.selector"), d' <"$WORK/body"
	done
	[ "$(post_json /apis/apps/v1/namespaces/wl/statefulsets '{"metadata":{"name":"bad"},"spec":{"selector":["app"]}}')" = 422 ]
	js 'assert d["details"]["causes"][0]["field"]=="spec.selector", d' <"$WORK/body"
	# a Service's and an RC's selector: a map of strings
	[ "$(post_json /api/v1/namespaces/wl/services '{"metadata":{"name":"bad"},"spec":{"selector":{"app":1}}}')" = 422 ]
	js 'assert d["details"]["causes"][0]["field"]=="spec.selector", d' <"$WORK/body"
	[ "$(post_json /api/v1/namespaces/wl/replicationcontrollers '{"metadata":{"name":"bad"},"spec":{"selector":["app"]}}')" = 422 ]
	js 'assert d["details"]["causes"][0]["field"]=="spec.selector", d' <"$WORK/body"
	[ "$(post_json /api/v1/namespaces/wl/services '{"metadata":{"name":"Bad_Name"}}')" = 422 ]
	js 'assert d["details"]["causes"][0]["field"]=="metadata.name", d' <"$WORK/body"
	[ "$(post_json /apis/apps/v1/namespaces/wl/replicasets '{"apiVersion":"v1","kind":"ReplicaSet","metadata":{"name":"v"}}')" = 400 ]
	# kubectl shows it too; an update to a bad selector is refused the same way
	cat >"$WORK/bad-sts.yaml" <<-'YAML'
		apiVersion: apps/v1
		kind: StatefulSet
		metadata:
		  name: bad-sts
		  namespace: wl
		spec:
		  serviceName: db
		  selector:
		    matchLabels:
		      app: [db]
		  template:
		    metadata:
		      labels:
		        app: db
		    spec:
		      containers:
		      - name: c
		        image: registry.k8s.io/pause:3.9
	YAML
	if out=$(K create -f "$WORK/bad-sts.yaml" 2>&1); then echo "bad selector accepted: $out"; return 1; fi
	echo "$out"
	grep -q 'StatefulSet "bad-sts" is invalid: spec.selector.matchLabels' <<<"$out"
	[ "$(api_code PATCH /apis/apps/v1/namespaces/wl/replicasets/web-rs -H 'Content-Type: application/merge-patch+json' --data-binary '{"spec":{"selector":"app=web"}}')" = 422 ]
	[ "$(api_code GET /apis/apps/v1/namespaces/wl/replicasets/bad1)" = 404 ]
}
check "a bad selector gets 422 Invalid naming spec.selector (ReplicaSet, StatefulSet, Service, RC; curl and kubectl)" t_workload_invalid

t_workload_delete() {
	local out rv
	rv=$(cur_rv)
	out=$(K delete -f "$WORK/workloads.yaml")
	echo "$out"
	grep -q 'service "web" deleted' <<<"$out"
	grep -q 'replicationcontroller "web-rc" deleted' <<<"$out"
	grep -q 'replicaset.apps "web-rs" deleted' <<<"$out"
	grep -q 'statefulset.apps "db" deleted' <<<"$out"
	if out=$(K get rs web-rs -n wl 2>&1); then echo "still there: $out"; return 1; fi
	echo "$out"
	grep -q 'replicasets.apps "web-rs" not found' <<<"$out"
	api -N --max-time 5 "$URL/apis/apps/v1/statefulsets?watch=1&resourceVersion=$rv&timeoutSeconds=1" |
		js_lines 'assert [(e["type"],e["object"]["metadata"]["name"]) for e in evs]==[("DELETED","db")], evs'
	K get svc,rc,rs,sts -n wl -o name | grep -qx 'replicaset.apps/rs-w'
}
check "kubectl delete -f the four: gone (NotFound names replicasets.apps), DELETED events" t_workload_delete

t_workload_python() {
	[ -n "$PYK" ]
	HOME=$WORK/home timeout 60 "$PYK" - "$KC" <<-'EOF'
		import sys
		from kubernetes import client, config, watch
		config.load_kube_config(config_file=sys.argv[1])
		apps, core = client.AppsV1Api(), client.CoreV1Api()
		rs = apps.list_replica_set_for_all_namespaces().items
		assert [(r.metadata.name, r.spec.replicas, r.status.replicas) for r in rs] == [("rs-w", 5, 1)], rs
		assert rs[0].spec.selector.match_labels == {"app": "x"}, rs[0].spec.selector
		svc = core.list_service_for_all_namespaces().items
		assert [(s.metadata.namespace, s.metadata.name, s.spec.type) for s in svc] == [("default", "other", "ClusterIP")], svc
		core.create_namespaced_replication_controller("wl", client.V1ReplicationController(
		    metadata=client.V1ObjectMeta(name="py-rc"),
		    spec=client.V1ReplicationControllerSpec(selector={"app": "py"}, template=client.V1PodTemplateSpec(
		        metadata=client.V1ObjectMeta(labels={"app": "py"}),
		        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="pause")])))))
		assert core.read_namespaced_replication_controller("py-rc", "wl").spec.replicas == 1
		apps.create_namespaced_stateful_set("wl", client.V1StatefulSet(
		    metadata=client.V1ObjectMeta(name="py-sts"),
		    spec=client.V1StatefulSetSpec(service_name="py", selector=client.V1LabelSelector(match_labels={"app": "py"}),
		                                  template=client.V1PodTemplateSpec(
		                                      metadata=client.V1ObjectMeta(labels={"app": "py"}),
		                                      spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="pause")])))))
		evs = [(e["type"], e["object"].metadata.name) for e in
		       watch.Watch().stream(apps.list_namespaced_stateful_set, "wl", timeout_seconds=1)]
		assert evs == [("ADDED", "py-sts")], evs
		apps.delete_namespaced_stateful_set("py-sts", "wl")
		core.delete_namespaced_replication_controller("py-rc", "wl")
		print("ok")
	EOF
}
check "python client: AppsV1Api / CoreV1Api list, create, read, watch of the workloads" t_workload_python

# ------------------------------------------------------------ 3d. storage: the PV controller and a provisioner
patch_json() { api_code PATCH "$1" -H "Content-Type: ${3:-application/merge-patch+json}" --data-binary "$2"; }
getj() { api "$URL$1"; }
PVCS=/api/v1/namespaces/default/persistentvolumeclaims
SCS=/apis/storage.k8s.io/v1/storageclasses
mkpvc() { # name class size [accessMode]
	printf '{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"%s"},"spec":{"storageClassName":"%s","accessModes":["%s"],"resources":{"requests":{"storage":"%s"}}}}' \
		"$1" "$2" "${4:-ReadWriteOnce}" "$3"
}
mkpv() { # name class size
	printf '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"%s"},"spec":{"storageClassName":"%s","accessModes":["ReadWriteOnce"],"capacity":{"storage":"%s"},"local":{"path":"/mnt/%s"},"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["vn1"]}]}]}}}}' \
		"$1" "$2" "$3" "$1"
}
# vwatch PATH RV: the events of PATH after RV, one "TYPE name rv phase" line each
vwatch() {
	api -N --max-time 5 "$URL$1?watch=true&resourceVersion=$2&timeoutSeconds=1" | js_lines '
for e in evs:
    o = e["object"]
    print(e["type"], o["metadata"]["name"], o["metadata"]["resourceVersion"], (o.get("status") or {}).get("phase"),
          ",".join(sorted((o["metadata"].get("annotations") or {}))))'
}

t_vol_setup() {
	[ "$(post_json /api/v1/nodes '{"metadata":{"name":"vn1","labels":{"kubernetes.io/hostname":"vn1","topology.kubernetes.io/zone":"zone-a"}}}')" = 201 ]
	[ "$(post_json /api/v1/nodes '{"metadata":{"name":"vn2","labels":{"kubernetes.io/hostname":"vn2"}}}')" = 201 ]
	[ "$(post_json $SCS '{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"vlocal"},"provisioner":"kubernetes.io/no-provisioner","volumeBindingMode":"WaitForFirstConsumer"}')" = 201 ]
	[ "$(post_json $SCS '{"metadata":{"name":"vfast"},"provisioner":"kubernetes.io/no-provisioner"}')" = 201 ]
	js 'assert d["volumeBindingMode"]=="Immediate" and d["reclaimPolicy"]=="Delete", d' <"$WORK/body"
	[ "$(post_json $SCS '{"metadata":{"name":"vcsi","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"csi.example.com","volumeBindingMode":"WaitForFirstConsumer"}')" = 201 ]
	K get sc | tee "$WORK/sc.out"
	grep -Eq '^vcsi \(default\) +csi.example.com +Delete +WaitForFirstConsumer +false' "$WORK/sc.out"
	[ "$(post_json /api/v1/persistentvolumes "$(mkpv vpv1 vlocal 5Gi)")" = 201 ]
	js 'assert d["status"]=={"phase":"Pending"} and d["spec"]["persistentVolumeReclaimPolicy"]=="Retain", d' <"$WORK/body"
	getj /api/v1/persistentvolumes/vpv1 | js 'assert d["status"]["phase"]=="Available", d'
	[ "$(post_json $PVCS "$(mkpvc vc1 vlocal 1Gi)")" = 201 ]
	# WaitForFirstConsumer: not bound to the Available volume
	getj $PVCS/vc1 | js 'assert d["status"]["phase"]=="Pending" and "volumeName" not in d["spec"], d
assert d["spec"]["volumeMode"]=="Filesystem", d'
	# the default class for a claim that names none (DefaultStorageClass admission)
	[ "$(post_json $PVCS '{"metadata":{"name":"vc0"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}')" = 201 ]
	js 'assert d["spec"]["storageClassName"]=="vcsi", d' <"$WORK/body"
}
check "storage: classes, volumes and claims get the API's defaults; a new volume becomes Available; a WaitForFirstConsumer claim waits" t_vol_setup

t_vol_static_binding() {
	local rv uid
	rv=$(cur_rv)
	uid=$(getj $PVCS/vc1 | js 'print(d["metadata"]["uid"])')
	# the scheduler's static binding: the volume's claimRef (no uid) and bound-by-controller
	[ "$(patch_json /api/v1/persistentvolumes/vpv1 '{"metadata":{"annotations":{"pv.kubernetes.io/bound-by-controller":"yes"}},"spec":{"claimRef":{"kind":"PersistentVolumeClaim","apiVersion":"v1","namespace":"default","name":"vc1"}}}' application/strategic-merge-patch+json)" = 200 ]
	getj $PVCS/vc1 | js 'a=d["metadata"]["annotations"]
assert d["spec"]["volumeName"]=="vpv1", d
assert a["pv.kubernetes.io/bind-completed"]=="yes" and a["pv.kubernetes.io/bound-by-controller"]=="yes", d
assert d["status"]=={"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"5Gi"}}, d'
	getj /api/v1/persistentvolumes/vpv1 | js "assert d['status']['phase']=='Bound', d
assert d['spec']['claimRef']['uid']=='$uid' and d['spec']['claimRef']['name']=='vc1', d"
	echo "--- claims:"; vwatch /api/v1/persistentvolumeclaims "$rv" | tee "$WORK/vw1"
	echo "--- volumes:"; vwatch /api/v1/persistentvolumes "$rv" | tee "$WORK/vw2"
	[ "$(wc -l <"$WORK/vw1")" = 1 ] && grep -q '^MODIFIED vc1 [0-9]* Bound ' "$WORK/vw1"
	[ "$(wc -l <"$WORK/vw2")" = 2 ] && grep -q '^MODIFIED vpv1 [0-9]* Available ' "$WORK/vw2" &&
		grep -q '^MODIFIED vpv1 [0-9]* Bound ' "$WORK/vw2"
	# the volume's write comes before the claim's, each with its own resourceVersion
	[ "$(awk '{print $3}' "$WORK/vw2" | tail -n1)" -lt "$(awk '{print $3}' "$WORK/vw1")" ]
	K get pv,pvc | tee "$WORK/pv.out"
	grep -Eq '^persistentvolume/vpv1 +5Gi +RWO +Retain +Bound +default/vc1 +vlocal' "$WORK/pv.out"
	grep -Eq '^persistentvolumeclaim/vc1 +Bound +vpv1 +5Gi +RWO +vlocal' "$WORK/pv.out"
}
check "PV controller: a claimRef patched onto a volume (static binding) binds the claim (volumeName, bind-completed, Bound); MODIFIED events" t_vol_static_binding

t_vol_immediate() {
	[ "$(post_json /api/v1/persistentvolumes "$(mkpv vpv10 vfast 10Gi)")" = 201 ]
	[ "$(post_json /api/v1/persistentvolumes "$(mkpv vpv3 vfast 3Gi)")" = 201 ]
	[ "$(post_json /api/v1/persistentvolumes "$(mkpv vpv1g vfast 1Gi)")" = 201 ]
	[ "$(post_json $PVCS "$(mkpvc vc2 vfast 2Gi)")" = 201 ]
	getj $PVCS/vc2 | js 'assert d["spec"]["volumeName"]=="vpv3" and d["status"]["phase"]=="Bound", d'
	# access modes not contained: no volume
	[ "$(post_json $PVCS "$(mkpvc vc2x vfast 2Gi ReadWriteMany)")" = 201 ]
	getj $PVCS/vc2x | js 'assert d["status"]["phase"]=="Pending" and "volumeName" not in d["spec"], d'
	# a volume made later binds a waiting claim
	[ "$(post_json $PVCS "$(mkpvc vc2y vfast 20Gi)")" = 201 ]
	getj $PVCS/vc2y | js 'assert d["status"]["phase"]=="Pending", d'
	[ "$(post_json /api/v1/persistentvolumes "$(mkpv vpv20 vfast 20Gi)")" = 201 ]
	getj $PVCS/vc2y | js 'assert d["spec"]["volumeName"]=="vpv20" and d["status"]["phase"]=="Bound", d'
	getj /api/v1/persistentvolumes/vpv10 | js 'assert d["status"]["phase"]=="Available" and "claimRef" not in d["spec"], d'
}
check "PV controller: an Immediate claim binds the smallest fitting Available volume of its class (access modes, capacity); later volumes bind waiting claims" t_vol_immediate

t_vol_provision() {
	local rv uid
	[ "$(post_json $PVCS "$(mkpvc vc3 vcsi 4Gi)")" = 201 ]
	uid=$(js 'print(d["metadata"]["uid"])' <"$WORK/body")
	[ "$(api_code GET /api/v1/persistentvolumes/pvc-$uid)" = 404 ]
	rv=$(cur_rv)
	[ "$(patch_json $PVCS/vc3 '{"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"vn1"}}}')" = 200 ]
	getj /api/v1/persistentvolumes/pvc-$uid | tee "$WORK/vpv.json" | js "s=d['spec']
assert s['capacity']=={'storage':'4Gi'} and s['accessModes']==['ReadWriteOnce'] and s['storageClassName']=='vcsi', d
assert s['claimRef']['uid']=='$uid' and s['claimRef']['name']=='vc3' and s['claimRef']['namespace']=='default', d
assert s['csi']['driver']=='csi.example.com' and s['csi']['volumeHandle'], d
assert s['nodeAffinity']=={'required':{'nodeSelectorTerms':[{'matchExpressions':[
    {'key':'topology.kubernetes.io/zone','operator':'In','values':['zone-a']}]}]}}, d
assert d['metadata']['labels']=={'topology.kubernetes.io/zone':'zone-a'}, d
assert d['metadata']['annotations']['pv.kubernetes.io/provisioned-by']=='csi.example.com', d
assert s['persistentVolumeReclaimPolicy']=='Delete' and d['status']['phase']=='Bound', d"
	getj $PVCS/vc3 | js "a=d['metadata']['annotations']
assert d['spec']['volumeName']=='pvc-$uid' and d['status']['phase']=='Bound', d
assert d['status']['capacity']=={'storage':'4Gi'}, d
assert a['pv.kubernetes.io/bind-completed']=='yes' and a['volume.kubernetes.io/selected-node']=='vn1', d
assert a['volume.kubernetes.io/storage-provisioner']=='csi.example.com', d"
	echo "--- volumes:"; vwatch /api/v1/persistentvolumes "$rv" | tee "$WORK/vw3"
	grep -q "^ADDED pvc-$uid [0-9]* Pending" "$WORK/vw3"
	grep -q "^MODIFIED pvc-$uid [0-9]* Bound" "$WORK/vw3"
	echo "--- claims:"; vwatch /api/v1/persistentvolumeclaims "$rv" | tee "$WORK/vw4"
	tail -n1 "$WORK/vw4" | grep -q '^MODIFIED vc3 [0-9]* Bound '
	# a node without a zone: kubernetes.io/hostname
	[ "$(post_json $PVCS "$(mkpvc vc3b vcsi 1Gi)")" = 201 ]
	uid=$(js 'print(d["metadata"]["uid"])' <"$WORK/body")
	[ "$(patch_json $PVCS/vc3b '{"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"vn2"}}}')" = 200 ]
	getj /api/v1/persistentvolumes/pvc-$uid | js 'assert d["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"]==[
    {"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["vn2"]}]}], d
assert "labels" not in d["metadata"], d'
	# the claim deleted: its provisioned volume (reclaim policy Delete) goes too
	[ "$(api_code DELETE $PVCS/vc3b)" = 200 ]
	[ "$(api_code GET /api/v1/persistentvolumes/pvc-$uid)" = 404 ]
}
check "provisioner: a claim annotated selected-node gets a pvc-<uid> CSI volume in the node's zone (ADDED), then is bound; hostname without a zone" t_vol_provision

t_vol_refuse() {
	local rv uid
	fault '{"provision_fail":true,"match":"/persistentvolumeclaims/vc5"}'
	api "$URL/debug/faults" | js 'assert d["provision_fail"] is True and d["provision_fail_match"]=="/persistentvolumeclaims/vc5", d'
	[ "$(post_json $PVCS "$(mkpvc vc5 vcsi 2Gi)")" = 201 ]
	uid=$(js 'print(d["metadata"]["uid"])' <"$WORK/body")
	rv=$(cur_rv)
	[ "$(patch_json $PVCS/vc5 '{"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"vn1"}}}')" = 200 ]
	js 'assert d["metadata"]["annotations"]["volume.kubernetes.io/selected-node"]=="vn1", d' <"$WORK/body"
	getj $PVCS/vc5 | js 'assert "volume.kubernetes.io/selected-node" not in d["metadata"]["annotations"], d
assert d["status"]["phase"]=="Pending" and "volumeName" not in d["spec"], d'
	[ "$(api_code GET /api/v1/persistentvolumes/pvc-$uid)" = 404 ]
	echo "--- claims:"; vwatch /api/v1/persistentvolumeclaims "$rv" | tee "$WORK/vw5"
	tail -n1 "$WORK/vw5" | grep -q '^MODIFIED vc5 [0-9]* Pending volume.beta.kubernetes.io/storage-provisioner,volume.kubernetes.io/storage-provisioner$'
	getj "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dvc5" | js 'e=d["items"]
assert len(e)==1 and e[0]["reason"]=="ProvisioningFailed" and e[0]["type"]=="Warning", e
assert e[0]["involvedObject"]["kind"]=="PersistentVolumeClaim" and e[0]["source"]["component"]=="csi.example.com", e'
	# other claims are not covered by the match
	[ "$(post_json $PVCS "$(mkpvc vc6 vcsi 2Gi)")" = 201 ]
	[ "$(patch_json $PVCS/vc6 '{"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"vn1"}}}')" = 200 ]
	getj $PVCS/vc6 | js 'assert d["status"]["phase"]=="Bound", d'
	# off, then provision_fail_next: refused once more, then provisioned
	fault '{"provision_fail":false,"provision_fail_next":1}'
	[ "$(patch_json $PVCS/vc5 '{"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"vn1"}}}')" = 200 ]
	getj $PVCS/vc5 | js 'assert "volume.kubernetes.io/selected-node" not in d["metadata"]["annotations"], d'
	api "$URL/debug/faults" | js 'assert d["provision_fail"] is False and d["provision_fail_next"]==[], d'
	[ "$(patch_json $PVCS/vc5 '{"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"vn1"}}}')" = 200 ]
	getj $PVCS/vc5 | js "assert d['status']['phase']=='Bound' and d['spec']['volumeName']=='pvc-$uid', d"
	# a node that does not exist is refused alike
	[ "$(post_json $PVCS "$(mkpvc vc7 vcsi 2Gi)")" = 201 ]
	[ "$(patch_json $PVCS/vc7 '{"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"nonode"}}}')" = 200 ]
	getj $PVCS/vc7 | js 'assert "volume.kubernetes.io/selected-node" not in d["metadata"]["annotations"], d'
}
check "fault provision_fail(_next): the provisioner removes selected-node (MODIFIED), makes no volume, records ProvisioningFailed; off again, it provisions" t_vol_refuse

t_vol_cleanup() {
	local p
	fault '{"clear":true}'
	for p in $(getj $PVCS | js 'print(" ".join(i["metadata"]["name"] for i in d["items"]))'); do
		[ "$(api_code DELETE $PVCS/$p)" = 200 ]
	done
	# the provisioned volumes (reclaim policy Delete) went with their claims; the others are Released
	getj /api/v1/persistentvolumes | js 'v={i["metadata"]["name"]:i["status"]["phase"] for i in d["items"]}
assert v=={"vpv1":"Released","vpv3":"Released","vpv20":"Released","vpv10":"Available","vpv1g":"Available"}, v'
	for p in vpv1 vpv3 vpv20 vpv10 vpv1g; do [ "$(api_code DELETE /api/v1/persistentvolumes/$p)" = 200 ]; done
	for p in vlocal vfast vcsi; do [ "$(api_code DELETE $SCS/$p)" = 200 ]; done
	for p in vn1 vn2; do [ "$(api_code DELETE /api/v1/nodes/$p)" = 200 ]; done
	api "$URL/debug/state" | js 'c=d["counts"]
assert c["persistentvolumeclaims"]==0 and c["persistentvolumes"]==0 and c["storageclasses"]==0, c'
}
check "storage: claims deleted -> provisioned volumes deleted, the others Released; then all gone" t_vol_cleanup

# ------------------------------------------------------------ 4. watches and faults
t_watch_selector_transition() {
	local rv
	rv=$(cur_rv)
	[ "$(post_json /api/v1/namespaces/default/pods "$(mkpod tr1)")" = 201 ]
	[ "$(post_json /api/v1/namespaces/default/pods/tr1/binding '{"metadata":{"name":"tr1"},"target":{"name":"kn1"}}')" = 201 ]
	api -N --max-time 5 "$URL/api/v1/pods?watch=true&resourceVersion=$rv&timeoutSeconds=1&fieldSelector=spec.nodeName%3D" >"$WORK/tr.out"
	cat "$WORK/tr.out" | cut -c1-150
	"$PY" - "$WORK/tr.out" <<-'EOF'
		import json, sys
		evs = [json.loads(l) for l in open(sys.argv[1])]
		got = [(e["type"], e["object"]["metadata"]["name"]) for e in evs]
		assert got == [("ADDED", "tr1"), ("DELETED", "tr1")], got
		assert all(e["object"]["kind"] == "Pod" and e["object"]["apiVersion"] == "v1" for e in evs)
		assert int(evs[1]["object"]["metadata"]["resourceVersion"]) > int(evs[0]["object"]["metadata"]["resourceVersion"])
	EOF
}
check "watch with fieldSelector spec.nodeName=: binding turns into DELETED; objects carry kind/apiVersion" t_watch_selector_transition

t_watch_rv() {
	local rv
	rv=$(cur_rv)
	# no resourceVersion: the current state first (ADDED), then changes
	api -N --max-time 5 "$URL/api/v1/namespaces/paging/pods?watch=1&timeoutSeconds=1" | js_lines 'assert len(evs)==25 and {e["type"] for e in evs}=={"ADDED"}'
	# a resourceVersion in the future: waits until the store gets there
	(sleep 0.3; for i in 1 2 3; do post_json /api/v1/namespaces/default/pods "$(mkpod fut$i)" >/dev/null; done) &
	api -N --max-time 5 "$URL/api/v1/namespaces/default/pods?watch=true&resourceVersion=$((rv + 1))&timeoutSeconds=2" |
		js_lines 'assert [e["object"]["metadata"]["name"] for e in evs]==["fut2","fut3"], evs'
	wait
	# wrong media type
	[ "$(api_code POST /api/v1/namespaces/default/pods -H 'Content-Type: text/plain' --data-binary "$(mkpod mt)")" = 415 ]
	js 'assert d["reason"]=="UnsupportedMediaType", d' <"$WORK/body"
}
check "watch resourceVersion: unset -> initial ADDED, future -> waits; a non-JSON Content-Type -> 415" t_watch_rv

t_fault_500() {
	fault '{"http_500_next":2}'
	[ "$(api_code GET /api/v1/nodes)" = 500 ]
	js 'assert d["kind"]=="Status" and d["code"]==500 and d["reason"]=="InternalError", d' <"$WORK/body"
	[ "$(api_code GET /api/v1/nodes)" = 500 ]
	[ "$(api_code GET /api/v1/nodes)" = 200 ]
	# narrowed to binding requests; recorded in /debug/bindings
	fault '{"http_500_next":1,"match":"/binding"}'
	[ "$(api_code GET /api/v1/nodes)" = 200 ]
	[ "$(post_json /api/v1/namespaces/default/pods "$(mkpod f5)")" = 201 ]
	[ "$(post_json /api/v1/namespaces/default/pods/f5/binding '{"metadata":{"name":"f5"},"target":{"name":"kn1"}}')" = 500 ]
	[ "$(post_json /api/v1/namespaces/default/pods/f5/binding '{"metadata":{"name":"f5"},"target":{"name":"kn1"}}')" = 201 ]
	api "$URL/debug/bindings?pod=default/f5" | js 'assert [e["code"] for e in d]==[500,201], d'
	fault '{"http_429_next":1}'
	[ "$(api_code GET /api/v1/nodes -D "$WORK/h")" = 429 ]
	grep -qi '^Retry-After: 1' "$WORK/h"
}
check "fault http_500_next: the next N requests get a 500 Status (and match narrows it); 429 too" t_fault_500

t_fault_410() {
	local rv out
	rv=$(cur_rv)
	[ "$(post_json /api/v1/namespaces/default/pods "$(mkpod c410)")" = 201 ]
	api "$URL/api/v1/namespaces/paging/pods?limit=5" | js 'print(d["metadata"]["continue"])' >"$WORK/cont"
	[ "$(post_json /api/v1/namespaces/default/pods "$(mkpod c410b)")" = 201 ]
	fault '{"compact":true}'
	api -N --max-time 5 "$URL/api/v1/pods?watch=true&resourceVersion=$rv&timeoutSeconds=2" >"$WORK/w410.out"
	cat "$WORK/w410.out"
	js 'assert d["type"]=="ERROR", d
o=d["object"]; assert o["kind"]=="Status" and o["code"]==410 and o["reason"]=="Expired", o
assert o["message"].startswith("too old resource version: '"$rv"' ("), o' <"$WORK/w410.out"
	# the current resourceVersion still watches fine
	api -N --max-time 5 "$URL/api/v1/pods?watch=true&resourceVersion=$(cur_rv)&timeoutSeconds=1" >"$WORK/w410b.out"
	[ ! -s "$WORK/w410b.out" ]
	# an old continue token is expired too
	[ "$(api_code GET "/api/v1/namespaces/paging/pods?limit=5&continue=$(cat "$WORK/cont")")" = 410 ]
	js 'assert d["reason"]=="Expired", d' <"$WORK/body"
}
check "fault compact: a watch from an old resourceVersion gets ERROR 410 Expired; old continue -> 410" t_fault_410

t_fault_malformed_first() {
	fault '{"malformed_line_next_watch":true}'
	api -N --max-time 5 "$URL/api/v1/namespaces/paging/pods?watch=true&timeoutSeconds=1" >"$WORK/wm.out"
	"$PY" - "$WORK/wm.out" <<-'EOF'
		import json, sys
		lines = open(sys.argv[1]).read().split("\n")[:-1]
		try:
		    json.loads(lines[0]); raise SystemExit("first line parsed")
		except ValueError: pass
		evs = [json.loads(l) for l in lines[1:]]
		assert len(evs) == 25 and all(e["type"] == "ADDED" for e in evs), len(evs)
	EOF
}
check "fault malformed_line_next_watch: one non-JSON line first, then the stream goes on" t_fault_malformed_first

t_fault_drop() {
	local rc=0
	fault '{"drop_watch_after_events":3}'
	api -N --max-time 5 "$URL/api/v1/namespaces/paging/pods?watch=true&timeoutSeconds=3" >"$WORK/wd.out" 2>"$WORK/wd.err" || rc=$?
	echo "curl exit $rc: $(cat "$WORK/wd.err")"
	[ $rc -ne 0 ]
	"$PY" - "$WORK/wd.out" <<-'EOF'
		import json, sys
		text = open(sys.argv[1]).read()
		lines = text.split("\n")
		full, partial = lines[:-1], lines[-1]
		assert len(full) == 3, len(full)
		for l in full: json.loads(l)
		assert partial and partial.startswith('{"type":"ADDED"'), partial[:80]
		try:
		    json.loads(partial); raise SystemExit("partial line parsed")
		except ValueError: pass
	EOF
	api "$URL/debug/faults" | js 'assert d["watch_faults"]==[], d'
	# with nothing more to send, the drop cuts a line within 0.2 s all the same
	fault '{"drop_watch_after_events":1,"match":"fieldSelector=metadata.name%3Ddrop1"}'
	(sleep 0.3; post_json /api/v1/namespaces/default/pods "$(mkpod drop1)" >/dev/null) &
	watchread "/api/v1/namespaces/default/pods?watch=true&resourceVersion=$(cur_rv)&timeoutSeconds=5&fieldSelector=metadata.name%3Ddrop1" "$WORK/wd2.json"
	wait
	js 'assert len(d["lines"])==1 and json.loads(d["lines"][0])["type"]=="ADDED", d["lines"]
assert d["partial"] and d["error"] and d["elapsed"]<2, (d["partial"], d["error"], d["elapsed"])' <"$WORK/wd2.json"
}

t_fault_expire() {
	fault '{"expire_watch_after_events":2}'
	api -N --max-time 5 "$URL/api/v1/namespaces/paging/pods?watch=true&timeoutSeconds=3" >"$WORK/we.out"
	cut -c1-120 "$WORK/we.out"
	"$PY" - "$WORK/we.out" <<-'EOF'
		import json, sys
		evs = [json.loads(l) for l in open(sys.argv[1])]
		assert [e["type"] for e in evs] == ["ADDED", "ADDED", "ERROR"], [e["type"] for e in evs]
		o = evs[2]["object"]
		assert o["code"] == 410 and o["reason"] == "Expired" and o["message"].startswith("too old resource version"), o
	EOF
}
check "fault expire_watch_after_events: ERROR 410 mid-stream, then a clean end" t_fault_expire

cat >"$WORK/watchread.py" <<'EOF'
# watchread.py URL TOKEN CA OUT: reads a watch, writes {"status","lines","times","partial","error","started"}
# to OUT; times are seconds since the request, started is when that was (time.time(), the clock a
# marker taken before the process started can be compared with)
import http.client, json, ssl, sys, time, urllib.parse
url, token, ca, out = sys.argv[1:5]
u = urllib.parse.urlsplit(url)
conn = http.client.HTTPSConnection(u.hostname, u.port, context=ssl.create_default_context(cafile=ca), timeout=30)
t0 = time.time()
conn.request("GET", u.path + "?" + u.query, headers={"Authorization": "Bearer " + token})
r = conn.getresponse()
res = {"status": r.status, "headers": dict(r.getheaders()), "lines": [], "times": [], "partial": "", "error": None,
       "started": t0}
buf = b""
try:
    while True:
        c = r.read1(1 << 20)
        if not c:
            break
        buf += c
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            res["lines"].append(line.decode())
            res["times"].append(round(time.time() - t0, 3))
except Exception as e:
    res["error"] = "%s: %s" % (type(e).__name__, e)
res["partial"] = buf.decode(errors="replace")
res["elapsed"] = round(time.time() - t0, 3)
json.dump(res, open(out, "w"))
EOF
watchread() { "$PY" "$WORK/watchread.py" "$URL$1" "$TOKEN" "$CA" "$2"; }

t_fault_stall_and_bookmarks() {
	local rv
	rv=$(cur_rv)
	fault '{"bookmark_interval_seconds":0.3}'
	watchread "/api/v1/namespaces/default/pods?watch=true&resourceVersion=$rv&allowWatchBookmarks=true&timeoutSeconds=1" "$WORK/wb.json"
	js 'evs=[json.loads(l) for l in d["lines"]]
b=[e for e in evs if e["type"]=="BOOKMARK"]
assert len(b)>=2 and all(e["object"]["kind"]=="Pod" and e["object"]["apiVersion"]=="v1" and e["object"]["metadata"]["resourceVersion"] for e in b), evs
assert list(b[0]["object"]["metadata"])==["resourceVersion","creationTimestamp"], b[0]
assert d["headers"].get("Transfer-Encoding")=="chunked" and d["error"] is None and 0.9<d["elapsed"]<3, d' <"$WORK/wb.json"
	# the stall runs from the fault request on: measured from a mark taken
	# before it, not from the watch's start, which comes after python3 has
	# started (0.2 s and more for some interpreters)
	local mark
	mark=$(date +%s.%N)
	fault '{"bookmark_interval_seconds":10,"stall_watch_seconds":1.5}'
	(sleep 0.3; post_json /api/v1/namespaces/default/pods "$(mkpod st1)" >/dev/null) &
	watchread "/api/v1/namespaces/default/pods?watch=true&resourceVersion=$rv&timeoutSeconds=3" "$WORK/ws.json"
	wait
	js 'evs=[json.loads(l) for l in d["lines"]]
assert [e["object"]["metadata"]["name"] for e in evs]==["st1"], evs
after = d["started"] + d["times"][0] - '"$mark"'
assert after>=1.3, ("first event %.3f s after the stall began" % after, d["times"])' <"$WORK/ws.json"
}
check "fault drop_watch_after_events: N events, half a line, connection aborted (once; also when idle)" t_fault_drop

check "BOOKMARK events with allowWatchBookmarks (Pod kind, only metadata.resourceVersion); fault stall_watch_seconds" t_fault_stall_and_bookmarks

t_auth() {
	[ "$(curl -sS --cacert "$CA" -o "$WORK/body" -w '%{http_code}' -H 'Authorization: Bearer wrong' "$URL/api/v1/nodes")" = 401 ]
	js 'assert d=={"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}, d' <"$WORK/body"
	[ "$(curl -sS --cacert "$CA" -o "$WORK/body" -w '%{http_code}' "$URL/version")" = 401 ]
	[ "$(curl -sS --cacert "$CA" -o "$WORK/body" -w '%{http_code}' "$URL/debug/state")" = 401 ]
	[ "$(curl -sS --cacert "$CA" -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wrong' "$URL/api/v1/namespaces/default/pods?watch=true")" = 401 ]
	local out
	if out=$(HOME=$WORK/home "$KUBECTL" --kubeconfig "$KC" --token wrong get nodes 2>&1); then return 1; fi
	echo "$out"
	grep -qi 'unauthorized' <<<"$out"
}
check "a wrong or missing token gets 401 with a Status body (curl and kubectl)" t_auth

t_bad_ca() {
	local rc=0
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/other.key" \
		-out "$WORK/other.crt" -days 1 -subj /CN=other-ca >/dev/null 2>&1
	curl -sS --cacert "$WORK/other.crt" -H "Authorization: Bearer $TOKEN" "$URL/version" >/dev/null 2>"$WORK/ca.err" || rc=$?
	cat "$WORK/ca.err"
	[ $rc -eq 60 ] || [ $rc -eq 35 ]
	sed "s#certificate-authority: .*#certificate-authority: \"$WORK/other.crt\"#" "$KC" >"$WORK/bad-kubeconfig"
	if out=$(HOME=$WORK/home "$KUBECTL" --kubeconfig "$WORK/bad-kubeconfig" get nodes 2>&1); then return 1; fi
	echo "$out"
	grep -q 'x509' <<<"$out"
}
check "a client trusting another CA fails the TLS handshake (curl exit 60, kubectl x509)" t_bad_ca

t_big_object() {
	local rv
	rv=$(cur_rv)
	"$PY" - "$WORK/big.json" <<-'EOF'
		import json, sys
		pod = {"apiVersion": "v1", "kind": "Pod",
		       "metadata": {"name": "big", "annotations": {"big": "x" * (2 * 1024 * 1024)}},
		       "spec": {"containers": [{"name": "c", "image": "pause"}]}}
		json.dump(pod, open(sys.argv[1], "w"))
	EOF
	[ "$(api_code POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' --data-binary @"$WORK/big.json")" = 201 ]
	api "$URL/api/v1/namespaces/default/pods/big" | js 'assert len(d["metadata"]["annotations"]["big"])==2*1024*1024'
	watchread "/api/v1/namespaces/default/pods?watch=true&resourceVersion=$rv&timeoutSeconds=1" "$WORK/wbig.json"
	js 'evs=[json.loads(l) for l in d["lines"]]
assert len(evs)==1 and len(evs[0]["object"]["metadata"]["annotations"]["big"])==2*1024*1024 and d["error"] is None' <"$WORK/wbig.json"
	[ "$(api_code DELETE /api/v1/namespaces/default/pods/big)" = 200 ]
	# and over the limit: 413
	"$PY" -c 'import json; print(json.dumps({"metadata":{"name":"huge","annotations":{"a":"x"*(4<<20)}}}))' >"$WORK/huge.json"
	[ "$(api_code POST /api/v1/namespaces/default/pods -H 'Content-Type: application/json' --data-binary @"$WORK/huge.json")" = 413 ]
}
check "a 2 MB pod (large annotation): create, get, and streamed in a watch; 4 MB -> 413" t_big_object

t_bulk() {
	local t0 t1
	t0=$(date +%s%N)
	api -X POST -H 'Content-Type: application/json' \
		--data-binary '{"generate":{"nodes":{"count":5000,"prefix":"bn-"},"pods":{"count":20000,"prefix":"bp-","namespace":"bulk"}}}' \
		"$URL/debug/bulk" >"$WORK/bulk.json"
	t1=$(date +%s%N)
	cat "$WORK/bulk.json"
	echo
	echo "bulk create: $(((t1 - t0) / 1000000)) ms"
	js 'assert d["created"]==25000 and d["errorCount"]==0, d' <"$WORK/bulk.json"
	api "$URL/debug/state" | js 'assert d["counts"]["nodes"]==5001 and d["counts"]["pods"]>=20000, d["counts"]'
	"$PY" - "$URL" "$TOKEN" "$CA" <<-'EOF'
		import http.client, json, ssl, sys, time, urllib.parse
		url, token, ca = sys.argv[1:4]
		u = urllib.parse.urlsplit(url)
		conn = http.client.HTTPSConnection(u.hostname, u.port, context=ssl.create_default_context(cafile=ca))
		def get(path):  # one keep-alive connection for all pages
		    conn.request("GET", path, headers={"Authorization": "Bearer " + token})
		    r = conn.getresponse()
		    assert r.status == 200, r.status
		    return json.loads(r.read())
		t0 = time.time()
		for path, want in (("/api/v1/namespaces/bulk/pods", 20000), ("/api/v1/nodes", 5001)):
		    names, cont, rvs, pages = [], "", set(), 0
		    while True:
		        d = get(path + "?limit=500" + ("&continue=" + urllib.parse.quote(cont) if cont else ""))
		        pages += 1
		        names += [i["metadata"]["name"] for i in d["items"]]
		        rvs.add(d["metadata"]["resourceVersion"])
		        cont = d["metadata"].get("continue")
		        if not cont:
		            break
		    assert len(names) == want and len(set(names)) == want and len(rvs) == 1, (path, len(names), rvs)
		    print("%s: %d items in %d pages" % (path, len(names), pages))
		d = get("/api/v1/pods?fieldSelector=spec.nodeName%3D,metadata.namespace%3Dbulk&limit=0")
		assert len(d["items"]) == 20000, len(d["items"])
		print("paged and filtered lists: %.2f s" % (time.time() - t0))
	EOF
	# 5000 nodes and 20000 pods in well under 20 s
	[ $(((t1 - t0) / 1000000)) -lt 20000 ]
}
check "bulk: 5000 nodes + 20000 pods via /debug/bulk, then paged lists of 500 (one RV)" t_bulk

t_no_leaks() {
	local i pids=() base
	sleep 0.3
	base=$(api "$URL/debug/state" | js 'print(d["threads"])')
	echo "threads before: $base"
	for i in $(seq 1 20); do
		curl -sS -N --cacert "$CA" -H "Authorization: Bearer $TOKEN" "$URL/api/v1/pods?watch=true&resourceVersion=$(cur_rv)" >/dev/null 2>&1 &
		pids+=($!)
	done
	wait_watches 20
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null || true
	for i in $(seq 1 40); do
		api "$URL/debug/state" >"$WORK/st.json"
		if js 'assert d["activeWatches"]==0 and d["threads"]<='"$base"'+1, (d["activeWatches"], d["threads"])' <"$WORK/st.json" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	cat "$WORK/st.json"
	return 1
}
check "no thread leaks: 20 watches whose clients vanish are gone within 4 s" t_no_leaks

t_plain_http() {
	local url
	url=$(sed -n 's/^READY //p' "$WORK/plain.out")
	echo "url=$url"
	case $url in http://127.0.0.1:[0-9]*) ;; *) return 1 ;; esac
	curl -sS -H 'Authorization: Bearer plain-token' "$url/version" | js 'assert d["gitVersion"]=="v1.20.2"'
	[ "$(curl -sS -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer wrong' "$url/version")" = 401 ]
	# kubectl sends no credentials over plain HTTP (like the old insecure port): let in
	grep -q "server: $url" "$WORK/plain/kubeconfig"
	HOME=$WORK/home "$KUBECTL" --kubeconfig "$WORK/plain/kubeconfig" get ns default -o name | grep -q namespace/default
}
PIDS+=("$(start_server "$WORK/plain.out" --cert-dir "$WORK/plain" --plain-http --token plain-token)")
check "--plain-http --token: plain HTTP with the given token, kubeconfig for it" t_plain_http

t_server_alive() {
	kill -0 "$SPID"
	[ ! -s "$WORK/server.out.err" ] || { cat "$WORK/server.out.err"; return 1; }
}
check "the server is still up and wrote nothing to stderr" t_server_alive

finish
