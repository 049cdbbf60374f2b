"""`reelstream acl apply|show|table`: the roles' ACLs and quotas (shared/roles.py) made real on the broker."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from shared.acls import AclError, apply_acls, apply_quotas, authorizer_enabled, cut_off
from shared.config import load_settings
from shared.kafka import admin_client
from shared.roles import ROLES, acl_rules, acl_table, role

app = typer.Typer(no_args_is_help=True)
_console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)


@app.command()
def apply(
    prefix: str = typer.Option("", help="A deployment prefix (REELSTREAM_TOPIC_PREFIX): the rules under it only."),
    prune: bool = typer.Option(
        False, help="Delete the rules a role holds beyond the code (drift) instead of only reporting them."
    ),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
) -> None:
    """Create every role's missing ACLs (and, without a prefix, set the quotas); report drift (exit 2)."""
    admin = admin_client(bootstrap or load_settings().kafka_bootstrap_servers, role="admin")
    try:
        if not authorizer_enabled(admin):
            _console.print("acl apply: the broker has no authorizer (plaintext): nothing to apply", markup=False)
            raise typer.Exit(1)
        reports = apply_acls(admin, prefix, prune=prune)
        quotas = apply_quotas(admin) if not prefix else {}
    except AclError as error:
        _console.print(f"acl apply failed: {error}", markup=False)
        raise typer.Exit(1) from error
    finally:
        admin.close()
    for report in reports:
        line = f"{report.principal:18s} {len(report.created):3d} created, {report.present:3d} as declared"
        if report.removed:
            line += f", {len(report.removed)} removed"
        _console.print(line, markup=False)
        for rule in report.extra:
            _console.print(
                f"  drift: {rule.operation} {rule.resource} {rule.pattern} {rule.name!r} is not in the code",
                markup=False,
            )
    if quotas:
        _console.print(f"quotas set for {sum(bool(q) for q in quotas.values())} roles", markup=False)
    if any(report.extra for report in reports):
        _console.print("drift is reported, removed only with --prune: see docs/security.md", markup=False)
        raise typer.Exit(2)


@app.command("cut-off")
def cut_off_role(
    name: str = typer.Argument(..., help="The role whose principal wrote hostile records (e.g. game-client.demo-b)."),
    restore: bool = typer.Option(False, help="Take the DENY rules away again: the role writes as declared."),
    prefix: str = typer.Option("", help="A deployment prefix (REELSTREAM_TOPIC_PREFIX)."),
    bootstrap: str = typer.Option(None, help="Default: $KAFKA_BOOTSTRAP_SERVERS."),
) -> None:
    """Deny a role every write at once, without restarting anything (DENY wins over ALLOW); --restore undoes it."""
    member = _role(name)
    admin = admin_client(bootstrap or load_settings().kafka_bootstrap_servers, role="admin")
    try:
        changed = cut_off(admin, member, prefix, restore=restore)
    except AclError as error:
        _console.print(f"acl cut-off failed: {error}", markup=False)
        raise typer.Exit(1) from error
    finally:
        admin.close()
    verb = "writes again (DENY removed)" if restore else "may write nothing (DENY added)"
    for rule in changed:
        _console.print(f"{rule.principal} {rule.permission} {rule.operation} {rule.resource} {rule.name}", markup=False)
    _console.print(f"{member.principal} {verb} on {len(changed)} topics", markup=False)


@app.command()
def show(
    name: str = typer.Argument(..., help="A role name."), prefix: str = typer.Option("", help="Deployment prefix.")
) -> None:
    """Print the rules a role is declared to hold (no broker needed)."""
    for rule in acl_rules(_role(name), prefix):
        _console.print(f"{rule.principal} {rule.operation} {rule.resource} {rule.pattern} {rule.name}", markup=False)


def _role(name: str):
    """The declared role of that name, or the command ends with the list of the roles there are."""
    try:
        return role(name)
    except KeyError as error:
        _console.print(str(error.args[0]), markup=False)
        raise typer.Exit(1) from error


@app.command()
def table() -> None:
    """Print the roles' table (the one in docs/security.md)."""
    typer.echo(acl_table(), nl=False)
    typer.echo(f"{len(ROLES)} roles")
