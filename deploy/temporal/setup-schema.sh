#!/bin/sh
# Creates (first run) or upgrades (later runs) Temporal's PostgreSQL schemas. POSTGRES_PASSWORD comes
# from deploy/temporal.env.
set -eu
for db in temporal temporal_visibility; do
  case "$db" in temporal) dir=temporal ;; *) dir=visibility ;; esac
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" --pw "$POSTGRES_PASSWORD" -p 5432 --db "$db" create || true
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" --pw "$POSTGRES_PASSWORD" -p 5432 --db "$db" setup-schema -v 0.0 || true
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" --pw "$POSTGRES_PASSWORD" -p 5432 --db "$db" \
    update-schema -d "/etc/temporal/schema/postgresql/v12/$dir/versioned"
done
