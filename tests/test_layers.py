"""The layers import downwards only (README "Architecture").

Every module under ``bot/`` is parsed (not imported) and each of its imports, including those
inside functions and under ``TYPE_CHECKING``, is checked against the rules of its layer:

- ``bot/rules``, ``bot/dice``: pure; nothing from ``bot`` but themselves and ``bot.errors``,
  no Discord, no database, no network.
- ``bot/commands`` (the rolling commands' table): pure data above the rules; nothing from
  ``bot`` but the rules, the dice, the word lists, the errors and itself; no I/O.
- ``bot/db``: nothing from the layers that use it (services, cogs, render, ops, app…).
- ``bot/services``: no Discord and nothing from cogs, render, ops or the app.
- ``bot/render``: no database (no ``bot.db``, no SQLAlchemy, nothing async), no cogs, ops or app.
- ``bot/cogs``: no SQL; the app and ops only as types; no other feature's private
  ``_cog``/``_buttons`` module (shared views live in ``bot/cogs/_views/``, option types in
  ``_options.py``, the clock hooks in ``_shared.py``).
- ``bot/ops``: the app only as a type (it serves the bot; ``bot/serve.py`` builds it).
- ``bot/tree.py``, ``bot/interaction.py`` (how any command answers): nothing from the cogs.

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
_ABOVE_DB = (
    "bot.commands",
    "bot.services",
    "bot.cogs",
    "bot.render",
    "bot.ops",
    "bot.app",
    "bot.play",
)
#: What the command table may import of the bot: the pure core and the word lists.
_BELOW_COMMANDS = (
    "bot.commands",
    "bot.rules",
    "bot.dice",
    "bot.words",
    "bot.errors",
    "bot.quoting",
)
_IO = ("discord", "sqlalchemy", "aiohttp", "aiosqlite", "asyncpg")
_ABOVE_SERVICES = (
    "bot.cogs",
    "bot.render",
    "bot.ops",
    "bot.app",
    "bot.play",
    "bot.tree",
    "bot.interaction",
)

#: Imports that break a rule on purpose, each with its reason. Keep this short.
ALLOWED: dict[tuple[str, str], str] = {}

#: Names a layer may reach although their module is forbidden to it: layer -> name -> reason.
ALLOWED_NAMES: dict[str, dict[str, str]] = {
    "bot.rules": {
        "bot.quoting": "pure text helper with no import of its own: errors quote input alike",
        "bot.words": "the word lists: plain enums with no import of their own",
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
        if _reaches(t, _IO):
            return "the pure core imports I/O"
        if t.startswith("bot.") and not _reaches(t, ("bot.rules", "bot.dice", "bot.errors")):
            return None if _allowed_name(m, t) else "the pure core imports the bot"
    if _reaches(m, ("bot.commands",)):
        if _reaches(t, _IO):
            return "the command table imports I/O"
        if t.startswith("bot.") and not _reaches(t, _BELOW_COMMANDS):
            return "the command table imports a layer above it"
    if _reaches(m, ("bot.db",)) and _reaches(t, (*_ABOVE_DB, "bot.tree", "discord")):
        return "the database layer imports a layer above it"
    if _reaches(m, ("bot.services",)) and _reaches(t, (*_ABOVE_SERVICES, "discord")):
        return "a service imports Discord or a layer above it"
    if _reaches(m, ("bot.render",)):
        if _reaches(t, ("bot.db", "sqlalchemy", "bot.services.kit.sql")) and not _allowed_name(
            m, t
        ):
            return "a renderer reaches the database"
        if _reaches(t, ("bot.cogs", "bot.ops", "bot.app", "bot.play", "bot.tree")):
            return "a renderer imports a layer above it"
    if _reaches(m, ("bot.cogs",)):
        if _reaches(t, ("bot.db", "sqlalchemy", "bot.services.kit.sql")) and not _allowed_name(
            m, t
        ):
            return "a cog reaches the database instead of asking a service"
        theirs = _feature(t)
        private = any(part.startswith("_") for part in t.split(".")[3:4])
        if theirs is not None and private and theirs != _feature(m):
            return f"a cog imports feature {theirs!r}'s private module"
        if _reaches(t, ("bot.app", "bot.serve", "bot.ops", "bot.play")) and not imp.typing_only:
            return "a cog imports the app, which loads the cogs (only as a type)"
    if _reaches(m, ("bot.ops",)) and _reaches(t, ("bot.app",)) and not imp.typing_only:
        return "ops builds the app (bot/serve.py does)"
    if _reaches(m, ("bot.tree", "bot.interaction")) and _reaches(t, ("bot.cogs",)):
        return "the command tree and the answering helpers sit below the cogs"
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
        (
            "bot.rules.threshold",
            "bot.services.rolling.checks.plan",
            "the pure core imports the bot",
        ),
        ("bot.dice.parser", "discord.Embed", "the pure core imports I/O"),
        ("bot.services.store.campaigns", "bot.ops.context.note", "a layer above it"),
        ("bot.services.x", "discord.Interaction", "a layer above it"),
        ("bot.db.models", "bot.services.rolling.checks.X", "a layer above it"),
        ("bot.render.checks", "bot.db.engine.Database", "reaches the database"),
        ("bot.render.checks", "sqlalchemy.select", "reaches the database"),
        ("bot.cogs.gm", "bot.cogs.fortune._buttons.reveal_view", "private module"),
        ("bot.cogs.checks", "sqlalchemy.select", "reaches the database"),
        ("bot.ops.shutdown", "bot.app.create_bot", "ops builds the app"),
        ("bot.cogs.dice", "bot.app.create_bot", "only as a type"),
        ("bot.cogs.dice", "bot.ops.cli.dumps", "only as a type"),
        ("bot.tree", "bot.cogs._delivery.deliver", "below the cogs"),
        ("bot.interaction", "bot.cogs._caller.caller_from", "below the cogs"),
        ("bot.commands.rolling", "discord.app_commands", "the command table imports I/O"),
        ("bot.commands.rolling", "bot.services.rolling.attacks.AttackOptions", "layer above"),
        ("bot.rules.systems.commands", "bot.commands.ROLLING", "the pure core imports the bot"),
        ("bot.db.models", "bot.commands.ROLLING", "a layer above it"),
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
        ("bot.cogs.fortune", "bot.cogs.fortune._buttons.fortune_view"),
        ("bot.cogs.gm", "bot.cogs._views.fortune.reveal_view"),
        ("bot.render.checks", "bot.services.rolling.checks.CheckResult"),
        ("bot.ops.shutdown", "bot.app.PbpBot"),
        ("bot.commands.rolling", "bot.rules.systems.commands.COMMANDS"),
        ("bot.commands.rolling", "bot.words.Visibility"),
        ("bot.services.rolling.roll_text", "bot.commands.ROLLING"),
        ("bot.render.help", "bot.commands.ROLLING"),
    ],
)
def test_the_rules_let_downward_imports_through(module: str, target: str) -> None:
    typing_only = target == "bot.app.PbpBot"
    assert _problem(Import(module, target, 1, typing_only=typing_only)) is None


# --- each model module has one owning service ------------------------------------------------

#: Which service modules may import a model module's tables (a feature's ``*_models.py``) or,
#: for the shared ``bot/db/models.py``, each of its tables: the feature's own service module,
#: and the shared store (``bot/services/store/``) for the shared tables. Any other service or
#: cog reaches them through the owner's functions. Names that are not tables (enums, types,
#: size limits) are free.
SHARED_STORE = ("bot.services.store",)
MODEL_OWNERS: dict[str, tuple[str, ...]] = {
    "bot.db.delivery_models": ("bot.services.table.delivery",),
    "bot.db.dialect_models": ("bot.services.rolling.dialects",),
    "bot.db.fair_models": ("bot.services.trust.fairness",),
    "bot.db.fortune_models": ("bot.services.rolling.fortune_table",),
    "bot.db.inline_models": ("bot.services.rolling.inline",),
    "bot.db.macro_models": ("bot.services.rolling.macros",),
    "bot.db.party_models": ("bot.services.table.requests", "bot.services.rolling.generation"),
    "bot.db.post_models": ("bot.services.table.posts",),
    "bot.db.preroll_models": ("bot.services.rolling.prerolls",),
    "bot.db.round_models": ("bot.services.table.rounds",),
    "bot.db.models.campaigns": SHARED_STORE,
    "bot.db.models.characters": SHARED_STORE,
    "bot.db.models.character_scores": SHARED_STORE,
    "bot.db.models.character_proficiencies": SHARED_STORE,
    "bot.db.models.character_saves": SHARED_STORE,
    "bot.db.models.pending_modifiers": SHARED_STORE,
    # The log's erasure is privacy's own: store/ledger.py never deletes (test_ledger.py).
    "bot.db.models.ledger": ("bot.services.store.ledger", "bot.services.trust.privacy"),
    "bot.db.models.ledger_names": ("bot.services.store.ledger", "bot.services.trust.privacy"),
    "bot.db.models.ledger_salts": ("bot.services.store.ledger", "bot.services.trust.privacy"),
    "bot.db.models.ledger_chains": ("bot.services.store.ledger",),
    "bot.db.models.ledger_stubs": ("bot.services.trust.secrecy",),
    "bot.db.models.log_checkpoints": ("bot.services.trust.gamelog",),
    "bot.db.models.bot_state": ("bot.services.store.bot_state",),
    "bot.db.models.scheduled_jobs": ("bot.services.table.scheduler",),
    "bot.db.models.notify_settings": ("bot.services.table.notify",),
    "bot.db.models.turn_orders": ("bot.services.table.turns",),
}
#: The schema itself: export walks every table that hangs off a campaign (whole campaigns move
#: with their rows, feature tables added later included), ops moves a database.
SCHEMA_READERS = ("bot.services.trust.export", "bot.ops.move")

#: Imports of another owner's tables that are still there, each with why. Keep this short; it
#: only shrinks (a test below fails on an exception nobody needs).
KNOWN_TABLE_IMPORTS: dict[tuple[str, str], str] = {
    # Export and import move whole campaigns; they read the campaigns row and write chain
    # heads directly (the rest of the schema through metadata).
    ("bot.services.trust.export", "bot.db.models.campaigns"): "moves whole campaigns",
    ("bot.services.trust.export", "bot.db.models.ledger_chains"): "moves whole campaigns",
    ("bot.services.trust.imports", "bot.db.models.campaigns"): "moves whole campaigns",
    ("bot.services.trust.imports", "bot.db.models.ledger_chains"): "moves whole campaigns",
    # /catchup reads other features' rows for one campaign; not yet moved behind their owners.
    ("bot.services.table.catchup", "bot.db.fortune_models.fortune_choices"): "catch-up, not moved",
    ("bot.services.table.catchup", "bot.db.models.characters"): "catch-up, not moved",
    ("bot.services.table.catchup", "bot.db.models.pending_modifiers"): "catch-up, not moved",
    ("bot.services.table.catchup", "bot.db.models.turn_orders"): "catch-up, not moved",
    (
        "bot.services.table.catchup",
        "bot.db.party_models.roll_request_targets",
    ): "catch-up, not moved",
    ("bot.services.table.catchup", "bot.db.party_models.roll_requests"): "catch-up, not moved",
    # Features that read the characters table directly instead of through store/characters.
    ("bot.services.table.posts", "bot.db.models.characters"): "a post's portrait, not moved",
    ("bot.services.rolling.prerolls", "bot.db.models.characters"): "not moved",
    ("bot.services.trust.fairness", "bot.db.models.characters"): "not moved",
    ("bot.services.rolling.fortune_table", "bot.db.models.characters"): "not moved",
    ("bot.services.rolling.generation", "bot.db.models.character_scores"): "writes chosen scores",
    ("bot.services.store.pending", "bot.db.party_models.roll_request_targets"): "not moved",
    ("bot.services.table.delivery", "bot.db.models.scheduled_jobs"): "reads the clock's jobs",
    ("bot.services.trust.authorship", "bot.db.post_models.posts"): "who wrote a post",
    ("bot.services.trust.exposure", "bot.db.models.campaigns"): "not moved",
}


def _table_owner(target: str) -> tuple[str, tuple[str, ...]] | None:
    """The model module or shared table ``target`` reaches, and its owners (None: no table)."""
    for key in sorted(MODEL_OWNERS, key=len, reverse=True):
        if target == key or target.startswith(key + "."):
            return key, MODEL_OWNERS[key]
    return None


def _table_problem(imp: Import) -> str | None:
    if not _reaches(imp.module, ("bot.services", "bot.cogs")):
        return None
    if _reaches(imp.target, ("bot.db.schema.metadata",)) and imp.module not in SCHEMA_READERS:
        return "reads the whole schema"
    found = _table_owner(imp.target)
    if found is None or _table_name(imp.target) is None:
        return None
    key, owners = found
    if _reaches(imp.module, owners):
        return None
    return f"imports {key}'s tables, owned by {', '.join(owners)}"


def _table_name(target: str) -> str | None:
    """A table reached by an import: a lowercase name that is not a constant or type."""
    name = target.rpartition(".")[2]
    return name if name.islower() and not name.startswith("_") else None


def test_each_model_module_has_one_owning_service() -> None:
    problems = [
        f"{imp.module}:{imp.line} {why}"
        for path in _modules()
        for imp in _imports(path)
        if (why := _table_problem(imp)) is not None
        and (imp.module, imp.target) not in KNOWN_TABLE_IMPORTS
    ]
    assert problems == []


def test_every_model_module_is_mapped_and_every_known_import_still_happens() -> None:
    modules = {f"bot.db.{p.stem}" for p in (BOT / "db").glob("*_models.py")} | {"bot.db.models"}
    mapped = {k if not k.startswith("bot.db.models.") else "bot.db.models" for k in MODEL_OWNERS}
    assert sorted(modules - mapped) == []
    reached = {(imp.module, imp.target) for path in _modules() for imp in _imports(path)}
    assert sorted(set(KNOWN_TABLE_IMPORTS) - reached) == []


@pytest.mark.parametrize(
    ("module", "target", "bad"),
    [
        ("bot.services.trust.privacy", "bot.db.post_models.posts", True),
        ("bot.services.rolling.checks", "bot.db.models.turn_orders", True),
        ("bot.cogs.posts._cog", "bot.db.post_models.post_versions", True),
        ("bot.services.table.posts", "bot.db.post_models.posts", False),
        ("bot.services.store.characters", "bot.db.models.campaigns", False),
        ("bot.services.rolling.checks", "bot.db.models.RuleSystem", False),
        ("bot.services.table.posts", "bot.db.post_models.MAX_POST_TEXT", False),
    ],
)
def test_the_owner_rule_catches_another_feature_s_tables(
    module: str, target: str, bad: bool
) -> None:
    assert (_table_problem(Import(module, target, 1, typing_only=False)) is not None) is bad


def test_a_feature_is_one_module_unless_it_has_helpers() -> None:
    """A cog package exists only to keep private helpers beside its cog (bot/cogs/campaign/):
    a feature of one file is one module, found and loaded the same way (bot/app.py)."""
    cogs = BOT / "cogs"
    lonely = [
        d.name
        for d in cogs.iterdir()
        if d.is_dir() and not d.name.startswith("_") and (d / "__init__.py").exists()
        if len([f for f in d.glob("*.py") if f.name != "__init__.py"]) < 2
    ]
    assert lonely == []


#: The areas of bot/services/, each importing only those before it (bot/services/__init__.py):
#: the kit knows no tables, the store knows tables not people, trust decides who may see and
#: do, rolling rolls, and the table plays across hours around the rolls.
SERVICE_AREAS = ("kit", "store", "trust", "rolling", "table")


def _area(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["bot", "services"] and len(parts) >= 3:
        return parts[2]
    return None


def _area_problem(imp: Import) -> str | None:
    mine, theirs = _area(imp.module), _area(imp.target)
    if mine is None or theirs is None or mine == theirs:
        return None
    if mine not in SERVICE_AREAS:
        return f"{imp.module} sits in no area of bot/services/"
    if theirs not in SERVICE_AREAS:
        return None if imp.target.count(".") == 2 else f"{imp.target} sits in no area"
    if SERVICE_AREAS.index(theirs) > SERVICE_AREAS.index(mine):
        return f"area {mine} imports area {theirs}, which sits above it"
    return None


def test_service_areas_import_only_the_areas_before_them() -> None:
    """Typing-only imports count too: an area cycle hidden behind TYPE_CHECKING is still one."""
    problems = [
        f"{imp.module}:{imp.line} imports {imp.target}: {why}"
        for path in _modules()
        for imp in _imports(path)
        if (why := _area_problem(imp)) is not None
    ]
    assert problems == []


def test_every_service_module_sits_in_an_area() -> None:
    services = BOT / "services"
    loose = sorted(p.name for p in services.glob("*.py") if p.name != "__init__.py")
    areas = sorted(p.name for p in services.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert (loose, areas) == ([], sorted(SERVICE_AREAS))


@pytest.mark.parametrize(
    ("module", "target", "bad"),
    [
        ("bot.services.kit.errors", "bot.services.store.ledger.Recorded", True),
        ("bot.services.trust.gamelog", "bot.services.table.sheets.campaign_here", True),
        ("bot.services.rolling.checks", "bot.services.table.turns", True),
        ("bot.services.table.sheets", "bot.services.trust.access.campaign_here", False),
        ("bot.services.rolling.checks", "bot.services.rolling.prerolls", False),
        ("bot.services.store.ledger", "bot.services.kit.sql.transaction", False),
    ],
)
def test_the_area_rule_catches_an_upward_import(module: str, target: str, bad: bool) -> None:
    assert (_area_problem(Import(module, target, 1, typing_only=True)) is not None) is bad
