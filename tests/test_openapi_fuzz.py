"""The OpenAPI document is true: schemathesis generates
requests for every operation from the app's own ``/openapi.json`` and checks each answer —
no server error, every status declared, every body matching its declared schema (errors
included: ``{"detail", "code"}``). Positive data (valid by the schema) and negative data
(invalid by it: strict bodies, out-of-range ids), bounded and derandomized, so the run is
deterministic and short. In-process: the real app over ASGI (its lifespan runs in
schemathesis's ASGI client), SQLite in a temporary directory, authenticated as a guest."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.python.asgi import get_client, shutdown_lifespans
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from fujian_mahjong.server.app import create_app
from fujian_mahjong.server.settings import Settings

CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
EXAMPLES = {GenerationMode.POSITIVE: 30, GenerationMode.NEGATIVE: 15}


def test_every_operation_answers_as_its_openapi_says(tmp_path: Path) -> None:
    app = create_app(
        Settings(
            data_dir=tmp_path,
            # nothing plays during the run: tables made by the fuzzer stay still
            bot_delay_ms=10**8,
            claim_pause_ms=10**8,
            guests_per_address=10**6,
            registrations_per_address=10**6,
            # after a few failed logins the address waits (429, no password hashing): the
            # run stays short and both answers are exercised
            login_fails_per_address=5,
            operator_token="operator-token-for-the-fuzzer",
        )
    )
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    names = itertools.count()
    try:
        with get_client(app) as client:

            def guest_token() -> str:
                r = client.post("/api/guests", json={"name": f"fuzz{next(names)}"})
                assert r.status_code == 200, r.text
                return str(r.json()["token"])

            token = guest_token()
            calls: dict[str, int] = {}
            for result in schema.get_all_operations():
                op = result.ok()
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
                        # logging out revokes the token: that operation gets a fresh one
                        label = case.operation.label
                        tok = guest_token() if label == "POST /api/logout" else token
                        case.call_and_validate(
                            headers={"Authorization": f"Bearer {tok}"}, checks=CHECKS
                        )
                        calls[label] = calls.get(label, 0) + 1

                    try:
                        run()
                    except Unsatisfiable:
                        # nothing to make invalid (no parameter, no body)
                        assert mode is GenerationMode.NEGATIVE, op.label
    finally:
        shutdown_lifespans()
    # every operation was exercised (a schema the generator could not use would not be)
    labels = {r.ok().label for r in schema.get_all_operations()}
    assert labels == set(calls), labels ^ set(calls)
    assert "GET /api/metrics" in labels and "POST /api/tables" in labels
