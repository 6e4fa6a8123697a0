"""An actor: one asyncio task draining a mailbox of commands, in order, so that no two
commands of one actor ever run at the same time (lila's ``AsyncActor``; docs/architecture.md,
"The table actor"). The table (server/table.py) is one; this is what any actor needs and
nothing of a table:

* ``submit`` queues a command (fire and forget), ``ask`` queues one and waits for its
  result — a refusal (one of the actor's ``refusals``) comes back to the caller, the actor
  goes on;
* a command that raises anything else is the actor's ``failed`` (the table retries the
  step: a store fault), and the loop goes on with the next command;
* a call still waiting when the actor stops is answered with ``closed_error()``, never left
  waiting;
* ``idle``: nothing queued and nothing running (tests wait for this, never for time).

A subclass gives ``_dispatch`` (its one ``match`` over its command classes) and may give
``_turn`` (how a command waits for its turn: bot-only tables are paced)."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

from fujian_mahjong.server.mailbox import Mailbox

__all__ = ["Actor"]

Cmd = TypeVar("Cmd")


class Actor(ABC, Generic[Cmd]):
    # exceptions that answer the caller (a refusal) rather than fail the actor
    refusals: tuple[type[BaseException], ...] = ()

    def __init__(self) -> None:
        # the commands to run, in order (None: stop)
        self.queue: Mailbox[tuple[Cmd, asyncio.Future[Any] | None] | None] = Mailbox()
        self.task: asyncio.Task[None] | None = None
        self.busy = False
        self._calls: set[asyncio.Future[Any]] = set()  # calls waiting for their answer

    # ------------------------------------------------------------------ what a subclass gives

    @property
    def task_name(self) -> str:
        return type(self).__name__

    @abstractmethod
    async def _dispatch(self, cmd: Cmd) -> Any:
        """Run one command (the subclass's one ``match``)."""

    async def _turn(self, cmd: Cmd, fut: asyncio.Future[Any] | None) -> None:
        """Run one command when its turn comes (at once, unless the subclass paces)."""
        await self._run_one(cmd, fut)

    def failed(self, e: Exception) -> None:
        """A command raised what is not a refusal (the default: the loop goes on)."""

    def finished(self) -> bool:
        """True once nothing more will come: the loop ends when the queue is empty."""
        return False

    def closed_error(self) -> Exception:
        """What a call gets when the actor has stopped."""
        return RuntimeError(f"{self.task_name} has stopped")

    # ------------------------------------------------------------------ the loop

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run(), name=self.task_name)

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing running."""
        return not self.busy and not self.queue

    async def _run(self) -> None:
        try:
            await self._loop()
        finally:
            # the actor has stopped: a call queued behind its end (a hint coming back from
            # its search, a REST call that raced the stop) is answered, never left waiting
            for fut in list(self._calls):
                if not fut.done():
                    fut.set_exception(self.closed_error())

    async def _loop(self) -> None:
        while True:
            item = await self.queue.get()
            if item is None:
                return
            cmd, fut = item
            self.busy = True
            try:
                await self._turn(cmd, fut)
            except Exception as e:
                self.failed(e)
            finally:
                self.busy = False
            if self.finished() and not self.queue:
                return

    async def _run_one(self, cmd: Cmd, fut: asyncio.Future[Any] | None) -> None:
        """One command; an answered one's result (or refusal) goes to its caller. Anything
        else it raises is raised on as well (the actor's ``failed``)."""
        if fut is None:
            await self._dispatch(cmd)
            return
        try:
            result = await self._dispatch(cmd)
            if not fut.done():
                fut.set_result(result)
        except Exception as e:  # handed to the caller
            if not fut.done():
                fut.set_exception(e)
            if not isinstance(e, self.refusals):
                raise

    def submit(self, cmd: Cmd) -> None:
        """Queue a command (fire and forget)."""
        self.queue.put((cmd, None))

    async def ask(self, cmd: Cmd) -> Any:
        """Run a command inside the actor and return its result; what it raised (a refusal
        or a fault) is raised here."""
        if self.task is None or self.task.done():
            raise self.closed_error()
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls.add(fut)
        self.queue.put((cmd, fut))
        try:
            return await fut
        finally:
            # forgotten as its caller resumes (or is cancelled): no done callback, which
            # would cost one more turn of the event loop per call
            self._calls.discard(fut)

    async def stop(self) -> None:
        """Stop after the commands already queued."""
        if self.task is not None and not self.task.done():
            self.queue.put(None)
            await self.task
