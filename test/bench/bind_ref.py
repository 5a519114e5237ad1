#!/usr/bin/env python3
"""The stand-in API server's own binding capacity, the reference for the bind
figure: a plain client (16 keep-alive HTTPS connections, one thread each)
binds N pods created for another scheduler, and prints binds/s.

    bind_ref.py SERVER_JSON N
"""
import http.client
import json
import ssl
import sys
import threading
import time

server = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
conns = 16
ctx = ssl.create_default_context(cafile=server["ca"])
port = server["port"]
hdr = {"Authorization": "Bearer " + server["token"], "Content-Type": "application/json"}


def connect():
    return http.client.HTTPSConnection("127.0.0.1", port, context=ctx)


c = connect()
c.request("POST", "/debug/bulk", json.dumps({"generate": {"pods": {
    "count": n, "prefix": "ref-", "namespace": "bind-ref", "schedulerName": "reference-client"}}}), hdr)
c.getresponse().read()
failed = []


def worker(k):
    c = connect()
    for i in range(k, n, conns):
        body = json.dumps({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "ref-%d" % i},
                           "target": {"name": "node-%d" % (i % 1000)}})
        c.request("POST", "/api/v1/namespaces/bind-ref/pods/ref-%d/binding" % i, body, hdr)
        r = c.getresponse()
        r.read()
        if r.status != 201:
            failed.append(r.status)


t0 = time.time()
threads = [threading.Thread(target=worker, args=(k,)) for k in range(conns)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if failed:
    sys.exit("bind_ref: %d bindings failed" % len(failed))
print(round(n / (time.time() - t0)))
