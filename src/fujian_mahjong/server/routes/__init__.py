"""The server's HTTP and WebSocket routes, one ``APIRouter`` per concern (FastAPI's
"bigger applications" layout); ``server/app.py`` builds the shared objects and includes them.

- ``deps``: the dependencies every route takes (store, lobby, dispatcher, settings, the
  authenticated player), read from ``app.state``;
- ``errors``: the error contract (``{"detail", "code"}``, ``ApiError``, the handler, the
  OpenAPI ``responses=`` and the id parameters);
- ``health``: ``GET /api/health`` (liveness only) and ``GET /api/metrics`` (the operator's
  counters, behind the operator's token);
- ``guests``: ``POST /api/guests``;
- ``tables``: table creation, listing, lookup and bots;
- ``rooms``: rooms by stake, quick match and 救济金 relief (server/rooms.py);
- ``hands``: a hand's record and its event log;
- ``socket``: the ``/ws`` endpoint (one receive loop and one writer task per socket).

Registered accounts live in ``server/accounts.py`` and the replay/review screens in
``server/web_api.py``, each with its own router.
"""
