"""The wheel, as a self-hoster installs it: built once per session from this checkout, installed
into a fresh virtual environment in a temporary directory outside it, and run from there.

Nothing of the checkout is on the path of the installed command (no PYTHONPATH, another working
directory): what works here works on a server that only has the wheel. The Dockerfile's
steps are these same commands (tests/packaging/test_deploy_files.py checks they stay so).
"""

from __future__ import annotations

import ast
import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from email.parser import Parser
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement

from tests.fixtures.packaging import Installed

ROOT = Path(__file__).resolve().parents[2]
SUBCOMMANDS = ("run", "play", "migrate", "export", "import", "erase-user", "move")


def _env(**values: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DISCORD_", "DATABASE_", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(values)
    return env


def run(
    installed: Installed, cwd: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(installed.command), *args],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_wheel_carries_the_migrations_the_license_and_the_command(
    installed: Installed,
) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        meta = Parser().parsestr(wheel.read(metadata).decode())
        scripts = wheel.read(entry_points).decode()
    shipped = {Path(n).name for n in names if n.startswith("bot/migrations/versions/")}
    in_checkout = {p.name for p in (ROOT / "migrations" / "versions").glob("*.py")}
    assert in_checkout <= shipped
    assert {"bot/migrations/env.py", "bot/migrations/script.py.mako"} <= names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "pbp-dice = bot.__main__:main" in scripts
    assert meta["License-Expression"] == "MIT"
    for field in ("Summary", "Requires-Python", "Author", "Keywords"):
        assert meta[field], field
    assert meta.get_all("Classifier")


def _imported_top_level_modules() -> set[str]:
    found = set()
    for path in [*(ROOT / "bot").rglob("*.py"), *(ROOT / "migrations").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"bot", "__future__"}


def test_every_package_the_code_imports_is_declared(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        [metadata] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(wheel.read(metadata).decode())
    declared = {
        Requirement(r).name.lower().replace("_", "-").replace(".", "-")
        for r in meta.get_all("Requires-Dist") or []
        if "extra ==" not in r or 'extra == "postgres"' in r
    }
    owners = packages_distributions()
    for module in sorted(_imported_top_level_modules()):
        dists = {d.lower().replace("_", "-").replace(".", "-") for d in owners.get(module, [])}
        assert dists & declared, f"{module} is imported but its package is not declared"


def test_every_subcommand_answers_help(installed: Installed, elsewhere: Path) -> None:
    asked = [[], *([command, "--help"] for command in SUBCOMMANDS)]
    asked[0] = ["--help"]
    started = [
        subprocess.Popen(
            [str(installed.command), *args],
            cwd=elsewhere,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in asked
    ]  # at once: eight interpreters starting one after another take a while
    said = [p.communicate(timeout=300) for p in started]
    assert [p.returncode for p in started] == [0] * len(asked), [err for _, err in said]
    assert all(command in said[0][0] for command in SUBCOMMANDS)
    for command, (out, _) in zip(SUBCOMMANDS, said[1:], strict=True):
        assert out.startswith(f"usage: pbp-dice {command}")


def test_the_installed_command_migrates_any_database_from_any_directory(
    installed: Installed, elsewhere: Path, unmigrated_url: str, tmp_path: Path
) -> None:
    database = unmigrated_url  # a SQLite file in a folder that does not exist yet, or PostgreSQL
    done = run(installed, elsewhere, "migrate", DATABASE_URL=database)
    assert done.returncode == 0, done.stderr
    assert "Running upgrade" in done.stderr and "database is at the latest schema" in done.stderr
    again = run(installed, elsewhere, "migrate", DATABASE_URL=database)
    assert again.returncode == 0 and "Running upgrade" not in again.stderr
    if database.startswith("sqlite"):
        with sqlite3.connect(tmp_path / "new" / "pbp-dice.sqlite3") as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert {"campaigns", "ledger", "alembic_version"} <= tables
    assert not (elsewhere / "migrations").exists()


def test_the_installed_command_plays_an_example_from_any_directory(
    installed: Installed, elsewhere: Path
) -> None:
    script = shutil.copy(ROOT / "examples" / "roll-under.txt", elsewhere / "session.txt")
    done = run(installed, elsewhere, "play", "--script", str(script), "--seed", "5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "/campaign setup" in done.stdout and "✗" not in done.stdout
    assert "Traceback" not in done.stderr


def test_the_installed_command_names_a_bad_setting_in_one_line(
    installed: Installed, elsewhere: Path
) -> None:
    done = run(installed, elsewhere, "migrate", DATABASE_URL="postgresql://bot@db/pbp")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "DATABASE_URL=postgresql://bot@db/pbp: no driver, and the bot needs the async one; "
        "write postgresql+asyncpg://bot@db/pbp."
    ]
