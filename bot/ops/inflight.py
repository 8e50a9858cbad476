"""Interactions in flight, and refusing new ones while the process shuts down."""

from __future__ import annotations

import asyncio


class InFlight:
    """Counts interactions being handled; ``wait_idle`` waits (bounded) until none are."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self.draining = False

    @property
    def count(self) -> int:
        return self._count

    def enter(self) -> None:
        self._count += 1
        self._idle.clear()

    def exit(self) -> None:
        self._count -= 1
        if self._count <= 0:
            self._count = 0
            self._idle.set()

    def start_draining(self) -> None:
        """From now on new interactions are refused (see :meth:`Operations.admit`)."""
        self.draining = True

    async def wait_idle(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for every interaction to finish; True if they did."""
        try:
            async with asyncio.timeout(seconds):
                await self._idle.wait()
        except TimeoutError:
            return False
        return True
