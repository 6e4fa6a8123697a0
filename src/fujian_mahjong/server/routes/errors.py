"""The REST error contract (docs/protocol.md): every 4xx/5xx answer is one JSON object
``{"detail": "one line", "code": "machine_code"}``, and the OpenAPI document declares it.

- ``ApiError``: an ``HTTPException`` that carries its ``code`` (``rate_limited``,
  ``no_table`` …); a plain ``HTTPException`` (FastAPI's or Starlette's own 404/405) gets a
  code derived from its status (:data:`STATUS_CODES`);
- :func:`http_error`: the exception handler that writes that body (``Allow`` on a 405 under
  ``/api/`` lists the API's own methods for the path, never the static files');
- :func:`errors`: the ``responses=`` of a route, one entry per status it may answer;
- ``DbId``: an integer path parameter that can be a database id (1 … 2³¹−1: a PostgreSQL
  ``integer``), so a larger number is a 422 and never reaches the database;
- :func:`id_of`: a table reference that is an id (ASCII digits only: ``"²".isdigit()`` is
  true, but ``int("²")`` raises);
- :data:`OPTIONAL_AUTH`: the ``openapi_extra`` of a route whose bearer token is optional
  (it answers anyone, and a token only shows its player more)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import HTTPException, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

MAX_ID = 2**31 - 1  # ids are INTEGER columns (PostgreSQL: 32-bit)

# the code of an error raised without one, by its status
STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    422: "bad_request",
    429: "rate_limited",
    503: "unavailable",
}

_DESCRIPTIONS = {
    400: "Bad request (an unknown profile, a body that cannot be read, …)",
    401: "Missing, unknown, expired or revoked bearer token",
    403: "Not allowed for this player",
    404: "Not found (or not visible to this caller)",
    409: "Conflict with the current state",
    422: "The request does not validate",
    429: "Too many requests; see Retry-After",
    503: "The database cannot write right now; see Retry-After",
}


class ErrorOut(BaseModel):
    """Every error answer: one line for people, a stable code for programs."""

    detail: str
    code: str


class ApiError(HTTPException):
    """An HTTP error with its machine-readable ``code``."""

    def __init__(
        self,
        status_code: int,
        detail: str,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(status_code, detail, headers)
        self.code = code or STATUS_CODES.get(status_code, "error")


def too_many(what: str, wait: float) -> ApiError:
    """429 ``rate_limited``: a limiter refused (``wait``: its seconds until the next try)."""
    secs = max(1, int(wait + 0.999))
    return ApiError(
        429, f"too many {what}; try again in {secs} s", "rate_limited", {"Retry-After": str(secs)}
    )


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route: each status answers :class:`ErrorOut`."""
    return {s: {"model": ErrorOut, "description": _DESCRIPTIONS.get(s, "Error")} for s in statuses}


# OpenAPI: a route that declares the bearer scheme (``BearerDoc``) but answers without a
# token too. FastAPI appends this empty requirement to the route's ``security`` list, and
# an empty requirement means "no authentication" is one of the accepted ways (OpenAPI
# 3.1, Security Requirement Object), so no client (or fuzzer) takes the token as required
OPTIONAL_AUTH: dict[str, Any] = {"security": [{}]}

DbId = Annotated[int, Path(ge=1, le=MAX_ID, description="a database id (1 to 2^31-1)")]


def id_of(ref: str) -> int | None:
    """The id a table reference stands for: ASCII digits within the id range, else None."""
    r = ref.strip()
    if not (r.isascii() and r.isdigit()) or len(r) > 10:
        return None
    n = int(r)
    return n if 1 <= n <= MAX_ID else None


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _allowed(request: Request) -> str:
    """The methods the API's routes take at this path (for ``Allow`` on a 405)."""
    allowed = []
    for method in _METHODS:
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    return ", ".join(allowed)


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """Any ``HTTPException`` as ``{"detail", "code"}`` (its headers kept)."""
    assert isinstance(exc, StarletteHTTPException)
    status = exc.status_code
    code = getattr(exc, "code", None) or STATUS_CODES.get(status, "error")
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if status == 400 and detail == "There was an error parsing the body":
        # FastAPI's own words for a body its JSON parser gave up on (nested too deep, a
        # number too long): the same line as any body that is not JSON (server/app.py)
        detail = "body: not valid JSON"
    headers = dict(exc.headers or {})
    if status == 405:
        allow = _allowed(request) if request.url.path.startswith("/api/") else ""
        headers["Allow"] = allow or headers.get("Allow") or "GET, HEAD"
    return JSONResponse({"detail": detail, "code": code}, status_code=status, headers=headers)
