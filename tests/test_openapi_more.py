"""The OpenAPI document says what the rooms, leaderboard and table-making routes accept:
schemathesis (in-process over ASGI, as tests/test_openapi_fuzz.py) sends requests valid by
the schema, which must not be refused as invalid (``positive_data_acceptance``), requests
invalid by it, which must be (``negative_data_rejection``), and checks a declared bearer
token is really required (``missing_required_header``, ``ignored_auth``). Bounded and
derandomized on exactly these operations. What OpenAPI cannot state is left out of the
positive check, each case named below: rules between fields (``by=skill`` needs a
``profile``; a table's fee, stake bounds, players and bots) and JSON Schema's integers,
which include 2.0 where the strict bodies refuse it."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.python.asgi import get_client, shutdown_lifespans
from schemathesis.specs.openapi.checks import (
    ignored_auth,
    missing_required_header,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.server.app import create_app
from fujian_mahjong.server.settings import Settings

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    response_schema_conformance,
    positive_data_acceptance,
    negative_data_rejection,
    missing_required_header,
    ignored_auth,
]
OPERATIONS = [("GET", "/api/rooms"), ("GET", "/api/leaderboard"), ("POST", "/api/tables")]
EXAMPLES = {GenerationMode.POSITIVE: 40, GenerationMode.NEGATIVE: 25}


# Rules between fields, which an OpenAPI parameter list or this JSON Schema does not state
# (each documented in the operation's description and docs/economy.md): a request valid field
# by field may still be refused for one of them, with its own code
ACROSS_FIELDS = {
    # the fee at most max_fee_ratio × the stake, the stake within the operator's bounds,
    # the minimum balance at least what one hand can cost, the players the profile plays
    # with, at most one bot a seat
    "POST /api/tables": {
        "fee_too_high",
        "stake_out_of_bounds",
        "min_balance_too_low",
        "bad_players",
        "bad_bots",
    },
}

INTEGERS = {
    "POST /api/tables": {"players", "bots", "hands", "stake", "base", "fee", "cap", "min_balance"}
}


def _across_fields(case: Any, response: Any) -> bool:
    """Whether this answer refuses a rule between fields (not a field the schema states)."""
    label = case.operation.label
    if label == "GET /api/leaderboard":
        # by=skill ranks one profile's skill ratings: a profile is then required (422)
        query = case.query or {}
        return bool(query.get("by") == "skill" and query.get("profile") is None)
    if response.status_code not in (400, 422):
        return False
    body = case.body if isinstance(case.body, dict) else {}
    if any(isinstance(v, float) and k in INTEGERS.get(label, ()) for k, v in body.items()):
        # JSON Schema's integer is any number with no fraction (2.0 too); the bodies are
        # strict (tests/test_hardening_rest.py): 2.0 is refused where an integer goes
        return True
    try:
        code = response.json().get("code")
    except ValueError:
        return False
    return code in ACROSS_FIELDS.get(label, set())


def _app(tmp_path: Path) -> Any:
    return create_app(
        Settings(
            data_dir=tmp_path,
            # nothing plays during the run: tables made by the fuzzer stay still
            bot_delay_ms=10**8,
            claim_pause_ms=10**8,
            guests_per_address=10**6,
            bot_tables_per_player=0,
        )
    )


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_the_schema_says_what_the_route_accepts(tmp_path: Path, method: str, path: str) -> None:
    app = _app(tmp_path)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    op = schema[path][method]
    names = itertools.count()
    calls = {mode: 0 for mode in EXAMPLES}
    try:
        with get_client(app) as client:
            r = client.post("/api/guests", json={"name": f"more{next(names)}"})
            assert r.status_code == 200, r.text
            token = str(r.json()["token"])
            for mode, n in EXAMPLES.items():

                @given(case=op.as_strategy(generation_mode=mode))
                @settings(
                    max_examples=n,
                    deadline=None,
                    derandomize=True,
                    database=None,
                    suppress_health_check=list(HealthCheck),
                )
                def run(case: Any) -> None:
                    headers = {"Authorization": f"Bearer {token}"}
                    response = case.call(headers=headers)
                    excluded = [positive_data_acceptance] if _across_fields(case, response) else []
                    case.validate_response(
                        response, checks=CHECKS, excluded_checks=excluded, headers=headers
                    )
                    calls[case.meta.generation.mode] += 1

                run()
    finally:
        shutdown_lifespans()
    assert all(calls.values()), calls


def test_profiles_are_an_enum_and_the_table_body_is_closed(tmp_path: Path) -> None:
    """The document lists the profile names and closes the table body; the routes answer
    as before: an unknown profile keeps its code, an unknown key is 422."""
    app = _app(tmp_path)
    doc = app.openapi()
    for path in ("/api/rooms", "/api/leaderboard"):
        (param,) = [p for p in doc["paths"][path]["get"]["parameters"] if p["name"] == "profile"]
        assert param["schema"]["enum"] == list(BUILTIN), param
    body = doc["components"]["schemas"]["TableIn"]
    assert body["additionalProperties"] is False
    assert body["properties"]["profile"]["enum"] == list(BUILTIN)
    try:
        with get_client(app) as client:
            for path in ("/api/rooms", "/api/leaderboard"):
                r = client.get(path, params={"profile": "nope"})
                assert r.status_code == 422 and r.json()["code"] == "bad_profile", r.text
            r = client.post("/api/guests", json={"name": "closed"})
            auth = {"Authorization": f"Bearer {r.json()['token']}"}
            r = client.post("/api/tables", json={"colour": "red"}, headers=auth)
            assert r.status_code == 422 and r.json()["code"] == "bad_request", r.text
            assert "colour" in r.json()["detail"]
            r = client.post("/api/tables", json={"profile": "nope"}, headers=auth)
            assert r.status_code == 400 and r.json()["code"] == "bad_profile", r.text
            r = client.post("/api/tables", json={"profile": "sanming"}, headers=auth)
            assert r.status_code == 200, r.text
    finally:
        shutdown_lifespans()
