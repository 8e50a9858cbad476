"""One session at the offline table: run each line as someone, print what people see.

What happened is read back from SimCord's backend (every message before and after the
action), so whatever the bot does (answer, follow up, edit in place, post to #gm, DM someone)
is shown, not just the direct reply.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from simcord import BackendError, OptionError, SetupError
from simcord.actors import MemberActor
from simcord.backend.access import can_access_channel, can_access_message
from simcord.backend.models import Message
from simcord.results import InteractionResult, ResponseMessage

from bot.app import PbpBot
from bot.errors import UserError
from bot.play._parse import (
    Action,
    Click,
    Invocation,
    Meta,
    PlayError,
    Slash,
    command_paths,
    parse_line,
    resolve,
)
from bot.play._print import Shown, buttons, indent, render
from bot.play._world import BOT_NAME, World
from bot.services.kit.clock import format_duration, parse_duration
from bot.tree import user_message

TABLE_HELP = """\
Act as anyone: start a line with their name, or `switch` to them.
  gm> /campaign setup system:pen-and-dagger gm_role:@GM gm_channel:#gm
  alice> /character create name:Angus
  alice> /check ability:DEX advantage:true
  alice> click 1                  press button 1 of the latest message with buttons
  alice> click "Cancel"           press a button by its label
  alice> /post                    opens a form: type its text, then a line with only "."
  gm #gm> /roll dice:1d20         run a command in #gm instead of #table
  alice> /character show name:?an ask the bot's autocomplete what fits "an"
Options are written name:value; quote a value that holds a colon: label:"a: b".
Table commands: help [command], who, switch NAME, wait 2h (time passes), quit (or Ctrl-D).
Tab completes commands and options; Ctrl-C drops the line you are typing."""

log = logging.getLogger(__name__)

_SIMCORD_ERRORS = (SetupError, OptionError, BackendError)


@dataclass
class _Form:
    """A modal the bot opened, being filled in line by line (Discord shows a form)."""

    actor: MemberActor
    shown: InteractionResult
    #: (custom_id, label, paragraph?) of each text field, in order.
    fields: list[tuple[str, str, bool]]
    values: dict[str, str]
    lines: list[str]

    @property
    def current(self) -> tuple[str, str, bool]:
        return self.fields[len(self.values)]


def _form_fields(modal: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """The text inputs of a modal payload (in action rows, or labelled components)."""
    found: list[tuple[str, str, bool]] = []

    def walk(component: dict[str, Any], label: str | None) -> None:
        if component.get("type") == 4:  # a text input
            name = component.get("label") or label or component["custom_id"]
            found.append((component["custom_id"], str(name), component.get("style") == 2))
        inner = component.get("component")
        if isinstance(inner, dict):
            walk(inner, component.get("label"))
        for child in component.get("components") or ():
            walk(child, label)

    for component in modal.get("components") or ():
        walk(component, None)
    return found


@dataclass(frozen=True)
class _Snapshot:
    prints: dict[tuple[int, int], str]


def _fingerprint(message: Message) -> str:
    return json.dumps(
        [message.content, message.embeds, message.components, message.flags, message.attachments],
        sort_keys=True,
        default=str,
    )


def _range(param: app_commands.Parameter) -> str:
    """` from 1 to 100`, ` at least 1`, ` of 1 to 32 characters`: an option's limits, if any."""
    low, high = param.min_value, param.max_value
    if low is None and high is None:
        return ""
    text = param.type is discord.AppCommandOptionType.string
    unit = " characters" if text else ""
    if low is not None and high is not None:
        return f" {'of' if text else 'from'} {low} to {high}{unit}"
    return f" at least {low}{unit}" if low is not None else f" at most {high}{unit}"


class Session:
    """The table: who is acting by default, and how each line is run and shown."""

    def __init__(
        self,
        world: World,
        bot: PbpBot,
        write: Callable[[str], None],
        *,
        ansi: bool = False,
        echo: bool = False,
    ) -> None:
        self.world = world
        self.bot = bot
        self.write = write
        self.ansi = ansi
        self.echo = echo
        self.current = world.gm_name
        #: Lines that failed: refused by the table or SimCord, or an unexpected bot error.
        self.errors = 0
        #: A modal the bot opened: the next lines fill it in (see :meth:`_fill`).
        self.form: _Form | None = None

    @property
    def prompt(self) -> str:
        """What the interactive prompt shows: the person, or the form field being typed."""
        if self.form is not None:
            return f"{self.form.actor.name} … {self.form.current[1]}> "
        return f"{self.current}> "

    # ------------------------------------------------------------------ entry point

    async def run_line(self, line: str) -> bool:
        """Run one line; False when the person asked to quit."""
        if self.form is not None:
            if self.echo:  # indented: what was typed into the form, not a line of the table
                self.write(f"  ✎ {line.rstrip()}")
            try:
                await self._fill(line)
            except _SIMCORD_ERRORS as error:
                self.form = None
                self._fail(str(error).splitlines()[0] if str(error) else type(error).__name__)
            return True
        try:
            action = parse_line(line)
        except PlayError as error:
            self._echo(line, None)
            self._fail(str(error))
            return True
        if action is None:
            if self.echo and line.strip():
                self.write(line.rstrip())
            return True
        self._echo(line, action)
        try:
            return await self._run(action)
        except PlayError as error:
            self._fail(str(error))
        except BrokenPipeError:  # the reader went away (`| head`): nothing more to show
            raise
        except _SIMCORD_ERRORS as error:
            self._fail(str(error).splitlines()[0] if str(error) else type(error).__name__)
        except Exception as error:  # keep the table open; the traceback goes to the log
            log.exception("the offline table failed on %r", line)
            self._fail(f"the offline table failed: {type(error).__name__}: {error}")
        return True

    def _echo(self, line: str, action: Action | None) -> None:
        if not self.echo:
            return
        text = line.strip()
        has_person = isinstance(action, (Slash, Click)) and action.person is not None
        if isinstance(action, (Slash, Click)) and not has_person:
            text = f"{self.current}> {text}"
        self.write(text)

    def _fail(self, message: str) -> None:
        self.errors += 1
        self.write(f"  ✗ {message}")

    def _say(self, message: str) -> None:
        self.write(f"  {message}")

    async def _run(self, action: Action) -> bool:
        if isinstance(action, Meta) and action.word == "wait":
            await self._wait(action.argument)
            return True
        if isinstance(action, Meta):
            return self._meta(action)
        actor = self._actor(action.person)
        if isinstance(action, Click):
            await self._click(actor, action)
            return True
        channel = self.world.table
        if action.channel is not None:
            found = self.world.channel(action.channel)
            if found is None:
                raise PlayError(f"There is no #{action.channel}; the channels are #table and #gm.")
            channel = found
        if not can_access_channel(self.world.env, channel.id, actor):
            raise PlayError(f"{actor.name} cannot see #{channel.name}: it is for GMs only.")
        invocation = resolve(self.bot.tree, action.text, self.world)
        if invocation.focus is not None:
            await self._autocomplete(actor, channel, invocation)
            return True
        before = self._snapshot()
        cursor = self.world.env.error_cursor
        result = await actor.slash(channel, invocation.path, **invocation.options)
        self._report(before, cursor, result)
        if result.modal is not None:
            self._open(actor, result)
        return True

    # ------------------------------------------------------------------ forms (modals)

    def _open(self, actor: MemberActor, shown: InteractionResult) -> None:
        """The bot opened a form: say so; the next lines fill its fields in."""
        modal = shown.modal or {}
        fields = _form_fields(modal)
        title = modal.get("title") or "a form"
        if not fields:
            self._say(f"▭ {title} (a form with nothing to type: it cannot be sent here)")
            return
        self.form = _Form(actor, shown, fields, {}, [])
        self._say(f"▭ {BOT_NAME} opens a form for {actor.name}: “{title}”")
        self._ask()

    def _ask(self) -> None:
        assert self.form is not None
        _, label, paragraph = self.form.current
        if paragraph:
            self._say(f"  {label}: type it on the next lines, then a line with only “.” sends it")
        else:
            self._say(f"  {label}: type it on the next line")
        self._say("  (“cancel” on a line of its own closes the form)")

    async def _fill(self, line: str) -> None:
        """One line typed into the open form; submitted once every field is filled."""
        form = self.form
        assert form is not None
        if line.strip().lower() == "cancel" and not form.lines:
            self.form = None
            self._say("▭ form closed: nothing was sent.")
            return
        custom_id, _, paragraph = form.current
        if paragraph and line.strip() != ".":
            form.lines.append(line.rstrip("\n"))
            return
        form.values[custom_id] = "\n".join(form.lines) if paragraph else line.rstrip("\n")
        form.lines = []
        if len(form.values) < len(form.fields):
            self._ask()
            return
        self.form = None
        before = self._snapshot()
        cursor = self.world.env.error_cursor
        result = await form.actor.submit_modal(form.shown, dict(form.values))
        self._report(before, cursor, result)

    # ------------------------------------------------------------------ actors

    def _actor(self, person: str | None) -> MemberActor:
        name = person or self.current
        actor = self.world.member(name)
        if actor is None:
            raise PlayError(f"Nobody here is called {name}. {self._people_line()}")
        return actor

    def _people_line(self) -> str:
        return "At the table: " + ", ".join(self.world.people) + "."

    # ------------------------------------------------------------------ meta commands

    async def _wait(self, argument: str) -> None:
        """`wait 2h`: the simulated clock moves on; show what the game clock posted meanwhile
        (deadlines, reminders, turns passing)."""
        try:
            span = parse_duration(argument, what="wait")
        except UserError as error:
            raise PlayError(str(error)) from None
        before = self._snapshot()
        await self.world.env.advance_time(span.total_seconds())
        self._say(f"⏱ {format_duration(span)} later")
        self._print_changes(before)

    def _print_changes(self, before: _Snapshot) -> None:
        backend = self.world.env.backend
        names = self.world.names()
        after = self._snapshot().prints
        changed = sorted(
            (key for key, print_ in after.items() if before.prints.get(key) != print_),
            key=lambda key: key[1],
        )
        for channel_id, message_id in changed:
            message = backend.messages[channel_id][message_id]
            shown = Shown(
                where=self._where(message),
                author=self.world.name_of(message.author_id),
                content=message.content,
                embeds=message.embeds,
                components=message.components,
                updated=(channel_id, message_id) in before.prints,
            )
            for line in indent(render(shown, names, ansi=self.ansi)):
                self.write(line)

    def _meta(self, action: Meta) -> bool:
        if action.word == "quit":
            return False
        if action.word == "who":
            for name in self.world.people:
                role = (
                    "GM (owns the server, has the GM role)"
                    if name == self.world.gm_name
                    else "player"
                )
                marker = "→" if name == self.current else " "
                self._say(f"{marker} {name}: {role}")
            self._say("channels: #table (everyone), #gm (GMs only)")
            return True
        if action.word == "switch":
            name = action.argument.lower()
            if self.world.member(name) is None:
                raise PlayError(f"Nobody here is called {name}. {self._people_line()}")
            self.current = name
            self._say(f"You are now {name}.")
            return True
        self._help(action.argument)
        return True

    def _help(self, topic: str) -> None:
        if topic:
            path = topic.lstrip("/").strip().lower()
            matches = [
                (p, c)
                for p, c in command_paths(self.bot.tree)
                if p == path or p.startswith(path + " ")
            ]
            if not matches:
                raise PlayError(f"/{path} is not a command of this bot. Type `help` for the list.")
            for qualified, command in matches:
                self._say(f"/{qualified}: {command.description}")
                for param in command.parameters:
                    need = "required" if param.required else "optional"
                    extra = ""
                    if param.choices:
                        extra = " one of " + ", ".join(str(c.value) for c in param.choices)
                    else:
                        extra = _range(param)
                    self._say(
                        f"    {param.display_name}: {param.type.name}{extra}, {need}: "
                        f"{param.description}"
                    )
            return
        for line in TABLE_HELP.splitlines():
            self._say(line)
        self._say("The bot's commands (help /name for its options):")
        for qualified, command in command_paths(self.bot.tree):
            self._say(f"  /{qualified}: {command.description}")

    # ------------------------------------------------------------------ autocomplete

    async def _autocomplete(self, actor: MemberActor, channel: Any, inv: Invocation) -> None:
        assert inv.focus is not None
        option, typed = inv.focus
        param = next(p for p in inv.command.parameters if p.display_name == option)
        if param.autocomplete:
            cursor = self.world.env.error_cursor
            choices = await actor.autocomplete(channel, inv.path, option, typed, **inv.options)
            self._incidents(cursor)
            names = [str(c.get("name")) for c in choices]
        elif param.choices:
            names = [
                c.name for c in param.choices if c.name.casefold().startswith(typed.casefold())
            ]
        else:
            raise PlayError(f"`{option}` has no suggestions; type a value.")
        shown = ", ".join(names) if names else "(no suggestions)"
        self._say(f"suggestions for {option}: {shown}")

    # ------------------------------------------------------------------ buttons

    def _messages_newest_first(self, actor: MemberActor) -> list[Message]:
        env = self.world.env
        found = [
            message
            for channel_id, messages in env.backend.messages.items()
            for message in messages.values()
            if can_access_message(env, channel_id, message, actor)
        ]
        return sorted(found, key=lambda m: m.id, reverse=True)

    async def _click(self, actor: MemberActor, action: Click) -> None:
        target, button = self._find_button(actor, action)
        if button.get("disabled"):
            raise PlayError(f"“{button.get('label')}” is disabled: it cannot be clicked now.")
        if button.get("style") == 5 or not button.get("custom_id"):
            raise PlayError("That is a link, not a button the bot answers.")
        before = self._snapshot()
        cursor = self.world.env.error_cursor
        result = await actor.click(
            ResponseMessage(self.world.env, target), custom_id=button["custom_id"]
        )
        self._report(before, cursor, result)

    def _find_button(self, actor: MemberActor, action: Click) -> tuple[Message, dict[str, Any]]:
        with_buttons = [m for m in self._messages_newest_first(actor) if buttons(m.components)]
        if not with_buttons:
            raise PlayError(f"{actor.name} sees no message with buttons.")
        if action.index is not None:
            latest = with_buttons[0]
            found = buttons(latest.components)
            if action.index > len(found):
                raise PlayError(
                    f"The latest message with buttons has {len(found)}: "
                    f'click 1 to {len(found)}, or click "label".'
                )
            return latest, found[action.index - 1]
        wanted = (action.label or "").casefold()
        for message in with_buttons:
            found = buttons(message.components)
            exact = [b for b in found if str(b.get("label", "")).casefold() == wanted]
            if exact:
                return message, exact[0]
            partial = [b for b in found if str(b.get("label", "")).casefold().startswith(wanted)]
            if len(partial) == 1:
                return message, partial[0]
        labels = ", ".join(f'"{b.get("label")}"' for b in buttons(with_buttons[0].components))
        raise PlayError(f"No button “{action.label}” for {actor.name}. The latest ones: {labels}.")

    # ------------------------------------------------------------------ what happened

    def _snapshot(self) -> _Snapshot:
        backend = self.world.env.backend
        return _Snapshot(
            {
                (channel_id, message_id): _fingerprint(message)
                for channel_id, messages in backend.messages.items()
                for message_id, message in messages.items()
            }
        )

    def _report(self, before: _Snapshot, cursor: int, result: InteractionResult) -> None:
        backend = self.world.env.backend
        names = self.world.names()
        after = self._snapshot().prints
        changed = sorted(
            (key for key, print_ in after.items() if before.prints.get(key) != print_),
            key=lambda key: key[1],
        )
        for channel_id, message_id in changed:
            message = backend.messages[channel_id][message_id]
            shown = Shown(
                where=self._where(message),
                author=self._author(message),
                content=message.content,
                embeds=message.embeds,
                components=message.components,
                updated=(channel_id, message_id) in before.prints,
                attachments=message.attachments,
            )
            for line in indent(render(shown, names, ansi=self.ansi)):
                self.write(line)
        for channel_id, _message in sorted(set(before.prints) - set(after), key=lambda k: k[1]):
            where = "#" + (backend.get_channel(channel_id).name or "?")
            self._say(f"── {where} · a message was deleted ──")
        if not result.acknowledged:
            self._fail(
                f"{BOT_NAME} did not respond (Discord shows: The application did not respond)."
            )
        self._incidents(cursor)

    def _author(self, message: Message) -> str:
        """Who a message shows as: a webhook's message, the name it was sent under."""
        if message.webhook_id is not None and message.author_name:
            return f"{message.author_name} (via {BOT_NAME})"
        return self.world.name_of(message.author_id)

    def _incidents(self, cursor: int) -> None:
        for error in self.world.env.errors_since(cursor):
            if user_message(error) is None:
                self._fail(f"the bot hit an unexpected error: {type(error).__name__}: {error}")

    def _where(self, message: Message) -> str:
        backend = self.world.env.backend
        dm_users = {channel: user for user, channel in backend.dm_channels.items()}
        if message.channel_id in dm_users:
            return f"direct message to {self.world.name_of(dm_users[message.channel_id])}"
        channel = "#" + (backend.get_channel(message.channel_id).name or "?")
        if message.is_ephemeral:
            user = ((message.interaction_metadata or {}).get("user") or {}).get("id")
            who = self.world.name_of(int(user)) if user is not None else "the user"
            return f"{channel} · only {who} can see this"
        if message.channel_id == self.world.gm_channel.id:
            return f"{channel} · GM channel, only GMs see it"
        return channel


def tree_of(bot: PbpBot) -> app_commands.CommandTree[Any]:
    """The bot's command tree (typed for the completer)."""
    return bot.tree
