# debian: postgresql-15 redis-server libpq-dev gcc debootstrap python3-venv
# A real NetBox for the tests and the lab: the PyPI `netbox` package (NetBox's "install from Python
# package" route) in a venv, run by gunicorn against PostgreSQL and Redis from Debian on loopback.
#
# NetBox 4.7 needs Python 3.12+. Debian 12's python3 is 3.11, so the venv is made from the first
# Python 3.12–3.14 found on this machine (PATH, then pyenv's versions); when there is none, from a
# Debian 13 (trixie, Python 3.13) userland made with debootstrap, in which NetBox then runs in a chroot.
#
# `manage.py migrate` takes minutes, so it runs once here: the migrated PostgreSQL data folder is kept
# as a template (keyed by NetBox version and PostgreSQL major) that each start copies in a second.
#
# Cache layout ($FERRY_CACHE/netbox-$NETBOX_VERSION, linked as .tools/netbox):
#   bin/netbox-run TOOL ARGS   runs `netbox` (manage commands) or `gunicorn` with NETBOX_ROOT passed on
#   pgbin -> PostgreSQL's bin folder    pgdata-template/   admin-password (the `ferry` superuser's)
NETBOX_VERSION=4.7.3
NETBOX_PG_MAJOR=15
NETBOX_DIR="$FERRY_CACHE/netbox-$NETBOX_VERSION"
NETBOX_ROOTFS="$FERRY_CACHE/debian-trixie-netbox-$NETBOX_VERSION"

# netbox_host_python: prints a Python 3.12–3.14 with venv and ssl, or fails.
netbox_host_python() {
  local candidates=() c v
  for c in python3.14 python3.13 python3.12; do
    command -v "$c" >/dev/null 2>&1 && candidates+=("$(command -v "$c")")
  done
  for v in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[234]* 2>/dev/null | sort -rV); do
    candidates+=("$v/bin/python3")
  done
  for c in "${candidates[@]}"; do
    "$c" -c 'import sys, ssl, venv, ensurepip; sys.exit(0 if (3, 12) <= sys.version_info[:2] < (3, 15) else 1)' \
      >/dev/null 2>&1 && { echo "$c"; return 0; }
  done
  return 1
}

netbox_pip_install() { # PIP ARGS: pinned NetBox and its pinned dependencies
  "$1" install --quiet --disable-pip-version-check -c "$ROOT/scripts/setup.d/netbox-constraints.txt" "netbox==$NETBOX_VERSION"
}

install_netbox_app() {
  [ -f "$NETBOX_DIR/.app-complete" ] && return 0
  rm -rf "$NETBOX_DIR" && mkdir -p "$NETBOX_DIR/bin"
  local python started=$SECONDS
  if [ "${FERRY_NETBOX_RUNTIME:-}" != trixie ] && python="$(netbox_host_python)"; then
    log "installing NetBox $NETBOX_VERSION from PyPI into a venv of $python ($("$python" -V))"
    "$python" -m venv "$NETBOX_DIR/venv"
    netbox_pip_install "$NETBOX_DIR/venv/bin/pip"
    cat >"$NETBOX_DIR/bin/netbox-run" <<EOF
#!/bin/sh
# netbox-run netbox|gunicorn ARGS: NetBox $NETBOX_VERSION from the venv; NETBOX_ROOT names the instance.
tool="\$1"; shift
exec "$NETBOX_DIR/venv/bin/\$tool" "\$@"
EOF
  else
    install_netbox_rootfs
    cat >"$NETBOX_DIR/bin/netbox-run" <<EOF
#!/bin/sh
# netbox-run netbox|gunicorn ARGS: NetBox $NETBOX_VERSION in the Debian 13 chroot $NETBOX_ROOTFS.
# The instance's conf/configuration.py (if NETBOX_ROOT is set) is copied into the chroot, keyed by NETBOX_ROOT.
set -e
tool="\$1"; shift
inst=/var/lib/ferry-netbox/none
if [ -n "\${NETBOX_ROOT:-}" ]; then
  inst="/var/lib/ferry-netbox/\$(printf %s "\$NETBOX_ROOT" | sha1sum | cut -c1-16)"
  mkdir -p "$NETBOX_ROOTFS\$inst/conf"
  cp "\$NETBOX_ROOT/conf/configuration.py" "$NETBOX_ROOTFS\$inst/conf/configuration.py"
fi
exec chroot "$NETBOX_ROOTFS" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 NETBOX_ROOT="\$inst" \\
  \${DJANGO_SUPERUSER_PASSWORD:+DJANGO_SUPERUSER_PASSWORD="\$DJANGO_SUPERUSER_PASSWORD"} "/opt/netbox/venv/bin/\$tool" "\$@"
EOF
  fi
  chmod +x "$NETBOX_DIR/bin/netbox-run"
  "$NETBOX_DIR/bin/netbox-run" netbox version >/dev/null
  log "NetBox $NETBOX_VERSION installed in $((SECONDS - started)) s"
  touch "$NETBOX_DIR/.app-complete"
}

# Debian 13 userland with Python 3.13 and NetBox in a venv at /opt/netbox/venv (needs root).
install_netbox_rootfs() {
  # A userland made earlier (by root) serves anyone; only making one needs root.
  [ -f "$NETBOX_ROOTFS/.complete" ] && return 0
  [ "$(id -u)" -eq 0 ] || die "no Python 3.12+ here, and the Debian 13 fallback (debootstrap, chroot) needs root"
  log "no Python 3.12+ on this machine: making a Debian 13 userland for NetBox in $NETBOX_ROOTFS"
  rm -rf "$NETBOX_ROOTFS"
  debootstrap --variant=minbase \
    --include=python3.13,python3.13-venv,python3.13-dev,libpq-dev,gcc,libc6-dev,ca-certificates \
    trixie "$NETBOX_ROOTFS" >"$SETUP_LOG_DIR/debootstrap-netbox.log" 2>&1 ||
    die_with_log "$SETUP_LOG_DIR/debootstrap-netbox.log" "debootstrap of Debian 13 failed"
  # pip inside the chroot reaches PyPI the way this machine does: same resolver, same trusted CAs.
  cp /etc/resolv.conf "$NETBOX_ROOTFS/etc/resolv.conf"
  cp "${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}" "$NETBOX_ROOTFS/etc/ssl/certs/ca-certificates.crt"
  cp "$ROOT/scripts/setup.d/netbox-constraints.txt" "$NETBOX_ROOTFS/tmp/netbox-constraints.txt"
  chroot "$NETBOX_ROOTFS" /usr/bin/python3.13 -m venv /opt/netbox/venv
  chroot "$NETBOX_ROOTFS" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    /opt/netbox/venv/bin/pip install --quiet --disable-pip-version-check -c /tmp/netbox-constraints.txt "netbox==$NETBOX_VERSION"
  touch "$NETBOX_ROOTFS/.complete"
}

# as_db_user CMD...: PostgreSQL will not run as root; as root, run it as the `postgres` user.
as_db_user() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# run_netbox_migrate WORK: `manage.py migrate` (minutes on a new machine, silent until the end), saying
# every 30 s how many of its migrations are applied.
run_netbox_migrate() {
  local work="$1" total pid next=30 began=$SECONDS
  total="$(NETBOX_ROOT="$work/root" "$NETBOX_DIR/bin/netbox-run" netbox showmigrations --plan 2>/dev/null | grep -c '^\[ \]' || true)"
  NETBOX_ROOT="$work/root" "$NETBOX_DIR/bin/netbox-run" netbox migrate --no-input >"$work/migrate.log" 2>&1 9>&- &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if [ $((SECONDS - began)) -ge "$next" ]; then
      log "NetBox migrate: $(grep -c '^  Applying ' "$work/migrate.log" || true) of ${total:-?} migrations applied ($((SECONDS - began)) s)"
      next=$((next + 30))
    fi
  done
  wait "$pid"
}

# Runs in a subshell: its EXIT trap stops the temporary servers and removes the work folder, on
# success and failure alike.
install_netbox_database() (
  [ -f "$NETBOX_DIR/.db-complete" ] && exit 0
  pgbin="/usr/lib/postgresql/$NETBOX_PG_MAJOR/bin"
  [ -x "$pgbin/postgres" ] || die "PostgreSQL $NETBOX_PG_MAJOR is missing at $pgbin"
  started=$SECONDS
  work="$(mktemp -d /tmp/ferry-netbox-setup.XXXXXX)"
  redis_pid=""
  # (set -e holds in traps too: every cleanup step tolerates having nothing to do)
  trap 'as_db_user "$pgbin/pg_ctl" -D "$work/pgdata" -m immediate stop >/dev/null 2>&1 || true
        [ -z "$redis_pid" ] || kill "$redis_pid" 2>/dev/null || true
        rm -rf "$work"' EXIT
  chmod 755 "$work"
  mkdir -p "$work/pgdata" "$work/root/conf"
  [ "$(id -u)" -ne 0 ] || chown postgres: "$work/pgdata"
  pg_port="$(free_port)"
  redis_port="$(free_port)"

  log "migrating a NetBox $NETBOX_VERSION database once (takes a few minutes; kept as a template)"
  as_db_user "$pgbin/initdb" -D "$work/pgdata" -A trust -U netbox -E UTF8 --no-locale --no-sync >/dev/null
  # 9>&-: the servers must not inherit with_lock's lock (it would stay held after setup).
  as_db_user "$pgbin/pg_ctl" -D "$work/pgdata" -w -l "$work/pgdata/setup.log" \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k '' -c fsync=off -c synchronous_commit=off" start >/dev/null 9>&-
  "$pgbin/createdb" -h 127.0.0.1 -p "$pg_port" -U netbox netbox
  redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no >/dev/null 9>&- &
  redis_pid=$!
  cat >"$work/root/conf/configuration.py" <<EOF
ALLOWED_HOSTS = ['*']
DATABASES = {'default': {'NAME': 'netbox', 'USER': 'netbox', 'PASSWORD': '', 'HOST': '127.0.0.1', 'PORT': $pg_port}}
REDIS = {'tasks': {'HOST': '127.0.0.1', 'PORT': $redis_port, 'DATABASE': 0, 'SSL': False},
         'caching': {'HOST': '127.0.0.1', 'PORT': $redis_port, 'DATABASE': 1, 'SSL': False}}
SECRET_KEY = '$(python3 -c 'import secrets; print(secrets.token_urlsafe(48))')'
API_TOKEN_PEPPERS = {1: '$(python3 -c 'import secrets; print(secrets.token_urlsafe(48))')'}
CENSUS_REPORTING_ENABLED = False
EOF
  run_netbox_migrate "$work" ||
    { cp "$work/migrate.log" "$SETUP_LOG_DIR/netbox-migrate.log"; die_with_log "$SETUP_LOG_DIR/netbox-migrate.log" "NetBox migrate failed"; }
  password="$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')"
  NETBOX_ROOT="$work/root" DJANGO_SUPERUSER_PASSWORD="$password" "$NETBOX_DIR/bin/netbox-run" netbox \
    createsuperuser --no-input --username ferry --email ferry@lab.invalid >/dev/null
  as_db_user "$pgbin/pg_ctl" -D "$work/pgdata" -m fast -w stop >/dev/null
  rm -f "$work/pgdata/setup.log"
  rm -rf "$NETBOX_DIR/pgdata-template" && mv "$work/pgdata" "$NETBOX_DIR/pgdata-template"
  ln -sfn "$pgbin" "$NETBOX_DIR/pgbin"
  (umask 077 && printf '%s\n' "$password" >"$NETBOX_DIR/admin-password")
  log "NetBox database migrated in $((SECONDS - started)) s"
  touch "$NETBOX_DIR/.db-complete"
)

install_netbox() {
  install_netbox_app
  install_netbox_database
}

with_lock "netbox-$NETBOX_VERSION" install_netbox
ln -sfn "$NETBOX_DIR" "$ROOT/.tools/netbox"
link_tool redis-server "$(command -v redis-server)"
