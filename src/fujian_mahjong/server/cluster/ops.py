"""The operator's view of a cluster (``GET /api/metrics``, ``GET /metrics``): each process
publishes its own figures to Redis, and any process lists every live process's.
``OperatorView`` is the part of ``Cluster`` that does it."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from fujian_mahjong.server.cluster import bus as B

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from fujian_mahjong.server.cluster.lease import Leases
    from fujian_mahjong.server.lobby import Lobby
    from fujian_mahjong.server.looplag import LoopLag
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import Store

log = logging.getLogger("fjmj.cluster")


class OperatorView:
    """``Cluster``'s figures for the operator (a mixin: the state is the cluster's)."""

    if TYPE_CHECKING:
        settings: Settings
        store: Store
        lobby: Lobby
        node: str
        prefix: str
        redis: Redis | None
        bus: B.Bus
        leases: Leases
        looplag: LoopLag | None
        takeovers: int
        handed_over: int
        bound: dict[int, Any]
        proxies: dict[tuple[str, int], Any]
        alive_nodes: set[str]

        @property
        def nodes_key(self) -> str: ...

    def node_metrics(self) -> dict[str, Any]:
        """This process's figures for the operator (``GET /api/metrics`` on any process
        lists every live process's, as published): its tables and leases, decisions and
        commits so far, the loop's lag, the cluster's own counters."""
        lobby, store = self.lobby, self.store
        out: dict[str, Any] = {
            **self.metrics(),
            "tables": len(lobby.tables),
            "actions": lobby.actions,
            "commits": store.commits,
            "degraded_tables": lobby.degraded_tables(),
            "store_failing": store.failing,
        }
        lag = self.looplag
        if lag is not None:
            snap = lag.snapshot()
            out.update(
                {k: snap.get(k) for k in ("loop_lag_p99_ms", "loop_lag_max_ms", "gc_pause_max_ms")}
            )
        return out

    def metrics_key(self, node: str) -> str:
        return f"{self.prefix}:metrics:{node}"

    async def _publish_metrics(self) -> None:
        """Every ``metrics_refresh_s``: this process's figures, to Redis (kept for three
        periods: a dead process's go with it). Refreshed no more often than the metrics'
        own snapshot, so they cannot time one claim window either (R12)."""
        every = max(1.0, float(getattr(self.settings, "metrics_refresh_s", 10.0)))
        while True:
            try:
                assert self.redis is not None
                body = json.dumps({**self.node_metrics(), "at": time.time()})
                if self.bus.ok:
                    await asyncio.wait_for(
                        self.redis.set(self.metrics_key(self.node), body, px=int(3000 * every)),
                        B.TIMEOUT_S,
                    )
            except Exception as e:
                log.warning("cluster: metrics publication failed: %s", _line(e))
            await asyncio.sleep(every)

    async def nodes_metrics(self) -> dict[str, Any]:
        """Every live process's last published figures, by node id (none while the bus is
        down)."""
        assert self.redis is not None
        if not self.bus.ok:
            return {}
        nodes = sorted(
            n.decode() if isinstance(n, bytes) else str(n)
            for n in await self.redis.smembers(self.nodes_key)
        )
        if not nodes:
            return {}
        found = await self.redis.mget([self.metrics_key(n) for n in nodes])
        return {n: json.loads(v) for n, v in zip(nodes, found, strict=True) if v is not None}

    def metrics(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "leases": len(self.leases.held),
            "takeovers": self.takeovers,
            "remote_sockets": len(self.bound),
            "proxies": len(self.proxies),
            "nodes_alive": len(self.alive_nodes),
            "bus_ok": self.bus.ok,
            "bus_failures": getattr(self.bus, "failures", 0),
            "bus_rejected": getattr(self.bus, "rejected", 0),
        }


def _line(e: BaseException) -> str:
    s = str(e)
    return f"{type(e).__name__}: {s.splitlines()[0][:200] if s else ''}"
