"""PostgreSQL-only helpers for tests that make two transactions meet on a row lock."""

from django.db import connection


def lock_waiters() -> int:
    """How many sessions of the test database are waiting on a lock right now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]
