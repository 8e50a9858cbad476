"""Safe defaults for a hosted bot: the metrics and health endpoint listens on
loopback unless ``METRICS_HOST`` says otherwise, and the bot asks Discord for no privileged
intent."""

from __future__ import annotations

import socket
from pathlib import Path

import aiohttp
import discord
import pytest

from bot.app import create_bot
from bot.config import Settings
from bot.ops import Operations
from bot.ops.server import OpsServer


def non_loopback_address() -> str:
    """An IPv4 address of this machine other than loopback (the one its default route leaves
    from; a UDP ``connect`` sends nothing), or skip."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only routing is consulted
            address = str(probe.getsockname()[0])
        except OSError:
            address = ""
    if not address or address.startswith("127.") or address == "0.0.0.0":
        pytest.skip("this machine has no non-loopback IPv4 address to try")
    return address


async def _status(address: str, port: int) -> int | None:
    """The status of ``/healthz`` at address:port, or None when nothing answers there."""
    timeout = aiohttp.ClientTimeout(total=5)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as http,
            http.get(f"http://{address}:{port}/healthz") as response,
        ):
            return response.status
    except aiohttp.ClientConnectionError:
        return None


async def _serve(settings: Settings) -> OpsServer:
    """The endpoint as ``python -m bot`` builds it from the settings (any free port)."""
    server = OpsServer(Operations(), 0, settings.metrics_host)
    await server.start()
    return server


async def test_the_metrics_endpoint_is_not_reachable_from_another_address_by_default() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    outside = non_loopback_address()
    server = await _serve(settings)
    try:
        assert await _status("127.0.0.1", server.port) == 503  # served here: not ready yet
        assert await _status(outside, server.port) is None
    finally:
        await server.stop()


async def test_metrics_host_opens_it_to_other_addresses_when_the_operator_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The same probe reaches a server bound to every interface, so the refusal above is the
    # default at work, not an address nothing could reach.
    monkeypatch.setenv("METRICS_HOST", "0.0.0.0")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    outside = non_loopback_address()
    server = await _serve(settings)
    try:
        assert await _status(outside, server.port) == 503
    finally:
        await server.stop()


def test_the_bot_requests_no_privileged_intent() -> None:
    bot = create_bot(Settings(_env_file=None))  # type: ignore[call-arg]
    intents = bot.intents
    assert not intents.members
    assert not intents.presences
    assert not intents.message_content
    # Nothing beyond discord.py's default set, which holds no privileged intent.
    assert intents.value & ~discord.Intents.default().value == 0
    assert intents.guilds  # channels and roles: where the GM copy goes, who is a GM


def test_every_setting_is_documented_in_env_example() -> None:
    example = Path(__file__).resolve().parents[2] / ".env.example"
    keys = {
        line.split("=", 1)[0]
        for line in example.read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert keys == {name.upper() for name in Settings.model_fields}


def test_budgets_come_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUDGET_USER_BURST", "1234")
    monkeypatch.setenv("BUDGET_GUILD_PER_SECOND", "77")
    budgets = create_bot(Settings(_env_file=None)).budgets  # type: ignore[call-arg]
    assert budgets is not None
    assert (budgets.user.burst, budgets.guild.per_second) == (1234, 77)
    monkeypatch.setenv("BUDGETS_ENABLED", "false")
    assert create_bot(Settings(_env_file=None)).budgets is None  # type: ignore[call-arg]
