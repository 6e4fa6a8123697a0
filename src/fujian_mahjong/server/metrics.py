"""The process's figures in the Prometheus text format (``GET /metrics``, behind the
operator's token; docs/deploy.md, "Probes and metrics").

One ``CollectorRegistry`` per app (never the library's global one: a test process makes
many apps, and each server process has exactly one). Most figures are read when the page
is scraped from the objects that already count them — the lobby (tables, decisions), the
store (commits, failed writes), the event-loop monitor (``server/looplag.py``), the
cluster when there is one (leases, takeovers, the Redis bus) — so nothing on a table's
path pays for them. The one figure measured on the path is the latency from a decision
reaching its table's actor to its messages being queued for every socket (the commit of
its events included): :func:`observe_decision`, one histogram observation per decision.

Every series carries the ``pid`` label (the process's id), so the figures of several
processes behind one address stay apart.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

# decision -> notice: the commit dominates (SQLite group commit: a few ms; PostgreSQL:
# one round trip); the upper buckets are stalls (a full disk, a lost connection)
DECISION_BUCKETS_S = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip

# the histogram of each store's app: a table actor knows its store, not its app
_by_store: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def observe_decision(store: Any, seconds: float) -> None:
    """A decision of a table on ``store`` reached every socket ``seconds`` after it
    reached the table's actor (called by the actor; nothing when no app measures)."""
    h = _by_store.get(store)  # this process's series (no getpid per decision)
    if h is not None:
        h.observe(seconds)


class ServerMetrics:
    """One app's registry, and the socket counts the WebSocket endpoint keeps."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.registry = CollectorRegistry(auto_describe=True)
        self.decision_latency = Histogram(
            "fjmj_decision_notice_seconds",
            "From a decision reaching its table to its messages queued for every socket "
            "(the commit of its events included)",
            ["pid"],
            buckets=DECISION_BUCKETS_S,
            registry=self.registry,
        )
        # this process's series, shown from the start at 0
        _by_store[state.store] = self.decision_latency.labels(str(os.getpid()))
        self.sockets = 0  # open WebSockets (server/routes/socket.py)
        self.sockets_opened = 0
        self.sockets_no_hello = 0  # closed for not saying hello in time
        self.registry.register(_Collector(self))

    def render(self) -> bytes:
        """The text exposition format (version 0.0.4)."""
        return bytes(generate_latest(self.registry))


def _num(x: Any) -> float:
    try:
        return float(x or 0)
    except (TypeError, ValueError):
        return 0.0


class _Collector(Collector):
    """Reads the app's objects at each scrape."""

    def __init__(self, m: ServerMetrics) -> None:
        self.m = m

    def collect(self) -> Iterator[Metric]:
        st = self.m.state
        pid = str(os.getpid())
        lobby, store = st.lobby, st.store
        cluster = getattr(st, "cluster", None)

        def gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
            g = GaugeMetricFamily(name, doc, labels=["pid"])
            g.add_metric([pid], value)
            return g

        def counter(name: str, doc: str, value: float) -> CounterMetricFamily:
            c = CounterMetricFamily(name, doc, labels=["pid"])
            c.add_metric([pid], value)
            return c

        yield counter("fjmj_decisions", "Decisions applied at this process's tables", lobby.actions)
        yield counter("fjmj_commits", "Store transactions committed", store.commits)
        yield gauge("fjmj_tables", "Live tables run by this process", len(lobby.tables))
        yield gauge(
            "fjmj_degraded_tables",
            "Tables waiting for the database (fault recovery)",
            lobby.degraded_tables(),
        )
        yield gauge("fjmj_sockets", "Open WebSockets", self.m.sockets)
        yield counter("fjmj_sockets_opened", "WebSockets accepted", self.m.sockets_opened)
        yield counter(
            "fjmj_sockets_no_hello",
            "WebSockets closed for not saying hello in time",
            self.m.sockets_no_hello,
        )
        disp = getattr(st, "dispatcher", None)
        yield gauge(
            "fjmj_players_connected",
            "Players with at least one socket that said hello",
            len(disp.by_player) if disp is not None else 0,
        )
        yield gauge(
            "fjmj_store_failing", "1 while the last write to the database failed", store.failing
        )
        yield counter(
            "fjmj_store_failures",
            "Writes to the database that failed (full disk, lost connection)",
            _num(getattr(store, "failures", 0)),
        )
        draining = bool(getattr(st, "draining", False))
        yield gauge("fjmj_draining", "1 while the process takes no new tables", draining)
        reviews = getattr(st, "reviews", None)
        yield gauge(
            "fjmj_reviews_queued",
            "New reviews waiting or running",
            len(reviews.running) if reviews is not None else 0,
        )
        workers = getattr(getattr(st, "workers", None), "stats", None)  # server/workers.py
        if workers is not None:
            yield counter("fjmj_worker_jobs", "Jobs answered by worker processes", workers.jobs)
            yield counter(
                "fjmj_worker_timeouts",
                "Worker jobs not answered in time (their process killed)",
                workers.timeouts,
            )
            yield counter("fjmj_worker_lost", "Worker processes that died", workers.lost)
            yield counter("fjmj_worker_started", "Worker processes started", workers.started)
        lag = getattr(st, "looplag", None)
        if lag is not None:
            yield from _looplag(lag, pid)
        # several processes (server/cluster/): read duck-typed, so that any shape of the
        # cluster object that has these figures is measured
        if cluster is not None:
            cm: dict[str, Any] = {}
            with contextlib.suppress(Exception):  # a cluster without ``metrics``
                cm = dict(cluster.metrics())
            leases = getattr(getattr(cluster, "leases", None), "held", None)
            yield gauge(
                "fjmj_leases",
                "Table leases this process holds",
                len(leases) if leases is not None else _num(cm.get("leases")),
            )
            yield counter(
                "fjmj_takeovers",
                "Tables this process took from a process that died or stopped",
                _num(getattr(cluster, "takeovers", cm.get("takeovers"))),
            )
            yield gauge(
                "fjmj_remote_sockets",
                "Sockets held by other processes talking to this one's tables",
                _num(cm.get("remote_sockets")),
            )
            yield gauge(
                "fjmj_bus_up", "1 while Redis answers", bool(getattr(cluster, "bus_ok", True))
            )
            yield counter(
                "fjmj_bus_failures",
                "Failed Redis operations (publish, subscribe, read)",
                _num(getattr(cluster, "bus_failures", cm.get("bus_failures"))),
            )
            yield counter(
                "fjmj_bus_rejected",
                "Bus frames refused (not signed with the cluster's secret, changed, replayed)",
                _num(getattr(cluster, "bus_rejected", cm.get("bus_rejected"))),
            )
            info = GaugeMetricFamily(
                "fjmj_node", "This process's cluster node id", labels=["pid", "node"]
            )
            info.add_metric([pid, str(getattr(cluster, "node", ""))], 1)
            yield info


def _looplag(lag: Any, pid: str) -> Iterator[Metric]:
    """The loop-lag monitor's cumulative histogram and the collector's pauses."""
    from fujian_mahjong.server.looplag import BUCKETS_MS

    counts = list(lag.counts)
    buckets: list[tuple[str, float]] = []
    seen = 0
    for edge, c in zip(BUCKETS_MS, counts, strict=False):
        seen += c
        buckets.append((repr(edge / 1000.0), seen))
    buckets.append(("+Inf", sum(counts)))
    h = HistogramMetricFamily(
        "fjmj_loop_lag_seconds",
        "How late the event loop woke a task that asked to sleep (every 20 ms)",
        labels=["pid"],
    )
    h.add_metric([pid], buckets, _num(getattr(lag, "sum_ms", 0.0)) / 1000.0)
    yield h
    n = CounterMetricFamily(
        "fjmj_gc_collections", "Garbage collections by generation", labels=["pid", "generation"]
    )
    t = CounterMetricFamily(
        "fjmj_gc_pause_seconds",
        "Time the garbage collector paused the process, by generation",
        labels=["pid", "generation"],
    )
    for g in range(3):
        n.add_metric([pid, str(g)], lag.gc_count[g])
        t.add_metric([pid, str(g)], lag.gc_total_ms[g] / 1000.0)
    yield n
    yield t
