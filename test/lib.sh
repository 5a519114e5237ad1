# Shared by test/run, test/demo and the other runners.  Source it.
# PostgreSQL refuses to run as root: as root, servers and clients run as the
# postgres user, in a folder that user owns.
# PG_CONFIG picks the PostgreSQL (a relocated copy works too).
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export PG_CONFIG
PGBIN=$("$PG_CONFIG" --bindir)
PGXS_DIR=$(cd "$(dirname "$($PGBIN/pg_config --pgxs)")/../.." && pwd)

as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- env PATH="$PGBIN:$PATH" "$@"
	else
		env PATH="$PGBIN:$PATH" "$@"
	fi
}

# A copy of the repository in a fresh folder the postgres user owns.
copy_tree() {
	local src=$1 dst
	dst=$(mktemp -d "/tmp/scheduler-$2.XXXXXX")
	tar -C "$src" --exclude=.git --exclude=tmp_check --exclude=tmp_regress --exclude=results -cf - . | tar -C "$dst" -xf -
	[ "$(id -u)" = 0 ] && chown -R postgres "$dst"
	echo "$dst"
}

# Signs that a server process crashed, in a server log: a process ended by
# a signal other than the SIGKILL (9) and SIGTERM (15) that tests send on
# purpose, a PANIC, a failed assertion (TRAP), or a sanitizer's report.
CRASH_RE='terminated by signal ([0-8]|1[0-4]|1[6-9]|[2-9][0-9])[^0-9]|PANIC:|TRAP:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:'

# scan_logs FILE...: print the crash signs found, with their file; returns
# how many files show one (0: none).  A test that crashes a process on
# purpose lists its pids in FILE.planted; the postmaster's line about such a
# pid is no sign (anything else about it, a PANIC or a sanitizer report, is).
scan_logs() {
	local bad=0 f hits pids
	for f in "$@"; do
		[ -f "$f" ] || continue
		hits=$(grep -nE "$CRASH_RE" "$f")
		if [ -n "$hits" ] && [ -s "$f.planted" ]; then
			pids=$(grep -E '^[0-9]+$' "$f.planted" | paste -sd'|')
			[ -n "$pids" ] && hits=$(printf '%s\n' "$hits" |
				grep -vE "\(PID ($pids)\) was terminated by signal (6|11): ")
		fi
		if [ -n "$hits" ]; then
			echo "CRASH SIGN in $f:"
			printf '%s\n' "$hits" | head -20
			bad=$((bad + 1))
		fi
	done
	return $bad
}

# build_sanitized DIR: the sanitized build (make SANITIZE=1: AddressSanitizer,
# UndefinedBehaviorSanitizer, libFuzzer's coverage and the fuzz harnesses),
# made in a copy of the tree, its scheduler.so put in DIR.  A server loads
# it instead of the installed one with dynamic_library_path = 'DIR:$libdir'
# (see sanitized_conf).
build_sanitized() {
	local dir=$1 src
	src=$(copy_tree "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)" sanitized-build)
	find "$src" \( -name '*.o' -o -name '*.bc' -o -name '*.so' \) -delete
	if ! make -C "$src" -s -j"$(nproc)" SANITIZE=1 >"$src/build.log" 2>&1; then
		cat "$src/build.log"
		return 1
	fi
	mkdir -p "$dir"
	cp "$src/scheduler.so" "$dir/scheduler.so"
	[ "$(id -u)" = 0 ] && chown -R postgres "$dir"
	rm -rf "$src"
}

# sanitized_conf DIR: postgresql.conf lines that load the build in DIR
sanitized_conf() {
	echo "dynamic_library_path = '$1:\$libdir'"
}

# The commit whose sql/scheduler--0.1.sql and library are 0.1 as released:
# t/014 installs it, loads a cluster, and updates to the current version.
SCHEDULER_0_1_COMMIT=96f1239

# build_at REV DIR: this repository's REV (git archive; a clone with its
# history) built and installed in a copy of our PostgreSQL in DIR/pg,
# beside the real one, which it leaves alone (a PostgreSQL installation is
# relocatable: it finds its files relative to its binaries).  Prints the
# copy's install path (its bin/ holds pg_config, initdb, postgres).  Owned
# by postgres when run as root.
build_at() {
	local rev=$1 dir=$2 inst
	mkdir -p "$dir/pg/lib/postgresql" "$dir/pg/share/postgresql" "$dir/pg/include" "$dir/src"
	cp -a "$(dirname "$PGBIN")" "$dir/pg/lib/postgresql/"
	cp -a "$("$PG_CONFIG" --sharedir)" "$dir/pg/share/postgresql/"
	ln -sfn "$("$PG_CONFIG" --includedir)" "$dir/pg/include/postgresql"
	inst="$dir/pg/lib/postgresql/$(basename "$(dirname "$PGBIN")")"
	# the copy must hold REV's files alone
	rm -f "$dir"/pg/share/postgresql/*/extension/scheduler* "$inst"/lib/scheduler.so
	if ! git -C "$(dirname "${BASH_SOURCE[0]}")/.." archive "$rev" | tar -x -C "$dir/src" ||
		! make -s -C "$dir/src" PG_CONFIG="$inst/bin/pg_config" >"$dir/build.log" 2>&1 ||
		! make -s -C "$dir/src" PG_CONFIG="$inst/bin/pg_config" install >>"$dir/build.log" 2>&1; then
		echo "build_at $rev: failed (a clone with its history is needed); $dir/build.log:" >&2
		tail -20 "$dir/build.log" >&2
		return 1
	fi
	[ "$(id -u)" = 0 ] && chown -R postgres "$dir"
	echo "$inst"
}
