"""The `reelstream` command: one CLI for everything a person runs. Each group lives in reelstream/commands/."""
from __future__ import annotations

import importlib

import typer

app = typer.Typer(help="reelstream: event-sourced wallet and jackpot services for two slot games.", no_args_is_help=True)

# group name -> help; each module reelstream/commands/<module>.py exposes `app: typer.Typer`.
_GROUPS = {
    "infra": "Start, stop and inspect the local Kafka and PostgreSQL.",
    "topics": "Create and describe the platform's Kafka topics.",
    "acl": "Principals, ACLs and quotas of the platform's roles, as code.",
    "contract": "The event contract: AsyncAPI document and JSON Schemas.",
    "session": "Issue session tokens for tests and demos; rotate the session key.",
    "math": "Par sheets, outcome evaluation and simulation of the game maths.",
    "wallet": "Cashier operations and balances.",
    "jackpot": "Jackpot pools and live meters.",
    "services": "Run the platform's services.",
    "demo": "Play a watchable demo against the running platform.",
    "projector": "The Postgres projection: run and rebuild.",
    "ops": "Replay, re-drive dead letters, reset consumer groups.",
    "audit": "Reconstruct and verify every cent from the raw topics.",
    "recall": "Game recall: the last games of a player, step by step.",
    "reports": "Operator and regulator reports.",
    "chaos": "Faults during real traffic, then the audit: nothing lost, nothing twice.",
    "bench": "Benchmarks that print ratios against baselines measured in the same run.",
}


def _register() -> None:
    for name, help_text in _GROUPS.items():
        module_name = f"reelstream.commands.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name == module_name:
                continue  # a group not built yet is simply not offered
            raise
        attr = getattr(module, "app")
        if isinstance(attr, typer.Typer):
            app.add_typer(attr, name=name, help=help_text)
        else:
            app.command(name, help=help_text)(attr)


_register()


def main() -> None:
    """Run the CLI; a Kafka connection that fails for a security reason ends with one line saying which."""
    from aiokafka.errors import KafkaError as AioKafkaError
    from kafka.errors import KafkaError

    from shared.security import SecurityConfigError, explain_last_failure

    try:
        app()
    except SecurityConfigError as error:
        typer.echo(f"error: {error}", err=True)
        raise SystemExit(1) from None
    except (KafkaError, AioKafkaError) as error:
        reason = explain_last_failure()
        if reason is None:
            raise
        typer.echo(f"error: {reason}", err=True)
        raise SystemExit(1) from error


if __name__ == "__main__":
    main()
