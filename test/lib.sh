# Shared by test/run, test/demo and the other runners.  Source it.
# PostgreSQL refuses to run as root: as root, servers and clients run as the
# postgres user, in a folder that user owns.
PGBIN=/usr/lib/postgresql/15/bin
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
