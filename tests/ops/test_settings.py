"""Every setting is checked at start: a bad one is named on one line of its own, with what is
wrong and what to write instead, and the process exits with status 1 before touching anything.
A secret (the token, a database password) is never repeated back."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.__main__ as entry
import bot.config
import bot.log_context
import bot.logs
from bot.config import Settings

#: (environment, the one line printed). One or more cases per setting.
CASES: list[tuple[dict[str, str], str]] = [
    (
        {"DISCORD_TOKEN": "Bot abc.def"},
        "DISCORD_TOKEN: spaces in it; paste the token alone, without 'Bot ' in front or quotes.",
    ),
    (
        {"DATABASE_URL": "postgresql://bot:hunter2@db:5432/pbp"},
        "DATABASE_URL=postgresql://bot:***@db:5432/pbp: no driver, and the bot needs the async "
        "one; write postgresql+asyncpg://bot:***@db:5432/pbp.",
    ),
    (
        {"DATABASE_URL": "postgresql+psycopg2://bot@db/pbp"},
        "DATABASE_URL=postgresql+psycopg2://bot@db/pbp: the driver psycopg2, and the bot needs "
        "the async one; write postgresql+asyncpg://bot@db/pbp.",
    ),
    (
        {"DATABASE_URL": "sqlite:///./data/pbp-dice.sqlite3"},
        "DATABASE_URL=sqlite:///./data/pbp-dice.sqlite3: no driver, and the bot needs the async "
        "one; write sqlite+aiosqlite:///./data/pbp-dice.sqlite3.",
    ),
    (
        {"DATABASE_URL": "mysql+aiomysql://bot@db/pbp"},
        "DATABASE_URL=mysql+aiomysql://bot@db/pbp: pbp-dice runs on SQLite or PostgreSQL, not "
        "mysql; write sqlite+aiosqlite:///./data/pbp-dice.sqlite3 or "
        "postgresql+asyncpg://USER:PASSWORD@HOST:5432/DBNAME.",
    ),
    (
        {"DATABASE_URL": "pbp-dice.sqlite3"},
        "DATABASE_URL=pbp-dice.sqlite3: not a database URL; write "
        "sqlite+aiosqlite:///./data/pbp-dice.sqlite3 or "
        "postgresql+asyncpg://USER:PASSWORD@HOST:5432/DBNAME.",
    ),
    (
        {"DATABASE_URL": "postgresql+asyncpg://bot@db"},
        "DATABASE_URL=postgresql+asyncpg://bot@db: no database name; write "
        "postgresql+asyncpg://USER:PASSWORD@HOST:5432/DBNAME.",
    ),
    (
        {"LOG_LEVEL": "loud"},
        "LOG_LEVEL=LOUD: not one of the values it takes; write DEBUG, INFO, WARNING, ERROR or "
        "CRITICAL.",
    ),
    (
        {"LOG_FORMAT": "xml"},
        "LOG_FORMAT=xml: not one of the values it takes; write text or json.",
    ),
    (
        {"DEV_GUILD_ID": "my-server"},
        "DEV_GUILD_ID=my-server: not a whole number; write your test server's id (a number), or "
        "leave it empty.",
    ),
    (
        {"DEV_GUILD_ID": "-4"},
        "DEV_GUILD_ID=-4: too small; write your test server's id (a number), or leave it empty.",
    ),
    (
        {"SHARD_COUNT": "0"},
        "SHARD_COUNT=0: too small; write the bot's total number of shards (1 or more), or leave "
        "it empty.",
    ),
    (
        {"SHARD_IDS": "0,1"},
        "SHARD_IDS=0,1: needs SHARD_COUNT, the bot's total number of shards; set SHARD_COUNT=2 "
        "or more, or leave SHARD_IDS empty to run every shard.",
    ),
    (
        {"SHARD_COUNT": "2", "SHARD_IDS": "1,2"},
        "SHARD_IDS=1,2: names shard 2, but SHARD_COUNT=2 numbers them 0 to 1; fix either.",
    ),
    (
        {"SHARD_COUNT": "2", "SHARD_IDS": "0;1"},
        "SHARD_IDS=0;1: not a list of shard numbers; write them comma-separated, e.g. 0,1.",
    ),
    (
        {"SHARD_COUNT": "2", "SHARD_IDS": "1,1"},
        "SHARD_IDS=1,1: names a shard twice; name each shard once, e.g. 0,1.",
    ),
    (
        {"METRICS_PORT": "70000"},
        "METRICS_PORT=70000: too large; write a port from 1 to 65535, or leave it empty for no "
        "HTTP endpoint.",
    ),
    (
        {"METRICS_PORT": "http"},
        "METRICS_PORT=http: not a whole number; write a port from 1 to 65535, or leave it empty "
        "for no HTTP endpoint.",
    ),
    (
        {"METRICS_HOST": "http://0.0.0.0"},
        "METRICS_HOST=http://0.0.0.0: not an address to listen on; write 127.0.0.1 (this "
        "machine only), 0.0.0.0 (every interface, e.g. in a container) or one interface's "
        "address.",
    ),
    (
        {"BUDGETS_ENABLED": "sometimes"},
        "BUDGETS_ENABLED=sometimes: neither true nor false; write true or false.",
    ),
    (
        {"BUDGET_USER_BURST": "0"},
        "BUDGET_USER_BURST=0: too small; write a number above 0.",
    ),
    (
        {"BUDGET_USER_PER_SECOND": "fast"},
        "BUDGET_USER_PER_SECOND=fast: not a number; write a number above 0.",
    ),
    (
        {"BUDGET_GUILD_BURST": "-1"},
        "BUDGET_GUILD_BURST=-1: too small; write a number above 0.",
    ),
    (
        {"BUDGET_GUILD_PER_SECOND": "0"},
        "BUDGET_GUILD_PER_SECOND=0: too small; write a number above 0.",
    ),
    (
        {"SHUTDOWN_GRACE_SECONDS": "3600"},
        "SHUTDOWN_GRACE_SECONDS=3600: too large; write a number of seconds from 0 to 600.",
    ),
    (
        {"SCHEDULER_POLL_SECONDS": "0"},
        "SCHEDULER_POLL_SECONDS=0: too small; write a number of seconds from 1 to 86400.",
    ),
]


def _start(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        entry.main(list(args))
    return int(stopped.value.code or 0), capsys.readouterr().err.splitlines()


@pytest.mark.parametrize(("env", "line"), CASES, ids=["+".join(env) for env, _ in CASES])
def test_a_bad_setting_is_one_line_and_exit_status_1(
    clean_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: dict[str, str],
    line: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    status, said = _start(capsys, "migrate")
    assert (status, said) == (1, [line])
    assert "hunter2" not in line and "abc.def" not in line  # no secret repeated
    assert not (clean_env / "pbp.sqlite3").exists()  # nothing was touched


def test_every_setting_has_a_case_here() -> None:
    named = {name.lower() for env, _ in CASES for name in env}
    assert named == set(Settings.model_fields)


def test_several_bad_settings_are_one_line_each(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("METRICS_PORT", "0")
    monkeypatch.setenv("LOG_FORMAT", "yaml")
    monkeypatch.setenv("SHARD_IDS", "3")
    status, said = _start(capsys, "run")
    assert status == 1
    assert [line.split("=")[0] for line in said] == ["LOG_FORMAT", "SHARD_IDS", "METRICS_PORT"]


def test_a_missing_driver_says_what_to_install(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bot.config, "_installed", lambda module: module != "asyncpg")
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://bot:hunter2@db/pbp")
    assert _start(capsys, "migrate") == (
        1,
        [
            "DATABASE_URL=postgresql+asyncpg://bot:***@db/pbp: its driver asyncpg is not "
            "installed; pip install 'pbp-dice[postgres]'."
        ],
    )


def test_a_sqlite_file_under_a_file_is_named(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (clean_env / "data").write_text("not a folder")
    monkeypatch.setenv("DATABASE_URL", "sqlite+aiosqlite:///./data/pbp-dice.sqlite3")
    status, said = _start(capsys, "migrate")
    assert status == 1
    assert said == [
        "DATABASE_URL=sqlite+aiosqlite:///./data/pbp-dice.sqlite3: "
        f"{clean_env / 'data'} is a file, "
        "not a folder; point the URL at a file in a folder."
    ]


def test_without_a_token_run_says_where_to_put_it_and_exits_1(
    clean_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert entry.main(["run"]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("DISCORD_TOKEN is not set: put DISCORD_TOKEN=... in a file named .env")


def test_run_shards_overrides_an_empty_shard_ids_from_the_environment(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the systemd template relies on: `pbp-dice run --shards %i` wins over `SHARD_IDS=`
    (empty) in the EnvironmentFile, which systemd would otherwise let override the unit."""
    monkeypatch.setenv("SHARD_COUNT", "4")
    monkeypatch.setenv("SHARD_IDS", "")
    seen: list[Settings] = []

    async def fake_run(settings: Settings) -> None:
        seen.append(settings)

    monkeypatch.setattr(entry, "_run", fake_run)
    monkeypatch.setenv("DISCORD_TOKEN", "not.a.real-token")
    assert entry.main(["run", "--shards", "2"]) == 0
    assert seen[0].shard_ids == [2] and seen[0].shard_count == 4


def test_a_bad_shards_option_is_named_as_typed(
    clean_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert entry.main(["run", "--shards", "one"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "--shards one: not a list of shard numbers; write them comma-separated, e.g. "
        "--shards 0 or --shards 0,1."
    ]
