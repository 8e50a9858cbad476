"""Operations hygiene: what the metrics endpoint serves, and what the code may read of its
libraries."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from bot.ops.metrics import Metrics
from tests.fixtures.table import Table, start_campaign

BOT = Path(__file__).resolve().parents[2] / "bot"


async def test_metrics_carry_process_and_gc_collectors_and_no_duplicate_series(
    table: Table,
) -> None:
    await start_campaign(table, "roll-under")
    await table.alice.slash(table.table, "character create", name="Sybilla")
    served = table.bot.ops.metrics.render().decode()
    samples = [
        (sample.name, tuple(sorted(sample.labels.items())))
        for family in text_string_to_metric_families(served)
        for sample in family.samples
    ]
    names = {name for name, _ in samples}
    # What every Prometheus exporter serves: CPU and memory of the process, when it started,
    # the garbage collector's work, the Python version.
    for wanted in (
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_start_time_seconds",
        "python_gc_objects_collected_total",
        "python_gc_collections_total",
        "python_info",
    ):
        assert wanted in names, wanted
    assert "pbp_commands_total" in names
    # One series per name and labels, and no `_created` twin beside each counter/histogram.
    assert [s for s, n in Counter(samples).items() if n > 1] == []
    assert not [name for name in names if name.endswith("_created")]


def test_two_registries_in_one_process_each_serve_the_collectors() -> None:
    """Tests build several bots in a process: each registry has its own collectors."""
    for metrics in (Metrics(), Metrics()):
        assert {"process_cpu_seconds", "python_gc_collections"} <= set(metrics.names())


#: Underscored names that are public API all the same: SQLAlchemy documents ``Row._mapping``.
PUBLIC = {"_mapping"}
#: What bot/db/engine.py reads of aiosqlite and SQLAlchemy's aiosqlite adapter, on purpose and
#: pinned to their tested versions (its module comment and pyproject.toml say why).
ENGINE = BOT / "db" / "engine.py"
#: The standard library's type of add_subparsers(), for annotations only.
KNOWN = {("__main__.py", "_SubParsersAction"), ("ops/cli.py", "_SubParsersAction")}


def _private_reads(path: Path) -> list[tuple[str, int]]:
    """``x._name`` where ``x`` is not ``self``/``cls``: another object's private attribute."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__") or name in PUBLIC:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}:
            continue
        found.append((name, node.lineno))
    return found


def test_no_private_attribute_of_discord_py_or_aiohttp_is_read() -> None:
    found = {
        (str(path.relative_to(BOT)), name, line)
        for path in sorted(BOT.rglob("*.py"))
        if path != ENGINE
        for name, line in _private_reads(path)
    }
    unexpected = sorted(f for f in found if (f[0], f[1]) not in KNOWN)
    assert unexpected == []
    # The two named in the operators' review are gone for good.
    text = "\n".join(p.read_text(encoding="utf-8") for p in BOT.rglob("*.py"))
    assert "._last_iteration" not in text and "._server" not in text
