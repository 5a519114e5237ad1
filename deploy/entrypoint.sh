#!/bin/sh
# The entrypoint of deploy/Containerfile's image: PostgreSQL 15 with the
# scheduler extension, run as postgres.
#
#   postgres-scheduler-entrypoint [-c name=value ...]
#
# On the first start (no $PGDATA/PG_VERSION) it makes the cluster (initdb:
# peer authentication on the socket, scram-sha-256 over TCP), lets TCP
# clients in with a password (the postgres role's, set from
# $POSTGRES_PASSWORD when given; without one, no TCP login works), and, on a
# server started on the socket only and without the library preloaded (so
# that no worker starts meanwhile), creates the database $SCHEDULER_DATABASE
# and CREATE EXTENSION scheduler in it.
#
# Then it runs postgres with scheduler.database = $SCHEDULER_DATABASE and
# the arguments given (the StatefulSet's: shared_preload_libraries,
# scheduler.scheduler_name, ...).  With none of the scheduler.kube_*
# settings set, the workers use the in-cluster configuration: the API
# server at KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, the mounted
# service-account token (read at each connection: it rotates) and ca.crt.
set -eu

: "${PGDATA:?PGDATA must be set}"
: "${SCHEDULER_DATABASE:=inventory}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	mkdir -p "$PGDATA"
	chmod 700 "$PGDATA"
	initdb -D "$PGDATA" --username=postgres --encoding=UTF8 --locale=C.UTF-8 \
		--auth-local=peer --auth-host=scram-sha-256
	echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
	pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c shared_preload_libraries=''" start
	psql -v ON_ERROR_STOP=1 --no-psqlrc -d postgres -v db="$SCHEDULER_DATABASE" <<-'EOF'
		SELECT format('CREATE DATABASE %I', :'db') \gexec
		\connect :"db"
		CREATE EXTENSION scheduler;
	EOF
	if [ -n "${POSTGRES_PASSWORD:-}" ]; then
		psql -v ON_ERROR_STOP=1 --no-psqlrc -d postgres -v pw="$POSTGRES_PASSWORD" <<-'EOF'
			SELECT format('ALTER ROLE postgres PASSWORD %L', :'pw') \gexec
		EOF
	fi
	pg_ctl -D "$PGDATA" -w -m fast stop
fi
# PostgreSQL refuses a data directory that its group may write, as a
# kubelet's recursive fsGroup change of the volume would leave it
chmod 700 "$PGDATA"

exec postgres -D "$PGDATA" -c "scheduler.database=$SCHEDULER_DATABASE" "$@"
