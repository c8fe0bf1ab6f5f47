#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: `start STATE` makes a data folder in a new temporary folder, starts
# the server on a free local port and prints the connection URL (with a password: the tests check that it never
# shows); `stop STATE` stops it and removes the folder. STATE is a file that remembers the folder between the two.
#
# The server never runs as root (PostgreSQL refuses to): as root (CI), it runs as the `postgres` user Debian's
# package creates, or as a system user `ferrytest` made when neither exists; as anyone else, as that user.
set -euo pipefail

command=${1:-}
state=${2:-}
if [ -z "$command" ] || [ -z "$state" ]; then
  echo "usage: $0 start|stop STATE_FILE" >&2
  exit 64
fi

bindir=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
  if [ -x "$candidate/initdb" ]; then bindir=$candidate; break; fi
done

as_server_user() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u "$server_user" -- "$@"; else "$@"; fi
}

case "$command" in
start)
  if [ -z "$bindir" ]; then
    echo "PostgreSQL's server is not installed (no /usr/lib/postgresql/*/bin/initdb): run make test as root, or apt-get install postgresql" >&2
    exit 69
  fi
  server_user=$(id -un)
  if [ "$(id -u)" -eq 0 ]; then
    if id postgres >/dev/null 2>&1; then
      server_user=postgres
    else
      id ferrytest >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin ferrytest
      server_user=ferrytest
    fi
  fi
  folder=$(mktemp -d /tmp/ferry-postgres.XXXXXX)
  chmod 755 "$folder"
  password="ferry-test-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s\n' "$password" > "$folder/password"
  if [ "$(id -u)" -eq 0 ]; then chown -R "$server_user" "$folder"; fi
  # A free port: the kernel's pick for a socket bound to port 0.
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  as_server_user "$bindir/initdb" -D "$folder/data" --username=ferry --pwfile="$folder/password" \
    --auth-host=scram-sha-256 --auth-local=trust --encoding=UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 || {
    cat "$folder/initdb.log" >&2; exit 1; }
  rm -f "$folder/password"
  as_server_user "$bindir/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 \
    -o "-p $port -k $folder -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null || {
    cat "$folder/server.log" >&2; exit 1; }
  mkdir -p "$(dirname "$state")"
  printf '%s\n%s\n%s\n' "$folder" "$server_user" "$bindir" > "$state"
  echo "postgresql://ferry:$password@127.0.0.1:$port/postgres"
  ;;
stop)
  [ -f "$state" ] || exit 0
  { read -r folder; read -r server_user; read -r bindir; } < "$state"
  as_server_user "$bindir/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$folder" "$state"
  ;;
*)
  echo "usage: $0 start|stop STATE_FILE" >&2
  exit 64
  ;;
esac
