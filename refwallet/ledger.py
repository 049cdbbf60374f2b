"""The reference wallet's PostgreSQL ledger (asyncpg): each money call in one transaction that reads the request's first
answer, or decides with rules.py, applies the change, records the transaction and stores the answer."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path
from typing import Any

import asyncpg

from refwallet.rules import Decision, Entry, Player, decide
from seamless.port import AnyCall, Answered, BalanceCall, BetCall, MoneyCall, Status

SCHEMA = (Path(__file__).parent / "schema.sql").read_text()
# One writer at a time: positions in the feed then commit in order (a reader never skips a late commit), and two
# deliveries of one request meet the first one's stored answer. A reference wallet needs no more throughput.
_WRITER_LOCK = 0x5EA3_1E55
FEED_PAGE_MAX = 1000
_ENTRY = "transaction_id, kind, player_id, amount_minor, round_id, status, bet_transaction_id, rolled_back, won"


def fingerprint(call: AnyCall) -> bytes:
    return hashlib.sha256(call.model_dump_json().encode()).digest()


def _player(row: asyncpg.Record | None) -> Player | None:
    return None if row is None else Player(**dict(row))


def _entry(row: asyncpg.Record | None) -> Entry | None:
    return None if row is None else Entry(**(dict(row) | {"status": Status(row["status"])}))


class Ledger:
    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    @classmethod
    async def open(cls, database_url: str, pool_size_max: int = 8) -> Ledger:
        pool = await asyncpg.create_pool(database_url, min_size=1, max_size=pool_size_max, command_timeout=30)
        async with pool.acquire() as conn:
            await conn.execute(SCHEMA)
        return cls(pool)

    async def close(self) -> None:
        await self.pool.close()

    async def put_player(self, player: Player, *, replace: bool = True) -> None:
        """Create a player, or (replace) set its balance, state, limit and token: a test's or a demo's set-up."""
        conflict = (
            "DO UPDATE SET currency = EXCLUDED.currency, balance_minor = EXCLUDED.balance_minor, "
            "disabled = EXCLUDED.disabled, bet_limit_minor = EXCLUDED.bet_limit_minor, "
            "session_token = EXCLUDED.session_token"
            if replace
            else "DO NOTHING"
        )
        await self.pool.execute(
            "INSERT INTO refwallet.players (player_id, currency, balance_minor, disabled, bet_limit_minor, "
            f"session_token) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (player_id) {conflict}",
            player.player_id,
            player.currency,
            player.balance_minor,
            player.disabled,
            player.bet_limit_minor,
            player.session_token,
        )

    async def balance(self, call: BalanceCall) -> Answered:
        row = await self.pool.fetchrow("SELECT * FROM refwallet.players WHERE player_id = $1", call.player_id)
        player = _player(row)
        if player is None:
            return Answered(request_id=call.request_id, status=Status.SESSION_GONE)
        return Answered(
            request_id=call.request_id, status=Status.OK, balance_minor=player.balance_minor, currency=player.currency
        )

    async def apply(self, call: MoneyCall) -> Answered:
        """The answer to `call`: the first one given to its request id, or a new one, applied exactly once."""
        printed = fingerprint(call)
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", _WRITER_LOCK)
            stored = await conn.fetchrow(
                "SELECT fingerprint, answer FROM refwallet.answers WHERE request_id = $1", call.request_id
            )
            if stored is not None:
                if bytes(stored["fingerprint"]) != printed:
                    return Answered(request_id=call.request_id, status=Status.DUPLICATE_CONFLICT)
                return Answered.model_validate_json(stored["answer"])
            answer = await self._decide_and_apply(conn, call)
            await conn.execute(
                "INSERT INTO refwallet.answers (request_id, fingerprint, answer) VALUES ($1, $2, $3)",
                call.request_id,
                printed,
                answer.model_dump_json(),
            )
            return answer

    async def _decide_and_apply(self, conn: asyncpg.Connection, call: MoneyCall) -> Answered:
        player = _player(
            await conn.fetchrow("SELECT * FROM refwallet.players WHERE player_id = $1 FOR UPDATE", call.player_id)
        )
        select = f"SELECT {_ENTRY} FROM refwallet.transactions WHERE "
        same_id = _entry(await conn.fetchrow(select + "transaction_id = $1", call.transaction_id))
        bet, rolled_back_before = None, False
        if isinstance(call, BetCall):
            rolled_back_before = bool(
                await conn.fetchval(
                    select.replace(_ENTRY, "1") + "kind = 'rollback' AND bet_transaction_id = $1", call.transaction_id
                )
            )
        else:
            bet = _entry(await conn.fetchrow(select + "transaction_id = $1", call.bet_transaction_id))
        decision = decide(call, player, same_id, bet, rolled_back_before)
        if player is None:
            return Answered(request_id=call.request_id, status=decision.status)
        balance_minor = player.balance_minor + decision.delta_minor
        await self._write(conn, player, decision, balance_minor)
        return Answered(
            request_id=call.request_id, status=decision.status, balance_minor=balance_minor, currency=player.currency
        )

    async def _write(self, conn: asyncpg.Connection, player: Player, decision: Decision, balance_minor: int) -> None:
        assert balance_minor >= 0, "a decision overdrew the player"
        if decision.delta_minor:
            await conn.execute(
                "UPDATE refwallet.players SET balance_minor = $2 WHERE player_id = $1", player.player_id, balance_minor
            )
        if decision.rolls_back is not None:
            await conn.execute(
                "UPDATE refwallet.transactions SET rolled_back = true WHERE transaction_id = $1", decision.rolls_back
            )
        if decision.wins is not None:
            await conn.execute("UPDATE refwallet.transactions SET won = true WHERE transaction_id = $1", decision.wins)
        record = decision.record
        if record is not None:
            await conn.execute(
                "INSERT INTO refwallet.transactions (transaction_id, kind, player_id, currency, amount_minor, "
                "bet_transaction_id, round_id, status, balance_after_minor) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                record.transaction_id,
                record.kind,
                record.player_id,
                player.currency,
                record.amount_minor,
                record.bet_transaction_id,
                record.round_id,
                record.status.value,
                balance_minor,
            )

    async def feed(self, since: int, limit: int) -> dict[str, Any]:
        """The transactions after position `since`, oldest first, and the position to ask from next."""
        rows = await self.pool.fetch(
            "SELECT position, transaction_id, kind, player_id, currency, amount_minor, bet_transaction_id, round_id, "
            "status, rolled_back, balance_after_minor FROM refwallet.transactions WHERE position > $1 "
            "ORDER BY position LIMIT $2",
            since,
            min(limit, FEED_PAGE_MAX),
        )
        items = [{k: (str(v) if isinstance(v, uuid.UUID) else v) for k, v in dict(row).items()} for row in rows]
        return {"transactions": items, "next_since": items[-1]["position"] if items else since}
