"""A real ``payhub serve`` writes the short-link opens it counted in memory when it stops."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from payhub import PayHub
from tests.e2e.servers import cli, create_provider, serve
from tests.links.conftest import BROWSER
from tests.pg import isolated_schema, postgres_url_or_skip

pytestmark = pytest.mark.slow

HOST = "links.e2e.example.com"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'payhub.db'}"
    else:
        with isolated_schema(postgres_url_or_skip()) as url:
            yield url


def test_no_open_is_lost_when_the_server_stops(db_url: str, tmp_path: Path) -> None:
    key = create_provider(db_url, tmp_path)
    cli(db_url, tmp_path, "links", "domain", "set", "--environment", "sandbox", HOST)
    # Only the shutdown may write the opens: the periodic writer waits an hour.
    with serve(db_url, tmp_path, extra_env={"PAYHUB_OPENS_FLUSH_SECONDS": "3600"}) as base:
        created = httpx.post(
            f"{base}/api/short-links",
            headers={"X-Api-Key": key},
            json={"targetUrl": "https://shop.example.com/pay"},
        )
        assert created.status_code == 201, created.text
        code = created.json()["code"]
        sent = 0
        with httpx.Client(headers={"Host": HOST, "User-Agent": BROWSER}) as browser:
            for _ in range(40):
                assert browser.get(f"{base}/{code}").status_code == 302
                sent += 1
    # The server has stopped (SIGTERM, as a supervisor stops it); read what it wrote.
    hub = PayHub.open(db_url, key_file=tmp_path / "payhub.key")
    try:
        environment = hub.authenticate(key).environment
        with hub.store.unit_of_work(readonly=True) as uow:
            link = uow.short_links.resolve(code, environment)
            assert link is not None
            opens = uow.short_links.daily_opens(link.id, hub.deps.clock.now().date() - timedelta(1))
    finally:
        hub.close()
    assert sum(opens.values()) == sent
