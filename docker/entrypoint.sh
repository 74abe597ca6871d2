#!/bin/sh
# One image, four roles: init (migrate, first administrator, demo; runs once before the
# others), web, worker, beat. Anything else is run as given (`manage.py …`, a shell).
set -eu
DATA_DIR="${ASSAY_DATA_DIR:-/data}"

# SECRET_KEY: the one given, else one generated on the first start and kept in the data
# volume (every container of the installation mounts it, so all share the key).
if [ -z "${SECRET_KEY:-}" ]; then
  key_file="$DATA_DIR/secret_key"
  if [ ! -s "$key_file" ]; then
    [ -w "$DATA_DIR" ] || {
      echo "SECRET_KEY is not set and $DATA_DIR is not writable to keep a generated one:" \
        "set SECRET_KEY or mount a writable data volume at $DATA_DIR" >&2
      exit 1
    }
    tmp="$key_file.$$"
    (umask 077 && python -c 'import secrets; print(secrets.token_urlsafe(50))' >"$tmp")
    # ln refuses to replace: when two containers race, the first key stays and both read it
    ln "$tmp" "$key_file" 2>/dev/null || [ -s "$key_file" ]
    rm -f "$tmp"
  fi
  SECRET_KEY="$(cat "$key_file")"
  export SECRET_KEY
fi

case "${1:-web}" in
  init)
    python manage.py migrate --noinput
    exec python manage.py bootstrap
    ;;
  web)
    exec gunicorn assay.wsgi --bind "0.0.0.0:${PORT:-8000}" --workers "${WEB_CONCURRENCY:-3}" \
      --access-logfile - --graceful-timeout 20
    ;;
  worker)
    exec celery -A assay worker -Q "${WORKER_QUEUES:-default,code,llm}" \
      --hostname "${WORKER_NAME:-celery@%h}" --loglevel INFO
    ;;
  beat)
    exec celery -A assay beat --loglevel INFO --schedule "$DATA_DIR/celerybeat-schedule"
    ;;
  *)
    exec "$@"
    ;;
esac
