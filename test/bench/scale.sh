# shellcheck shell=bash
# Sourced by run: memory per backend and the first call at scale (issue 15).
# scale_at NODES PLACED PENDING CONNS, on the server at $dir, database
# scale_NODES (made here, dropped after):
#   * the cluster of scale_load.sql, loaded through apply();
#   * one session schedules: its first call (schedule_pending(1): the
#     snapshot built from the tables), then the PENDING pods (pods/s);
#   * CONNS sessions at once each make one call, then read their own
#     private memory (RssAnon of /proc/PID/status: the pages the backend
#     wrote; shared buffers are not counted), for why(), filter() and
#     diagnosis() of the pod no node holds; and the scheduling session's.
#     Beside the scheduling worker, scheduler.snapshot_keepers sessions (2)
#     keep their snapshot between transactions: the max is theirs.
# Prints, per size:
#   scale_NODES: PLACED pods placed: load S s, first call MS ms, P pods/s for PENDING pods
#   memory_NODES: MB per backend after one call (median/max of CONNS): why A/B, filter C/D, diagnosis E/F, schedule_pending G
scale_at() {
	local nodes=$1 placed=$2 pending=$3 conns=$4 db="scale_$1" t0 out i fn
	as_pg createdb -h "$dir" "$db"
	t0=$(date +%s.%N)
	as_pg psql -X -h "$dir" -d "$db" -v ON_ERROR_STOP=1 -v nodes="$nodes" -v placed="$placed" -v pending="$pending" \
		-f "$dir/scale_load.sql" >/dev/null || { as_pg dropdb -h "$dir" "$db"; return 1; }
	local load
	load=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
	as_pg psql -X -h "$dir" -d "$db" -v ON_ERROR_STOP=1 -qAt >/dev/null <<-'EOF'
		CREATE FUNCTION public.rss_mb() RETURNS numeric LANGUAGE sql AS $$
		    SELECT round((regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'),
		                               'RssAnon:\s+(\d+)'))[1]::numeric / 1024, 1) $$;
	EOF
	# the scheduling session: first call, then the rest
	out=$(as_pg psql -X -h "$dir" -d "$db" -v ON_ERROR_STOP=1 -qAt <<-'EOF'
		SET scheduler.random_seed = 1;
		SELECT clock_timestamp() AS t0 \gset
		SELECT count(*) FROM schedule_pending(1) \gset
		SELECT round(extract(epoch FROM clock_timestamp() - :'t0') * 1000) AS first_ms \gset
		SELECT clock_timestamp() AS t1 \gset
		SELECT count(*) FILTER (WHERE result = 'scheduled') AS placed FROM schedule_pending() \gset
		SELECT :first_ms || ' ' || round(:placed / extract(epoch FROM clock_timestamp() - :'t1')) || ' ' || public.rss_mb();
	EOF
	)
	local first pps sched_mb
	read -r first pps sched_mb <<<"$out"
	echo "scale_$nodes: $placed pods placed: load $load s, first call $first ms, $pps pods/s for $pending pods"
	# CONNS sessions at once per function
	local report=""
	for fn in "why" "filter" "diagnosis"; do
		local call
		case $fn in
		why) call="SELECT count(*) FROM scheduler.why('bench', 'huge-0')" ;;
		filter) call="SELECT count(*) FROM scheduler.filter('bench', 'huge-0')" ;;
		diagnosis) call="SELECT scheduler.diagnosis('bench', 'huge-0') IS NOT NULL" ;;
		esac
		for i in $(seq 1 "$conns"); do
			# (each stays connected a while: all CONNS are open at once)
			as_pg psql -X -h "$dir" -d "$db" -v ON_ERROR_STOP=1 -qAt \
				-c "$call" -c "SELECT public.rss_mb()" -c "SELECT pg_sleep(3)" 2>&1 | sed -n 2p >"$dir/rss.$fn.$i" &
		done
		wait
		report+="$fn $(cat "$dir"/rss."$fn".* | sort -n | awk '{ a[NR] = $1 } END { printf "%s/%s", a[int((NR + 1) / 2)], a[NR] }'), "
		rm -f "$dir"/rss."$fn".*
	done
	echo "memory_$nodes: MB per backend after one call (median/max of $conns at once): ${report}schedule_pending $sched_mb"
	as_pg dropdb -h "$dir" "$db"
}
