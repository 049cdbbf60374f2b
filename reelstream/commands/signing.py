"""`reelstream signing generate | keys | rotate WRITER | retire KEY_ID`: the writers' Ed25519 signing keys in
$REELSTREAM_SIGNING_DIR (shared/signing.py). Prints key ids only, never a key."""

from __future__ import annotations

import typer

from shared import signing

app = typer.Typer(no_args_is_help=True)


def _folder():
    folder = signing.signing_dir()
    if folder is None:
        raise typer.Exit(
            f"error: {signing.SIGNING_DIR_ENV} is not set (`reelstream infra up` writes it into .reelstream/env)"
        )
    return folder


@app.command()
def generate() -> None:
    """A key for each writer that has none yet (what `reelstream infra up` does; the compose secure-signing job)."""
    made = signing.generate(_folder())
    typer.echo(f"made keys {', '.join(made)}" if made else "every writer has a key")


@app.command()
def keys() -> None:
    """Every accepted public key by writer; `*` marks the key each writer signs with now."""
    folder = _folder()
    ring = signing.load_ring(folder)
    current = {signing.load_signer(folder, w).key_id for w in signing.WRITERS if (folder / f"{w}.key.json").exists()}
    for kid, (writer, _) in sorted(ring.keys.items(), key=lambda item: (item[1][0], item[0])):
        typer.echo(f"{'*' if kid in current else ' '} {writer:<10} {kid}")


@app.command()
def rotate(
    writer: str = typer.Argument(..., metavar="WRITER", help=f"One of: {', '.join(signing.WRITERS)}."),
) -> None:
    """A new key for WRITER (it signs with it after a restart); its old key stays accepted until retired, so every
    record it signed before still verifies."""
    if writer not in signing.WRITERS:
        raise typer.BadParameter(f"unknown writer {writer!r}; writers: {', '.join(signing.WRITERS)}")
    typer.echo(f"{writer} signs with {signing.rotate(_folder(), writer)} from its next start")


@app.command()
def retire(key_id: str = typer.Argument(..., metavar="KEY_ID", help="An old key id (`signing keys`).")) -> None:
    """Stop accepting an old key: records it signed are then quarantined and flagged by the audit (so retire a key
    only once nothing needs its records any more, e.g. never for event topics kept forever)."""
    if not signing.retire(_folder(), key_id):
        raise typer.Exit(f"error: {key_id!r} is unknown or still a writer's signing key")
    typer.echo(f"retired {key_id}")
