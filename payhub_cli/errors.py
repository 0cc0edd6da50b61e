"""How every ``payhub`` command fails: one clear line on stderr and a documented exit code,
never a traceback (``PAYHUB_DEBUG=1`` shows it, for reporting a bug).

Exit codes (docs/errors.md):

* 0 done;
* 1 refused by payhub's rules: an unknown merchant, a conflict, not allowed;
* 2 bad input: a usage error (click's), or a value payhub refuses (a time zone, a name);
* 3 the database or the key file could not be opened or used (a bad ``--db`` URL, a server
  that does not answer, a file that cannot be read or written);
* 4 payhub failed unexpectedly (a bug): the line names the error; quote it when reporting.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import click

from payhub.domain.errors import PayHubError, ValidationError

REFUSED, BAD_INPUT, UNAVAILABLE, BUG = 1, 2, 3, 4


class Failure(click.ClickException):
    """A refused request: exit 2 for bad input, 1 for anything else."""

    def __init__(self, error: PayHubError) -> None:
        super().__init__(error.detail)
        self.exit_code = BAD_INPUT if isinstance(error, ValidationError) else REFUSED  # type: ignore[misc]


class Unavailable(click.ClickException):
    exit_code = UNAVAILABLE


class Unexpected(click.ClickException):
    exit_code = BUG


def shown_url(url: str | None) -> str:
    """``url`` without its password (``postgresql://app:***@db/payhub``)."""
    if not url:
        return "the default database"
    parts = urlsplit(url)
    if parts.password:
        host = parts.hostname or ""
        user = parts.username or ""
        netloc = f"{user}:***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def _database_errors() -> tuple[type[BaseException], ...]:
    import psycopg  # payhub's own dependencies: imported here to keep the CLI's start light
    import psycopg_pool

    return (sqlite3.Error, psycopg.Error, psycopg_pool.PoolTimeout)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def translate(error: Exception, db_url: str | None = None) -> click.ClickException:
    """The clean failure for an exception a command let through."""
    if isinstance(error, PayHubError):
        return Failure(error)
    db = shown_url(db_url or os.environ.get("PAYHUB_DATABASE_URL"))
    if isinstance(error, _database_errors()):
        return Unavailable(f"payhub could not use the database {db}: {_first_line(error)}")
    if isinstance(error, OSError):
        return Unavailable(f"payhub could not open a file it needs: {_first_line(error)}")
    return Unexpected(
        f"payhub failed unexpectedly ({type(error).__name__}: {_first_line(error)});"
        " run again with PAYHUB_DEBUG=1 to see where, and quote it when reporting"
    )


_DB_URL = "payhub.db_url"


def remember_db(ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """``--db``'s callback: keep the URL where a failure message can name it."""
    ctx.find_root().meta[_DB_URL] = value
    return value


class PayHubGroup(click.Group):
    """The top ``payhub`` group: every subcommand's failure becomes ``translate``'s."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as error:
            if os.environ.get("PAYHUB_DEBUG"):
                raise
            raise translate(error, ctx.meta.get(_DB_URL)) from None
