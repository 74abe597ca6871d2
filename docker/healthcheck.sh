#!/bin/sh
# The image's health check, whatever role the container runs: it looks at what process 1 is
# (the entry point execs the role's program) and checks that role.
set -eu
pid="${ASSAY_HEALTH_PID:-1}"
command="$(tr '\0' ' ' <"/proc/$pid/cmdline")"
case "$command" in
  *gunicorn*)
    exec curl -fsS -o /dev/null "http://127.0.0.1:${PORT:-8000}/healthz?sandbox=0"
    ;;
  *" worker "*)
    # through the entry point: it reads the generated SECRET_KEY the settings need
    exec "$(dirname "$0")/entrypoint.sh" celery -A assay inspect ping \
      -d "${WORKER_NAME:-celery@${HOSTNAME:-$(cat /proc/sys/kernel/hostname)}}" --timeout 5
    ;;
  *" beat "*)
    # beat writes its schedule file at least every three minutes while it runs
    find "${ASSAY_DATA_DIR:-/data}" -maxdepth 1 -name 'celerybeat-schedule*' -mmin -10 | grep -q .
    ;;
  *)
    echo "no health check for: $command" >&2
    exit 1
    ;;
esac
