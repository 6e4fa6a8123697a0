"""Alembic environment, configured in code (no alembic.ini): the caller passes an open
synchronous connection in ``config.attributes["connection"]`` (see store/db.py)."""

from __future__ import annotations

from alembic import context

from fujian_mahjong.server.store.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
