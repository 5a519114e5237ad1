# shellcheck shell=bash
# apt-get for the test scripts (test/setup, test/apiserver/selftest.sh).
# Source it.  Needs only coreutils and awk: it runs before anything is
# installed.
#
# apt_get ARGS...: DEBIAN_FRONTEND=noninteractive apt-get ARGS (through
# $SUDO when set), quiet when it works, and when it fails its output goes to
# stderr with the exit status.  Another process holding apt's or dpkg's locks
# (unattended-upgrades, another apt-get, another test run) is waited for, up
# to APT_LOCK_WAIT seconds (default 600): before the call, and by apt-get
# itself (DPkg::Lock::Timeout, the dpkg frontend lock); a call that still
# fails on a lock is retried after the wait.
APT_LOCK_WAIT=${APT_LOCK_WAIT:-600}
# the locks apt-get and dpkg take (fcntl locks: flock(1) does not see them,
# /proc/locks lists both kinds)
APT_LOCKS=${APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}

# apt_lock_held: print the first of APT_LOCKS some process holds now
apt_lock_held() {
	local f ino
	for f in $APT_LOCKS; do
		[ -e "$f" ] || continue
		ino=$(stat -L -c %i "$f" 2>/dev/null) || continue
		# /proc/locks: "1: POSIX  ADVISORY  WRITE 1234 fd:01:5678 0 EOF";
		# a waiter's line ("1: -> POSIX ...") has the fields one further on
		if awk -v ino="$ino" '{ i = ($2 == "->") ? 7 : 6; n = split($i, a, ":"); if (a[n] == ino) found = 1 }
				END { exit !found }' /proc/locks 2>/dev/null; then
			echo "$f"
			return 0
		fi
	done
	return 1
}

# apt_lock_wait: wait until no process holds APT_LOCKS, at most APT_LOCK_WAIT
# seconds; says what it waits for, every 30 s
apt_lock_wait() {
	local waited=0 f
	while f=$(apt_lock_held); do
		if [ "$waited" -ge "$APT_LOCK_WAIT" ]; then
			echo "apt: $f is still held by another process after ${waited} s" >&2
			return 1
		fi
		if [ $((waited % 30)) -eq 0 ]; then
			echo "apt: waiting for $f, held by another process (up to ${APT_LOCK_WAIT} s)" >&2
		fi
		sleep 1
		waited=$((waited + 1))
	done
	return 0
}

apt_get() {
	local out rc _
	for _ in 1 2 3; do
		apt_lock_wait || true	# then apt-get's own timeout, and its error
		rc=0
		out=$(${SUDO:-} env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" "$@" 2>&1) ||
			rc=$?
		[ "$rc" -eq 0 ] && return 0
		# taken again between the wait and the call: wait again
		grep -qE 'Could not get lock|Unable to lock|Unable to acquire the dpkg frontend lock' <<<"$out" || break
	done
	{
		echo "apt-get $* failed (exit $rc):"
		printf '%s\n' "$out" | tail -40
	} >&2
	return "$rc"
}
