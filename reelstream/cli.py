"""The `reelstream` command: one CLI for everything a person runs; each group lives in reelstream/commands/. `run` alone
turns outcomes into exit codes: 0 done, 1 a failure or a programmer error, 2 a bad argument, 3 not found."""

from __future__ import annotations

import functools
import importlib
import re
import sys
from collections.abc import Iterator, Sequence
from importlib.metadata import PackageNotFoundError, version

import typer
from kafka.errors import KafkaConnectionError, KafkaTimeoutError
from typer._click.core import Command
from typer.core import TyperGroup as Group
from typer._click.exceptions import NoArgsIsHelpError, NoSuchOption, UsageError

app = typer.Typer(
    help="reelstream: event-sourced wallet and jackpot services for two slot games.", no_args_is_help=True
)

# group name -> help; each module reelstream/commands/<module>.py exposes `app: typer.Typer`.
_GROUPS = {
    "infra": "Start, stop and inspect the local Kafka and PostgreSQL.",
    "topics": "Create and describe the platform's Kafka topics.",
    "acl": "Principals, ACLs and quotas of the platform's roles, as code.",
    "contract": "The event contract: AsyncAPI document and JSON Schemas.",
    "session": "Issue session tokens for tests and demos; rotate the session key.",
    "signing": "The writers' transaction-signing keys: list, rotate, retire.",
    "math": "Par sheets, outcome evaluation and simulation of the game maths.",
    "wallet": "Cashier operations, balances and players.",
    "jackpot": "Jackpot pools, wins and live meters.",
    "services": "Run the platform's services.",
    "refwallet": "The reference operator wallet on this machine: make run's seamless demo operator.",
    "demo": "Play a watchable demo against the running platform.",
    "projector": "The Postgres projection: run and rebuild.",
    "ops": "Consumer groups, replays, dead letters, consumer-group resets.",
    "audit": "Reconstruct and verify every cent from the raw topics.",
    "recall": "Game recall: the last games of a player, step by step.",
    "reports": "Operator and regulator reports.",
    "chaos": "Faults during real traffic, then the audit: nothing lost, nothing twice.",
    "fuzz": "Hostile records through the real broker as each topic's least privileged writer; probes, bisection.",
    "bench": "Benchmarks that print ratios against baselines measured in the same run.",
}
EXIT_USAGE = 2
# A broker or database that does not answer is the environment, not a bug: one line, exit 1. Nothing wider is caught.
UNREACHABLE: tuple[type[BaseException], ...] = (KafkaConnectionError, KafkaTimeoutError, ConnectionRefusedError)
_NEGATIVE = re.compile(r"^-\d[\d.,_]*$")


def package_version() -> str:
    try:
        return version("reelstream")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"reelstream {package_version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    show_version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """reelstream: event-sourced wallet and jackpot services for two slot games."""


def _register(only: str | None = None) -> None:
    """Add every command group to `app`, or only the group `only` names (when it is one)."""
    for name, help_text in _GROUPS.items():
        if only in _GROUPS and name != only:
            continue
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


# `python -m reelstream.cli GROUP ...` (each service process, each command a test or a script runs) imports only its
# group's module: importing all of them costs every service start a share of its CPU time. An import gets them all.
_register(sys.argv[1] if __name__ == "__main__" and len(sys.argv) > 1 else None)


def leaf_commands(group: Group | None = None, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Command]]:
    """Every runnable command with its path (e.g. ("wallet", "deposit")), in the order help lists them."""
    group = group or command()
    for name, sub in group.commands.items():
        if isinstance(sub, Group):
            yield from leaf_commands(sub, (*path, name))
        else:
            yield (*path, name), sub


@functools.cache
def command() -> Group:
    """The click command tree, with the CLI-wide convention applied once: flags show no `<bool>` type in help."""
    from reelstream.argument_checks import attach

    root = typer.main.get_command(app)
    for node in _every_node(root):
        _no_bool_metavars(node)
    for path, leaf in leaf_commands(root):
        attach(path, leaf)
    return root


def _every_node(group: Group) -> Iterator[Command]:
    yield group
    for sub in group.commands.values():
        yield from _every_node(sub) if isinstance(sub, Group) else (sub,)


def _no_bool_metavars(node: Command) -> None:
    for param in node.params:
        if getattr(param, "is_flag", False):
            param.metavar = ""
    built_in = node.get_help_option

    def help_option(ctx, _built_in=built_in):
        option = _built_in(ctx)
        if option is not None:
            option.metavar = ""
        return option

    node.get_help_option = help_option


def _one_line(error: UsageError, argv: Sequence[str]) -> str:
    where = error.ctx.command_path if error.ctx is not None else "reelstream"
    message = " ".join(error.format_message().split())
    if isinstance(error, NoSuchOption):
        negative = next(
            (token for token in argv if _NEGATIVE.match(token) and token.startswith(error.option_name)), None
        )
        if negative is not None:
            message = (
                f"{negative} is read as an option: amounts are positive whole numbers of minor units "
                "(1050 for 10.50), and a debit is a withdrawal"
            )
    hint = " (see --help)" if error.ctx is not None else ""
    return f"{where}: error: {message}{hint}"


def _command_words(argv: Sequence[str]) -> list[str]:
    words = []
    for token in argv:
        if token.startswith("-"):
            break
        words.append(token)
    return words[:3]


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on argv and return its exit code; exceptions that are not about the arguments propagate."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        code = command().main(argv, prog_name="reelstream", standalone_mode=False)
    except NoArgsIsHelpError as error:
        if error.format_message().strip():
            typer.echo(error.format_message(), err=True)
        return EXIT_USAGE
    except UsageError as error:
        typer.echo(_one_line(error, argv), err=True)
        return EXIT_USAGE
    except typer.Abort:
        typer.echo("aborted", err=True)
        return 1
    except UNREACHABLE as error:
        from shared.security import explain_last_failure

        reason = explain_last_failure()  # a wrong password or an untrusted certificate, when that was the cause
        named = _named(error)
        if reason is not None:
            typer.echo(f"error: {reason}\n  after {named}", err=True)
            return 1
        typer.echo(f"reelstream {' '.join(_command_words(argv))}: cannot reach a server: {named}", err=True)
        return 1
    if isinstance(code, str):  # typer.Exit("why") from a command: the reason, exit 1
        typer.echo(code, err=True)
        return 1
    return code if isinstance(code, int) else 0


def _named(error: BaseException) -> str:
    """`Type: message`, without the type twice when the message already starts with it."""
    return str(error) if str(error).startswith(type(error).__name__) else f"{type(error).__name__}: {error}"


def main() -> None:
    """Run the CLI; a Kafka connection that fails for a security reason ends with one line saying which."""
    from aiokafka.errors import KafkaError as AioKafkaError
    from kafka.errors import KafkaError

    from shared.security import SecurityConfigError, explain_last_failure

    try:
        code = run()
    except SecurityConfigError as error:
        typer.echo(f"error: {error}", err=True)
        raise SystemExit(1) from None
    except (KafkaError, AioKafkaError) as error:
        reason = explain_last_failure()
        if reason is None:
            raise
        # The probe runs after the failure, when a command's own broker may already be gone: the error it explains
        # is named too (a three-broker run once said only "no broker answers", after stopping its own cluster).
        typer.echo(f"error: {reason}\n  after {_named(error)}", err=True)
        raise SystemExit(1) from error
    sys.exit(code)


if __name__ == "__main__":
    main()
