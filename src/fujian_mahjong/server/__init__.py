"""The online table server (`fjmj serve`): FastAPI + WebSockets above the pure engine.

``fujian_mahjong.server.app.create_app(settings)`` builds the ASGI app; see docs/protocol.md
for the WebSocket protocol and docs/architecture.md for the server's shape (one actor per
table, persistence, crash recovery).
"""

from fujian_mahjong.server.settings import Settings

__all__ = ["Settings"]
