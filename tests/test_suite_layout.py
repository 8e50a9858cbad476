"""The suite is laid out so a reader finds a module's tests from its name, and a fixture from
its name (README "Layout").

- Every module of ``bot/`` (each ``.py`` but ``__init__.py`` and ``__main__.py``) has a test
  file named after it, ``tests/**/test_<stem>*.py`` (leading underscores of a private module
  dropped: ``_places.py`` -> ``test_places*.py``; a feature package's ``_cog.py`` is its
  package: ``post/_cog.py`` -> ``test_post*.py``), and one such file tests it: imports it, or,
  for a scenario that drives it through Discord, names it (``bot/cogs/seed.py``). Modules of
  one stem in several packages share the prefix with a suffix (``test_checks_render.py``).
  The few modules that need no file of their own are in :data:`EXEMPT`, each with its reason.
- Every fixture is defined once, in the fixture home ``tests/fixtures/``, whose modules
  ``tests/conftest.py`` registers; no other conftest.py, no fixture in a test module, none
  imported or assigned into one (pytest would register it there again).

Files are parsed, not imported.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"
TESTS = ROOT / "tests"
HOME = TESTS / "fixtures"

#: Modules with no test file of their own (a pattern may name several), each with its reason.
#: Keep this short.
EXEMPT: dict[str, str] = {
    "bot/db/*_models.py": "a feature's table definitions, data only: tests/db/test_migrations.py "
    "holds them equal to the migrations, the feature's tests exercise their constraints",
    "bot/db/schema.py": "imports every table module so the metadata is whole; nothing else",
    "bot/services/kit/context.py": "the caller as a frozen dataclass, no behaviour; every "
    "service test builds one",
}


def _modules() -> list[Path]:
    return sorted(
        path
        for path in BOT.rglob("*.py")
        if path.name not in {"__init__.py", "__main__.py"} and "__pycache__" not in path.parts
    )


def _test_files() -> list[Path]:
    return sorted(path for path in TESTS.rglob("test_*.py") if "__pycache__" not in path.parts)


def _prefix(module: Path) -> str:
    """The start of the name of the test files that may test ``module``."""
    stem = module.parent.name if module.stem == "_cog" else module.stem
    return "test_" + stem.lstrip("_")


def _named(module: Path) -> str:
    return module.relative_to(ROOT).as_posix()


def _tests(module: Path, text: str) -> bool:
    """Whether a test file's ``text`` imports ``module`` or names its path."""
    dotted = ".".join(module.relative_to(ROOT).with_suffix("").parts)
    package, stem = dotted.rsplit(".", 1)
    if re.search(rf"(?<![\w.]){re.escape(dotted)}(?![\w])", text) or _named(module) in text:
        return True
    imports = rf"from {re.escape(package)} import (?:\(([^)]*)\)|([^\n(]*))"
    for imported in re.finditer(imports, text):
        names = re.split(r"[\s,]+", imported.group(1) or imported.group(2))
        if stem in names:
            return True
    return False


def test_every_bot_module_has_a_test_file_named_after_it_that_tests_it() -> None:
    files = {path: path.read_text(encoding="utf-8") for path in _test_files()}
    missing: list[str] = []
    for module in _modules():
        if _exempt(module):
            continue
        prefix = _prefix(module)
        named = [path for path in files if path.name.startswith(prefix)]
        if not named:
            missing.append(f"{_named(module)}: no tests/**/{prefix}*.py")
        elif not any(_tests(module, files[path]) for path in named):
            shown = ", ".join(path.relative_to(ROOT).as_posix() for path in named)
            missing.append(f"{_named(module)}: neither imports nor names it: {shown}")
    assert missing == [], "\n".join(missing)


def _exempt(module: Path) -> bool:
    return any(fnmatch(_named(module), pattern) for pattern in EXEMPT)


def test_every_exemption_names_modules_that_exist_and_have_no_test_file() -> None:
    files = [path.name for path in _test_files()]
    stale = []
    for pattern in EXEMPT:
        modules = [m for m in _modules() if fnmatch(_named(m), pattern)]
        if not modules or any(
            name.startswith(_prefix(module)) for module in modules for name in files
        ):
            stale.append(pattern)
    assert stale == []


# --- fixtures -----------------------------------------------------------------------------


def _is_fixture(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(target, ast.Attribute) and target.attr == "fixture") or (
        isinstance(target, ast.Name) and target.id == "fixture"
    )


def _fixture_name(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name pytest knows a fixture by (``name=`` if given), or None for a plain function."""
    for decorator in node.decorator_list:
        if not _is_fixture(decorator):
            continue
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
        return node.name
    return None


def _fixtures(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (name := _fixture_name(node)) is not None
    ]


def _home_modules() -> list[Path]:
    return sorted(path for path in HOME.glob("*.py") if path.name != "__init__.py")


def _home_fixtures() -> Counter[str]:
    return Counter(name for path in _home_modules() for name in _fixtures(path))


def _home_fixtures_by_module() -> dict[str, set[str]]:
    return {f"tests.fixtures.{path.stem}": set(_fixtures(path)) for path in _home_modules()}


def _suite_files() -> list[Path]:
    return sorted(
        path
        for path in TESTS.rglob("*.py")
        if HOME not in path.parents and "__pycache__" not in path.parts
    )


def test_the_only_conftest_registers_the_fixture_home_and_defines_nothing() -> None:
    conftests = sorted(path.relative_to(ROOT).as_posix() for path in TESTS.rglob("conftest.py"))
    assert conftests == ["tests/conftest.py"]
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    [registered] = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["pytest_plugins"]
    ]
    assert isinstance(registered, ast.List)
    plugins = [ast.literal_eval(item) for item in registered.elts]
    home = [f"tests.fixtures.{path.stem}" for path in _home_modules() if _fixtures(path)]
    assert sorted(plugins) == sorted(home), "every home module with fixtures, registered once"
    assert _fixtures(TESTS / "conftest.py") == []


def test_no_fixture_is_defined_twice() -> None:
    twice = sorted(name for name, count in _home_fixtures().items() if count > 1)
    assert twice == []


def test_no_fixture_is_defined_or_re_exported_outside_the_home() -> None:
    home = _home_fixtures_by_module()
    every = set().union(*home.values())
    found: list[str] = []
    for path in _suite_files():
        where = path.relative_to(ROOT).as_posix()
        found += [f"{where}: defines {name}" for name in _fixtures(path)]
        # Only what a module binds at its top level is a fixture pytest would register there.
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.module in home:
                mine = home[node.module]
                found += [f"{where}: imports {a.name}" for a in node.names if a.name in mine]
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute | ast.Name):
                bound = node.value.attr if isinstance(node.value, ast.Attribute) else node.value.id
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                if bound in every and bound in names:
                    found.append(f"{where}: binds {bound}")
    assert found == [], "\n".join(found)
