#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests: `start FOLDER` installs PostgreSQL 15 from
# Debian's packages when it is missing, creates a cluster in FOLDER (owned by the unprivileged
# `postgres` user) with SCRAM-SHA-256 password authentication, listening on loopback at a free
# port and on a Unix socket in FOLDER, and prints the environment the tests read; `stop FOLDER`
# stops it and removes FOLDER. The password is random, written to FOLDER/password only. TLS is
# on, with a certificate for localhost (by name only: an address in it would match any name
# asked for on that address, as NIOSSL checks) from a throw-away authority
# (FOLDER/ca.crt), so that the tests can show what a verified connection refuses.
set -euo pipefail

command=${1:?usage: postgres-server.sh start|stop FOLDER}
folder=${2:?usage: postgres-server.sh start|stop FOLDER}
# PostgreSQL refuses to run as root: as root, the server runs as the unprivileged `postgres`
# user Debian's package creates; as anyone else, as that user.
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

case "$command" in
start)
    if [ -z "$(bin_dir)" ] || [ ! -x "$(bin_dir)/initdb" ]; then
        echo "Installing PostgreSQL…" >&2
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        export DEBIAN_FRONTEND=noninteractive
        $sudo apt-get update -qq
        $sudo apt-get install -y -qq postgresql >/dev/null
    fi
    bin=$(bin_dir)
    mkdir -p "$folder"
    chown postgres "$folder" 2>/dev/null || true
    chmod 700 "$folder"
    password=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
    printf '%s\n' "$password" > "$folder/password"
    chown postgres "$folder/password" 2>/dev/null || true
    chmod 600 "$folder/password"
    if ! command -v openssl >/dev/null; then
        echo "Installing openssl…" >&2
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get install -y -qq openssl >/dev/null
    fi
    # A throw-away authority, and the server's certificate it signs.
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=SharkORM test authority" \
        -keyout "$folder/ca.key" -out "$folder/ca.crt" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
        -keyout "$folder/server.key" -out "$folder/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost\n' > "$folder/server.ext"
    openssl x509 -req -in "$folder/server.csr" -CA "$folder/ca.crt" -CAkey "$folder/ca.key" -CAcreateserial \
        -days 2 -extfile "$folder/server.ext" -out "$folder/server.crt" 2>/dev/null
    chmod 600 "$folder/server.key"
    chown postgres "$folder/server.key" "$folder/server.crt" 2>/dev/null || true
    chmod 644 "$folder/ca.crt"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
    as_postgres "$bin/initdb" -D "$folder/data" -U shark --auth=scram-sha-256 --pwfile="$folder/password" \
        -E UTF8 --locale=C.UTF-8 >/dev/null
    options="-p $port -k $folder -c listen_addresses=127.0.0.1 -c max_connections=200"
    options+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    options+=" -c ssl=on -c ssl_cert_file=$folder/server.crt -c ssl_key_file=$folder/server.key"
    as_postgres "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w start -o "$options" >/dev/null
    echo "SHARK_POSTGRES_HOST=127.0.0.1"
    echo "SHARK_POSTGRES_PORT=$port"
    echo "SHARK_POSTGRES_SOCKET=$folder/.s.PGSQL.$port"
    echo "SHARK_POSTGRES_USER=shark"
    echo "SHARK_POSTGRES_PASSWORD_FILE=$folder/password"
    echo "SHARK_POSTGRES_CA_FILE=$folder/ca.crt"
    ;;
stop)
    bin=$(bin_dir)
    [ -d "$folder/data" ] && as_postgres "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -rf "$folder"
    ;;
*)
    echo "usage: postgres-server.sh start|stop FOLDER" >&2
    exit 64
    ;;
esac
