"""docs/commands.md is what its generator writes from the rolling commands' table."""

from __future__ import annotations

import difflib
from pathlib import Path

from bot.commands.docs import COMMAND, PAGE, main, markdown
from bot.commands.rolling import ROLLING

ROOT = Path(__file__).resolve().parents[2]


def test_docs_commands_md_is_the_generated_page() -> None:
    written = PAGE.read_text(encoding="utf-8")
    wanted = markdown()
    diff = "\n".join(
        difflib.unified_diff(
            written.splitlines(), wanted.splitlines(), "docs/commands.md", "generated", lineterm=""
        )
    )
    assert written == wanted, f"docs/commands.md is out of date: run `{COMMAND}`\n{diff}"


def test_the_page_documents_every_rolling_command_and_option() -> None:
    page = markdown()
    for name, command in ROLLING.items():
        assert f"## `/{name}`" in page
        for option in command.options:
            assert f"| `{option.name}` | {option.shape.words()} |" in page, (name, option.name)
    # Which systems take an option is each system's word: /check's rank_bonus is Pen & Dagger's.
    assert "| `rank_bonus` | whole number -10 to 10 |  |  | Pen & Dagger |" in page


def test_the_generator_writes_the_page_where_asked(tmp_path: Path) -> None:
    target = tmp_path / "commands.md"
    assert main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == markdown()


def test_the_readme_links_the_page() -> None:
    assert PAGE == ROOT / "docs" / "commands.md"
    assert "(docs/commands.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
