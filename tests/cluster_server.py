"""Test-only: ``fjmj serve`` with a cluster process that trusts its leases blindly (no tests
here).

``python -m tests.cluster_server serve [fjmj serve options]`` runs exactly ``fjmj serve``,
except that this process never notices on its own that it lost a lease: its local lease
check never expires and its renewals never report a lease as lost. What is left to stop
it from writing a table that another process has taken is the database's fencing (every
write checks the lease's epoch, server/cluster/lease.py) — which is what the split-brain
test checks with it. ``fjmj serve`` has no such option."""

from __future__ import annotations

import sys

from fujian_mahjong.cli.main import main
from fujian_mahjong.server.cluster import lease

_renew = lease.Leases.renew


async def _renew_blindly(self: lease.Leases) -> set[int]:
    await _renew(self)  # the leases it still has are renewed as usual
    return set()  # but none is ever reported lost


def patch() -> None:
    lease.LOCAL_SHARE = 1e9  # the local check never runs out
    lease.Leases.renew = _renew_blindly  # type: ignore[method-assign]


if __name__ == "__main__":
    patch()
    sys.exit(main(sys.argv[1:]))
