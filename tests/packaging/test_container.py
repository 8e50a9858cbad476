"""The container, built and run as docs/deploying.md ("Container") says: the image from the
Dockerfile, `pbp-dice migrate` into its volume, `pbp-dice run` serving /healthz, `docker stop`.

Runs where a Docker daemon answers and the base image is on the machine (no pulls: the
machine this was written on cannot reach Docker Hub, so its base is made from Debian's packages
by deploy/container/base-image.sh). Anywhere else every test skips and says why, after one
`docker info`; `-m "not container"` leaves them out altogether.

There is no Discord here, so /healthz cannot answer 200 (that needs a login). The bot is made
to wait on a Discord that never answers (discord.com resolves to a container that takes the
connection and says nothing), which holds it, until its connection gives up after 30 s, in the
state every start passes through: migrated, endpoint served, 503 "starting"; a SIGTERM then
must end it with status 0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.packaging import BASE, LOCAL_CAS, ROOT, docker

#: compose.yaml's stop_grace_period, and the --stop-timeout docs/deploying.md gives docker run.
STOP_TIMEOUT = 30
#: Where discord.com leads: a server that takes the connection and never answers.
SILENT_DISCORD = (
    "import socket, time; s = socket.create_server(('0.0.0.0', 443)); time.sleep(10**6)"
)
#: /healthz migrated and waiting on Discord.
STARTING = {"status": "starting", "migrated": True, "logged_in": False, "in_flight": 0}

pytestmark = pytest.mark.container


def _in_volume(image: str, volume: str, *args: str) -> subprocess.CompletedProcess[str]:
    return docker("run", "--rm", "-v", f"{volume}:/var/lib/pbp-dice", image, *args, timeout=300)


def test_the_image_runs_the_wheel_as_a_user_without_privileges_and_keeps_no_build_extras(
    image: str,
) -> None:
    config = json.loads(docker("image", "inspect", image).stdout)[0]["Config"]
    assert config["User"] == "pbp-dice" and config["Entrypoint"] == ["pbp-dice"]
    assert list(config["Volumes"]) == ["/var/lib/pbp-dice"]
    assert "http://127.0.0.1:9108/healthz" in " ".join(config["Healthcheck"]["Test"])
    probe = docker(
        "run", "--rm", "--entrypoint", "python3", image, "-c",
        "import os, pathlib, bot; print(os.getuid(), bot.__file__,"
        " pathlib.Path('/etc/ssl/certs/ca-certificates.crt').read_text().count('BEGIN'),"
        " [p for p in ('/src', '/dist', '/opt/uv') if os.path.exists(p)])",
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    uid, module, certs, leftovers = probe.stdout.split(maxsplit=3)
    assert uid != "0"
    assert module.startswith("/opt/pbp-dice/venv/lib/")  # the installed wheel, no source tree
    assert leftovers.strip() == "[]"
    # The build stage's CA certificates and tools stay there: the image has the base's bundle.
    base_certs = docker(
        "run", "--rm", BASE, "grep", "-c", "BEGIN", "/etc/ssl/certs/ca-certificates.crt"
    )
    assert certs == base_certs.stdout.strip()
    history = docker("history", "--no-trunc", "--format", "{{.CreatedBy}}", image).stdout
    assert "BEGIN CERTIFICATE" not in history


def test_migrate_fills_the_volume_once(image: str, names: str) -> None:
    volume = f"{names}-data"
    first = _in_volume(image, volume, "migrate")
    assert first.returncode == 0, first.stderr
    assert "Running upgrade" in first.stderr
    assert "database is at the latest schema" in first.stderr
    again = _in_volume(image, volume, "migrate")
    assert again.returncode == 0 and "Running upgrade" not in again.stderr
    tables = docker(
        "run", "--rm", "-v", f"{volume}:/var/lib/pbp-dice", "--entrypoint", "python3", image,
        "-c", "import sqlite3; print(*sorted(r[0] for r in sqlite3.connect("
        "'data/pbp-dice.sqlite3').execute('SELECT name FROM sqlite_master')))",
    )  # fmt: skip
    assert tables.returncode == 0, tables.stderr
    assert {"campaigns", "ledger", "alembic_version"} <= set(tables.stdout.split())


def _healthz(port: str) -> tuple[int, Any]:
    """/healthz's status and body, once the endpoint answers."""
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"http://{port}/healthz", timeout=5) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)
        except (urllib.error.URLError, ConnectionError):
            assert time.monotonic() < deadline, "/healthz never answered"
            time.sleep(0.5)


def _health(container: str) -> Any:
    return json.loads(docker("inspect", "-f", "{{json .State.Health}}", container).stdout)


def test_run_serves_healthz_starting_until_discord_answers_and_sigterm_exits_0(
    image: str, names: str
) -> None:
    volume, net, bot = f"{names}-data", f"{names}-net", f"{names}-bot"
    assert _in_volume(image, volume, "migrate").returncode == 0
    assert docker("network", "create", net).returncode == 0
    silent = docker(
        "run", "-d", "--name", f"{names}-discord", "--network", net, BASE, "python3", "-c",
        SILENT_DISCORD,
    )  # fmt: skip
    assert silent.returncode == 0, silent.stderr
    address = docker(
        "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
        f"{names}-discord",
    ).stdout.strip()  # fmt: skip
    assert address
    started = docker(
        "run", "-d", "--name", bot, "--network", net, "--add-host", f"discord.com:{address}",
        "-e", "DISCORD_TOKEN=not.a.real-token", "-v", f"{volume}:/var/lib/pbp-dice",
        "-p", "127.0.0.1::9108", "--stop-timeout", str(STOP_TIMEOUT), "--health-interval", "1s",
        image,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    port = docker("port", bot, "9108").stdout.splitlines()[0]
    # Served before the migrations run (they may take a while), 503 until logged in.
    deadline = time.monotonic() + 120
    while not (answer := _healthz(port))[1]["migrated"]:
        assert answer == (503, {**STARTING, "migrated": False}), answer
        assert time.monotonic() < deadline, "never migrated"
        time.sleep(0.2)
    assert answer == (503, STARTING), docker("logs", bot).stderr
    # Docker's own probe, the image's HEALTHCHECK, reaches the endpoint and hears the 503
    # (its first runs may come before the endpoint listens).
    deadline = time.monotonic() + 60
    while True:
        health = _health(bot)
        if any("HTTP Error 503" in probe["Output"] for probe in health["Log"]):
            break
        assert time.monotonic() < deadline, health
        time.sleep(0.5)
    assert health["Status"] == "starting"  # within --start-period: not "unhealthy" yet

    # Docker's default stop timeout (10 s), not the container's 30: still logging in, the bot
    # has nothing to drain and stops at once instead of being killed (exit 137).
    stopped = docker("stop", "--time", "10", bot, timeout=STOP_TIMEOUT + 30)
    assert stopped.returncode == 0, stopped.stderr
    state = json.loads(docker("inspect", "-f", "{{json .State}}", bot).stdout)
    logs = docker("logs", bot)
    assert (state["ExitCode"], state["OOMKilled"]) == (0, False), logs.stderr[-3000:]
    assert "shutting down: 0 interaction(s) in flight" in logs.stderr
    assert "stopped before the bot had logged in to Discord" in logs.stderr
    assert "did not close" not in logs.stderr
    assert "Traceback" not in logs.stdout + logs.stderr


def _compose() -> list[str] | None:
    if docker("compose", "version").returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


def test_compose_runs_the_bot_on_postgresql_and_stops_it_with_0(image: str, tmp_path: Path) -> None:
    """compose.yaml with deploy/container/compose.local.yaml, as docs/deploying.md runs it
    here: PostgreSQL healthy first, the bot migrates it, /healthz on 127.0.0.1:9108."""
    compose = _compose()
    if compose is None:
        pytest.skip("neither `docker compose` nor `docker-compose` on this machine")
    # The settings file the docs write beside compose.yaml, here in a folder of the test's own
    # (--project-directory) so a checkout's .env is left alone; the build contexts are named
    # outright, and discord.com leads to a Discord that never answers.
    password = uuid.uuid4().hex
    (tmp_path / ".env").write_text(
        f"DISCORD_TOKEN=not.a.real-token\nPOSTGRES_PASSWORD={password}\n", encoding="utf-8"
    )
    smoke = {
        "services": {
            "discord": {
                "image": BASE,
                "command": ["python3", "-c", SILENT_DISCORD],
                "networks": {"default": {"aliases": ["discord.com"]}},
            },
            "db": {"build": str(ROOT / "deploy" / "container" / "postgres")},
            "bot": {"build": {"context": str(ROOT)}, "depends_on": ["discord"]},
        }
    }
    (tmp_path / "smoke.yaml").write_text(json.dumps(smoke), encoding="utf-8")
    project = f"pbpsmoke{uuid.uuid4().hex[:8]}"
    files = ["-f", "compose.yaml", "-f", "deploy/container/compose.local.yaml"]
    files += ["-f", str(tmp_path / "smoke.yaml"), "--project-directory", str(tmp_path)]
    cas = "".join(p.read_text(encoding="ascii") for p in sorted(LOCAL_CAS.glob("**/*.crt")))
    env = {**os.environ, "EXTRA_CA_CERTS": cas}

    def run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*compose, "-p", project, *files, *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip

    try:
        up = run("up", "-d", "--build", timeout=1800)
        assert up.returncode == 0, up.stderr[-3000:]
        deadline = time.monotonic() + 120
        while not (answer := _healthz("127.0.0.1:9108"))[1]["migrated"]:
            assert time.monotonic() < deadline, "never migrated"
            time.sleep(0.2)
        assert answer == (503, STARTING), run("logs", "--no-color").stdout[-3000:]
        again = run("run", "--rm", "bot", "migrate")
        assert again.returncode == 0, again.stderr
        assert "database is at the latest schema" in again.stderr
        assert "Running upgrade" not in again.stderr  # the bot had migrated PostgreSQL
        stopped = run("stop", "bot")
        assert stopped.returncode == 0, stopped.stderr
        [bot] = run("ps", "-q", "bot").stdout.split()
        assert docker("inspect", "-f", "{{.State.ExitCode}}", bot).stdout.strip() == "0"
    finally:
        run("down", "-v", "--rmi", "local")
