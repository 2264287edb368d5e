#!/bin/sh
# Registers the namespace and the search attributes ferry's workflows set (idempotent).
set -eu
temporal operator namespace describe -n "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 ||
  temporal operator namespace create -n "$TEMPORAL_NAMESPACE" --retention 30d
for spec in FerryKind=Keyword FerryStage=Keyword VmName=Keyword VmId=Int WaveId=Keyword; do
  temporal operator search-attribute create -n "$TEMPORAL_NAMESPACE" --name "${spec%%=*}" --type "${spec#*=}" || true
done
