#!/bin/sh
# One image, three roles: web (migrates first), worker, beat.
set -e
case "$1" in
  web)
    python manage.py migrate --noinput
    exec gunicorn assay.wsgi --bind 0.0.0.0:8000 --workers "${WEB_CONCURRENCY:-3}" --access-logfile -
    ;;
  worker)
    exec celery -A assay worker -Q "${WORKER_QUEUES:-default,code,llm}" --loglevel INFO
    ;;
  beat)
    exec celery -A assay beat --loglevel INFO --schedule /data/celerybeat-schedule
    ;;
  *)
    exec "$@"
    ;;
esac
