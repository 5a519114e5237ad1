#!/usr/bin/env bash
# Ingest and bind throughput against the stand-in API server (HTTPS, bearer
# token), through the watch and bind workers.  Sourced by test/bench/run with
# $dir (the bench folder: server socket, the stand-in's copy) and as_pg set;
# the extension is installed in database postgres, where the workers run.
#
#   ingest_list   5000 nodes and 20000 pods already in the API when the
#                 workers are pointed at it: objects/s from the reload to the
#                 tables holding them all (one LIST each, relist())
#   ingest_watch  20000 more pods created at once: events/s from the moment
#                 the stand-in publishes them (its bulk POST returns) until
#                 the tables hold them (the watch, applied in batches)
#   bind          20000 pending pods created at once: pods/s from their
#                 publication (the stand-in's bulk POST returns, as in
#                 ingest_watch) to the API server's record showing every one
#                 bound (watch -> queue -> schedule_pending -> outbox -> POST
#                 binding); bind_ref's clock too starts once its pods are made
#   bind_ref      the stand-in's own capacity, same run: a plain client
#                 (bind_ref.py, 16 connections) binding 10000 pods and nothing
#                 else; the bind figure is quoted as a share of it
#   bind_standin  how busy the stand-in was in each of the two (its process's
#                 CPU time over the wall time, and per pod, each bulk load of
#                 the pods included): near 100% in bind_ref, where it is the
#                 limit; when well below that in bind, the scheduler's side
#                 (the workers, on the same cores) set the pace there, not the
#                 stand-in
#   wffc_provisioned_pvs
#                 the stand-in emptied, then 5000 nodes in three zones, a
#                 WaitForFirstConsumer StorageClass with a CSI provisioner and
#                 1000 unbound claims of it; 1000 pods created at once, each
#                 with its own claim: pods/s from their creation to the API
#                 server's record showing every one bound (the scheduler's
#                 PreBind sets the claim's selected-node through the outbox,
#                 the stand-in provisions a volume in that node's zone and
#                 binds the claim, then the bind worker sends the Binding);
#                 the outcome checked, a wrong one fails the bench (wffc.py)
# The pods of the ingest phases name another scheduler, so only the mirror
# works on them.  The stand-in is single-process Python, on the same cores
# as the workers (bind_standin says whether it bounded the bind figure); the
# figure is also quoted beside kube-scheduler's default API client rate
# (kubeAPIQPS 50, burst 100), which its bindings go through.
# With only=ingest (run --only ingest) just the ingest figures are measured;
# with only=wffc just wffc_provisioned_pvs; with only=bind the ingest and
# bind figures.
set -euo pipefail

api_dir="$dir/api"
as_pg mkdir -p "$api_dir"
as_pg python3 "$dir/kube_apiserver.py" --port 0 --cert-dir "$api_dir" >"$dir/api.log" 2>&1 &
for _ in $(seq 1 100); do [ -s "$api_dir/server.json" ] && grep -q READY "$dir/api.log" && break; sleep 0.1; done
api_pid=$(python3 -c "import json; print(json.load(open('$api_dir/server.json'))['pid'])")
url=$(python3 -c "import json; print(json.load(open('$api_dir/server.json'))['url'])")
kreq() { as_pg python3 "$dir/kreq.py" "$api_dir/server.json" "$@" 2>/dev/null; }
q() { as_pg psql -X -h "$dir" -d postgres -Atc "$1"; }
now() { date +%s.%N; }
rate() { python3 -c "print(round($1 / ($3 - $2)))"; }
wait_for() {	# wait_for SQL: until it returns t (at most 10 minutes)
	local deadline=$(( $(date +%s) + 600 ))
	until [ "$(q "$1")" = t ]; do
		[ "$(date +%s)" -lt "$deadline" ] || { echo "api bench: timed out waiting for: $1" >&2; return 1; }
		sleep 0.05
	done
}
# watch_for SQL: the same, polled from one session every 10 ms (a new psql
# every 50 ms took a share of the 2 cores the workers were measured on);
# SQL must be cheap: an index lookup, not a count over the table
watch_for() {
	as_pg psql -X -h "$dir" -d postgres -v ON_ERROR_STOP=1 -qAtc "DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
		WHILE NOT ($1) LOOP
			IF clock_timestamp() > t0 + interval '10 minutes' THEN RAISE 'api bench: timed out waiting for: %', \$q\$$1\$q\$; END IF;
			PERFORM pg_sleep(0.01);
		END LOOP; END \$\$" >/dev/null
}
# bound_at_least N: until the stand-in's record shows N bindings answered
# 201, asked every 50 ms by one client over one connection (a kreq and a
# python3 every 0.1 s, each a new process and TLS handshake, took 40% of a
# core from the 2 the stand-in and the workers were measured on)
bound_at_least() {
	as_pg python3 -c "
import http.client, json, ssl, sys, time
s = json.load(open(sys.argv[1]))
n, deadline, c = int(sys.argv[2]), time.time() + 600, None
while time.time() < deadline:
    try:
        c = c or http.client.HTTPSConnection('127.0.0.1', s['port'], context=ssl.create_default_context(cafile=s['ca']))
        c.request('GET', '/debug/state', headers={'Authorization': 'Bearer ' + s['token']})
        if json.loads(c.getresponse().read())['bindings']['succeeded'] >= n:
            sys.exit(0)
    except (OSError, http.client.HTTPException, ValueError):
        c = None
    time.sleep(0.05)
sys.exit('api bench: timed out waiting for %d bindings' % n)" "$api_dir/server.json" "$1"
}
pod_there() { echo "EXISTS (SELECT 1 FROM scheduler.pods WHERE namespace = 'default' AND name = '$1')"; }
api_connect() {
	as_pg psql -X -h "$dir" -d postgres -Atq -c "ALTER SYSTEM SET scheduler.kube_api_url = '$url'" \
		-c "ALTER SYSTEM SET scheduler.kube_token_file = '$api_dir/token'" \
		-c "ALTER SYSTEM SET scheduler.kube_ca_file = '$api_dir/ca.crt'" -c "SELECT pg_reload_conf()" >/dev/null
}
api_disconnect() {
	q "ALTER SYSTEM RESET scheduler.kube_api_url" >/dev/null
	q "ALTER SYSTEM RESET scheduler.kube_token_file" >/dev/null
	q "ALTER SYSTEM RESET scheduler.kube_ca_file" >/dev/null
	q "SELECT pg_reload_conf()" >/dev/null
	sleep 1
}

if [ "${only:-}" != wffc ]; then
kreq POST /debug/bulk '{"generate": {"nodes": {"count": 5000}, "pods": {"count": 20000, "prefix": "other-", "schedulerName": "other-scheduler"}}}' >/dev/null

# --- ingest by LIST
t0=$(now)
api_connect
# a list is applied in one transaction: its last item there, all are
watch_for "$(pod_there other-19999) AND EXISTS (SELECT 1 FROM scheduler.nodes WHERE name = 'node-4999')"
t1=$(now)
wait_for "SELECT (SELECT count(*) FROM scheduler.nodes) = 5000 AND (SELECT count(*) FROM scheduler.pods) = 20000"
echo "ingest_list: $(rate 25000 "$t0" "$t1") objects/s (5000 nodes and 20000 pods listed and applied in $(python3 -c "print(round($t1 - $t0, 2))") s)"

# --- ingest by WATCH
# The stand-in makes the 20000 pods under its store's lock and publishes
# them together when its bulk POST returns: no event reaches a watch before
# then.  The clock starts there, so that the figure is the mirror's, not the
# time Python takes to validate and store 20000 pods (printed beside it).
wait_for "SELECT count(*) = 2 FROM scheduler.watch_state WHERE resource IN ('nodes', 'pods')"
tc=$(now)
kreq POST /debug/bulk '{"generate": {"pods": {"count": 20000, "start": 20000, "prefix": "other-", "schedulerName": "other-scheduler"}}}' >/dev/null
t0=$(now)
# the events come in order and each batch commits in order: the last pod
# there, all are (counted after the clock stops)
watch_for "$(pod_there other-39999)"
t1=$(now)
wait_for "SELECT count(*) = 40000 FROM scheduler.pods"
echo "ingest_watch: $(rate 20000 "$t0" "$t1") events/s (20000 ADDED events applied in $(python3 -c "print(round($t1 - $t0, 2))") s from their publication, batches of up to $(q "SHOW scheduler.watch_batch_size"); the stand-in took $(python3 -c "print(round($t0 - $tc, 2))") s to make them before)"

if [ "${only:-}" = ingest ]; then
	kill "$api_pid" 2>/dev/null || true
	return 0
fi

# --- bind, end to end
# the stand-in's CPU time so far, in seconds (user and system, all threads)
standin_cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$api_pid/stat"; }
# The clock starts when the stand-in publishes the pods (its bulk POST
# returns; it makes them under its store's lock, and no event reaches the
# watch before): the time it takes to make them is no part of the
# scheduler's, nor of bind_ref's, whose clock starts after its pods are made
# (printed beside it, and counted in bind_standin).
c0=$(standin_cpu)
tc=$(now)
kreq POST /debug/bulk '{"generate": {"pods": {"count": 20000, "prefix": "web-"}}}' >/dev/null
t0=$(now)
bound_at_least 20000
t1=$(now)
c1=$(standin_cpu)
b=$(rate 20000 "$t0" "$t1")
twice=$(kreq GET '/debug/bindings?summary=1' | python3 -c "import json, sys; print(sum(1 for v in json.load(sys.stdin).values() if v['succeeded'] != 1))")
echo "bind: $b pods/s bound through the API ($(python3 -c "print(round($t1 - $t0, 2))") s for 20000 pods from their publication, $twice pods not bound exactly once; the stand-in took $(python3 -c "print(round($t0 - $tc, 2))") s to make them before), $(python3 -c "print(round($b / 50, 1))")x kube-scheduler's default client rate of 50 requests/s"
# the stand-in's own capacity, the same run: a plain client binding only
# (the workers disconnected first, so that nothing else runs)
api_disconnect
c2=$(standin_cpu)
t2=$(now)
ref=$(as_pg python3 "$dir/bind_ref.py" "$api_dir/server.json" 10000)
t3=$(now)
c3=$(standin_cpu)
echo "bind_ref: the stand-in takes $ref binds/s from a plain client (16 connections, nothing else to do): the scheduler's end-to-end rate is $(python3 -c "print(round(100 * $b / $ref))")% of it"
echo "bind_standin: the stand-in was busy $(python3 -c "print(round(100 * ($c1 - $c0) / ($t1 - $tc)))")% of bind's time ($(python3 -c "print(round(1000 * ($c1 - $c0) / 20000, 3))") ms CPU per pod) and $(python3 -c "print(round(100 * ($c3 - $c2) / ($t3 - $t2)))")% of bind_ref's ($(python3 -c "print(round(1000 * ($c3 - $c2) / 10000, 3))") ms per binding), each bulk load included"
# the next workload on an empty stand-in (its record of bindings too); the
# mirror empties when the workers, pointed at it again, catch up with it
# (the reset's DELETED events, or a relist)
kreq POST /debug/reset >/dev/null
if [ "${only:-}" = bind ]; then
	kill "$api_pid" 2>/dev/null || true
	return 0
fi
fi

# --- wffc_provisioned_pvs: WaitForFirstConsumer claims provisioned during the run
api_connect
wait_for "SELECT NOT EXISTS (SELECT 1 FROM scheduler.pods) AND NOT EXISTS (SELECT 1 FROM scheduler.nodes)"
as_pg python3 "$dir/wffc.py" "$api_dir/server.json" objects 1000 5000
# the claims, nodes and class mirrored before the pods come (each kind's
# list or events in order: its last object there, all are)
watch_for "EXISTS (SELECT 1 FROM scheduler.persistent_volume_claims WHERE namespace = 'wffc' AND name = 'claim-999')
	AND EXISTS (SELECT 1 FROM scheduler.nodes WHERE name = 'wffc-node-4999')
	AND EXISTS (SELECT 1 FROM scheduler.storage_classes WHERE name = 'wffc')"
as_pg python3 "$dir/wffc.py" "$api_dir/server.json" run 1000
# the workloads after this one run with no API server (test/bench/run checks)
api_disconnect
kill "$api_pid" 2>/dev/null || true
