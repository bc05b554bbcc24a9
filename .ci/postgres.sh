#!/usr/bin/env bash
# A throwaway Postgres for the tests, for CI and developers alike.
#
#   .ci/postgres.sh start [DIR [PORT]]   install Debian's postgresql if absent, make a
#                                        cluster under DIR (default $TMPDIR/swc-pg), start it
#                                        on 127.0.0.1:PORT (default: the first free from 25432: below the
#                                        ephemeral range 32768–60999, so no client socket holds it)
#                                        and print its DSN
#   .ci/postgres.sh stop  [DIR]          stop it (the data stays in DIR until you delete it)
#
#   export SWC_TEST_POSTGRES=$(.ci/postgres.sh start) && go test ./... ; .ci/postgres.sh stop
#
# Postgres refuses to run as root: as root the cluster belongs to the user
# "postgres" (made when missing). A DIR that already holds a cluster is
# started again with its data (tests restart a server this way).
set -euo pipefail

cmd=${1:-}
dir=${2:-${TMPDIR:-/tmp}/swc-pg}
port=${3:-}
log() { echo "postgres.sh: $*" >&2; }

bindir() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/pg_ctl" ] && { echo "$d"; return; }
	done
	command -v pg_ctl >/dev/null 2>&1 && { dirname "$(command -v pg_ctl)"; return; }
	return 1
}

# as runs a command as the cluster's owner.
as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

case "$cmd" in
start)
	if ! bin=$(bindir); then
		if [ "$(id -u)" != 0 ]; then
			log "Postgres is not installed; run as root, or: sudo apt-get install -y postgresql"
			exit 1
		fi
		log "installing Debian's postgresql"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
		bin=$(bindir)
	fi
	if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
		useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
	fi
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres "$dir"
	if [ -f "$dir/port" ]; then
		port=$(cat "$dir/port")
	elif [ -z "$port" ]; then
		port=25432
		while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
	fi
	if [ ! -f "$dir/data/PG_VERSION" ]; then
		as "$bin/initdb" -D "$dir/data" -U swc -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
			{ cat "$dir/initdb.log" >&2; exit 1; }
		echo "$port" >"$dir/port"
	fi
	as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
		-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200" >&2 ||
		{ tail -20 "$dir/server.log" >&2; exit 1; }
	if ! as "$bin/psql" -h 127.0.0.1 -p "$port" -U swc -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'swc'" | grep -q 1; then
		as "$bin/createdb" -h 127.0.0.1 -p "$port" -U swc swc
	fi
	echo "postgres://swc@127.0.0.1:$port/swc?sslmode=disable"
	;;
stop)
	bin=$(bindir)
	if [ -f "$dir/data/postmaster.pid" ]; then
		as "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2
	fi
	;;
*)
	echo "usage: $0 start [DIR [PORT]] | stop [DIR]" >&2
	exit 2
	;;
esac
