"""The layers import downwards only (README "Architecture"; issue 21 "No upward imports").

Every module under ``bot/`` is parsed (not imported) and each of its imports, including those
inside functions and under ``TYPE_CHECKING``, is checked against the rules of its layer:

- ``bot/rules``, ``bot/dice``: pure; nothing from ``bot`` but themselves and ``bot.errors``,
  no Discord, no database, no network.
- ``bot/db``: nothing from the layers that use it (services, cogs, render, ops, app…).
- ``bot/services``: no Discord and nothing from cogs, render, ops or the app.
- ``bot/render``: no database (no ``bot.db``, no SQLAlchemy, nothing async), no cogs, ops or app.
- ``bot/cogs``: no SQL; the app and ops only as types; no other feature's private
  ``_cog``/``_buttons`` module (shared views live in ``bot/cogs/_views/``, option types in
  ``_options.py``, the clock hooks in ``_shared.py``).
- ``bot/ops``: the app only as a type (it serves the bot; ``bot/serve.py`` builds it).

An import is named by what it reaches (``from bot.db.models import Visibility`` reaches
``bot.db.models.Visibility``), so a rule or an exception can be as narrow as one name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parent.parent / "bot"

#: Layers whose modules nobody below them may import.
_ABOVE_DB = ("bot.services", "bot.cogs", "bot.render", "bot.ops", "bot.app", "bot.play")
_ABOVE_SERVICES = ("bot.cogs", "bot.render", "bot.ops", "bot.app", "bot.play", "bot.tree")

#: Imports that break a rule on purpose, each with its reason. Keep this short.
ALLOWED: dict[tuple[str, str], str] = {}

#: Names a layer may reach although their module is forbidden to it: layer -> name -> reason.
ALLOWED_NAMES: dict[str, dict[str, str]] = {
    "bot.rules": {
        "bot.quoting": "pure text helper with no import of its own: errors quote input alike",
        "bot.words": "the word lists (issue 21): plain enums with no import of their own",
    },
    "bot.cogs": {
        "bot.db.engine.Database": "the handle the bot carries and cogs pass to services: a type",
    },
}


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    target: str  # what it reaches: a module, or module.name
    line: int
    typing_only: bool  # under ``if TYPE_CHECKING:``


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(BOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path) -> list[Import]:
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(module, alias.name, node.lineno, typing_only))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against this module's package
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.append(Import(module, f"{base}.{alias.name}", node.lineno, typing_only))
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)
    return found


def _reaches(target: str, prefixes: tuple[str, ...]) -> bool:
    return any(target == p or target.startswith(p + ".") for p in prefixes)


def _allowed_name(module: str, target: str) -> bool:
    layer = ".".join(module.split(".")[:2])
    return _reaches(target, tuple(ALLOWED_NAMES.get(layer, {})))


def _feature(module: str) -> str | None:
    """``bot.cogs.fortune._buttons`` -> ``fortune``; shared cog modules have no feature."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["bot", "cogs"] and not parts[2].startswith("_"):
        return parts[2]
    return None


def _problem(imp: Import) -> str | None:
    m, t = imp.module, imp.target
    if _reaches(m, ("bot.rules", "bot.dice")):
        if _reaches(t, ("discord", "sqlalchemy", "aiohttp", "aiosqlite", "asyncpg")):
            return "the pure core imports I/O"
        if t.startswith("bot.") and not _reaches(t, ("bot.rules", "bot.dice", "bot.errors")):
            return None if _allowed_name(m, t) else "the pure core imports the bot"
    if _reaches(m, ("bot.db",)) and _reaches(t, (*_ABOVE_DB, "bot.tree", "discord")):
        return "the database layer imports a layer above it"
    if _reaches(m, ("bot.services",)) and _reaches(t, (*_ABOVE_SERVICES, "discord")):
        return "a service imports Discord or a layer above it"
    if _reaches(m, ("bot.render",)):
        if _reaches(t, ("bot.db", "sqlalchemy", "bot.services._sql")) and not _allowed_name(m, t):
            return "a renderer reaches the database"
        if _reaches(t, ("bot.cogs", "bot.ops", "bot.app", "bot.play", "bot.tree")):
            return "a renderer imports a layer above it"
    if _reaches(m, ("bot.cogs",)):
        if _reaches(t, ("bot.db", "sqlalchemy", "bot.services._sql")) and not _allowed_name(m, t):
            return "a cog reaches the database instead of asking a service"
        theirs = _feature(t)
        private = any(part.startswith("_") for part in t.split(".")[3:4])
        if theirs is not None and private and theirs != _feature(m):
            return f"a cog imports feature {theirs!r}'s private module"
        if _reaches(t, ("bot.app", "bot.serve", "bot.ops", "bot.play")) and not imp.typing_only:
            return "a cog imports the app, which loads the cogs (only as a type)"
    if _reaches(m, ("bot.ops",)) and _reaches(t, ("bot.app",)) and not imp.typing_only:
        return "ops builds the app (bot/serve.py does)"
    return None


def _modules() -> list[Path]:
    return sorted(BOT.rglob("*.py"))


def test_every_layer_imports_only_downwards() -> None:
    problems = [
        f"{imp.module}:{imp.line} imports {imp.target}: {why}"
        for path in _modules()
        for imp in _imports(path)
        if (why := _problem(imp)) is not None and (imp.module, imp.target) not in ALLOWED
    ]
    assert problems == []


def test_renderers_never_wait_on_anything() -> None:
    """Nothing async in bot/render: a renderer cannot reach the database, which is async."""
    waiting = [
        f"{path.relative_to(BOT.parent)}:{node.lineno}"
        for path in sorted((BOT / "render").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.AsyncFunctionDef | ast.Await | ast.AsyncFor | ast.AsyncWith)
    ]
    assert waiting == []


def test_every_allowed_exception_is_still_needed() -> None:
    """An exception nobody uses any more is deleted, so the list only shrinks."""
    reached = {(imp.module, imp.target) for path in _modules() for imp in _imports(path)}
    assert sorted(set(ALLOWED) - reached) == []
    unused = [
        (layer, name)
        for layer, names in ALLOWED_NAMES.items()
        for name in names
        if not any(_reaches_any(name, {t}) for m, t in reached if _reaches(m, (layer,)))
    ]
    assert unused == []


def _reaches_any(name: str, targets: set[str]) -> bool:
    return any(t == name or t.startswith(name + ".") for t in targets)


@pytest.mark.parametrize(
    ("module", "target", "expected"),
    [
        ("bot.rules.threshold", "bot.services.checks.plan", "the pure core imports the bot"),
        ("bot.dice.parser", "discord.Embed", "the pure core imports I/O"),
        ("bot.services.store.campaigns", "bot.ops.context.note", "a layer above it"),
        ("bot.services.x", "discord.Interaction", "a layer above it"),
        ("bot.db.models", "bot.services.checks.X", "a layer above it"),
        ("bot.render.checks", "bot.db.engine.Database", "reaches the database"),
        ("bot.render.checks", "sqlalchemy.select", "reaches the database"),
        ("bot.cogs.gm._cog", "bot.cogs.fortune._buttons.reveal_view", "private module"),
        ("bot.cogs.checks._cog", "sqlalchemy.select", "reaches the database"),
        ("bot.ops.shutdown", "bot.app.create_bot", "ops builds the app"),
        ("bot.cogs.dice._cog", "bot.app.create_bot", "only as a type"),
        ("bot.cogs.dice._cog", "bot.ops.cli.dumps", "only as a type"),
    ],
)
def test_the_rules_catch_upward_imports(module: str, target: str, expected: str) -> None:
    """Each rule fires on the kind of import it exists for (so the test above can fail)."""
    why = _problem(Import(module, target, 1, typing_only=False))
    assert why is not None
    assert expected in why


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("bot.rules.d20_check.checks", "bot.rules.common.Die"),
        ("bot.rules.threshold", "bot.quoting.quote"),
        ("bot.cogs.fortune._cog", "bot.cogs.fortune._buttons.fortune_view"),
        ("bot.cogs.gm._cog", "bot.cogs._views.fortune.reveal_view"),
        ("bot.render.checks", "bot.services.checks.CheckResult"),
        ("bot.ops.shutdown", "bot.app.PbpBot"),
    ],
)
def test_the_rules_let_downward_imports_through(module: str, target: str) -> None:
    typing_only = target == "bot.app.PbpBot"
    assert _problem(Import(module, target, 1, typing_only=typing_only)) is None
