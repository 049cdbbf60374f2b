"""`reelstream math parsheet|evaluate|simulate GAME`: dispatch to the game's module in mathtools/."""

from __future__ import annotations

import contextlib
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(no_args_is_help=True)

_GAME_MODULES = {"rising-joker": "mathtools.rising_joker", "stjernestoev": "mathtools.stjernestoev"}


def _game_module(game: str):
    if game not in _GAME_MODULES:
        raise typer.BadParameter(f"unknown game {game!r}; known: {', '.join(_GAME_MODULES)}")
    return importlib.import_module(_GAME_MODULES[game])


def _summarised(run, as_json: bool) -> None:
    """Run a par sheet or simulation; with --json its narration goes to stderr and stdout holds only the summary
    (the main RTP as a fraction with its confidence interval); without, the narration ends with the RTP as a
    percentage."""
    if not as_json:
        run()
        return
    with contextlib.redirect_stdout(sys.stderr):
        summary = run()
    typer.echo(json.dumps(summary, sort_keys=True))


# The help text is the command's user-facing sentence (the README's CLI table quotes it), not a docstring.
@app.command(
    help="Write the game's par sheet (Markdown + JSON + PNG + witnesses) and print the main RTP with its 99 % CI."
)
def parsheet(
    game: str,
    out_dir: Path = typer.Option(
        None,
        help="Where to write (default bench-results/parsheet/<game>/; the committed "
        "par sheet is rewritten only when asked: --out-dir docs/math/<game>).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON (fractions) on stdout."),
    model_version: Optional[str] = typer.Option(None, help="A released model other than the current (Stjernestøv)."),
) -> None:
    module = _game_module(game)
    target = out_dir or Path("bench-results") / "parsheet" / game
    extra = {"model_version": model_version} if model_version else {}
    _summarised(lambda: module.parsheet(target, **extra), as_json)


@app.command()
def evaluate(
    game: str,
    stake_minor: int = typer.Option(..., help="Total stake in minor units."),
    stops: Optional[str] = typer.Option(None, help="Reel stops a,b,c,d,e (Rising Joker)."),
    seed: Optional[str] = typer.Option(None, help="64 hex digits: replay a spin from its recorded seed."),
    state: Optional[str] = typer.Option(None, help="Player state before the spin as JSON (from spin.settled)."),
    model_version: Optional[str] = typer.Option(None, help="Released model version (default: current)."),
) -> None:
    """Print one outcome as JSON (auditors re-check recorded spins with it)."""
    result = _game_module(game).evaluate(
        stake_minor=stake_minor,
        stops=stops,
        seed=seed,
        state=json.loads(state) if state else None,
        model_version=model_version,
    )
    typer.echo(json.dumps(result, indent=2, sort_keys=True))


@app.command(help="Monte Carlo simulation; prints the main RTP as a percentage with its 99 % CI.")
def simulate(
    game: str,
    spins: int = typer.Option(1_000_000, help="Number of spins."),
    procs: int = typer.Option(1, help="Worker processes."),
    seed: int = typer.Option(1, help="Base seed of the simulation batches."),
    stake_minor: Optional[int] = typer.Option(None, help="Stake in minor units (default: the game's smallest)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON (fractions) on stdout."),
) -> None:
    module = _game_module(game)
    _summarised(lambda: module.simulate(spins=spins, procs=procs, seed=seed, stake_minor=stake_minor), as_json)


@app.command("rng-dump")
def rng_dump(
    out_dir: Path = typer.Option(
        Path("bench-results/rng-dump"), help="Where to write raw.bin, scaled-*.txt, manifest.json."
    ),
    seeds: int = typer.Option(16, help="Number of seeded streams in raw.bin."),
    words_per_seed: int = typer.Option(1 << 16, help="64-bit words per stream."),
    label: str = typer.Option("rng-dump", help="Seeds are sha256(label:i), so the dump can be regenerated."),
) -> None:
    """Raw and scaled RNG output for external test suites (NIST STS, TestU01, dieharder, PractRand)."""
    from mathtools.rng import dump

    manifest = dump(out_dir, label=label, seeds=seeds, words_per_seed=words_per_seed)
    typer.echo(
        f"wrote {manifest['raw_bytes']:,} bytes of raw words and {len(manifest['scaled'])} scaled files to {out_dir}"
    )
    for n, row in manifest["scaled"].items():
        typer.echo(f"  below({n}): chi-square {row['statistic']:.1f} on {row['dof']} dof, p = {row['p_value']:.3f}")


@app.command("manifest")
def outcome_manifest(
    check: bool = typer.Option(False, "--check", help="Compare the committed manifest with the files; exit 1 on any."),
    history: Optional[str] = typer.Option(
        None,
        "--history",
        metavar="COMMIT",
        help="Also rewrite games/released-engines.json from the git history up to COMMIT (the last to pin spins by "
        "their engine code hash).",
    ),
) -> None:
    """The outcome manifest of each model version: the files that decide an outcome or a payment, hashed."""
    from games import manifest

    if check:  # what a lab's tool runs on an installed image, which ships no mathtools/
        committed, computed = json.loads(manifest.MANIFEST_FILE.read_text()), manifest.computed()
        drifted = [
            f"{version}: {path} {want} committed, {got} here"
            for version, now in computed.items()
            for path, got in now["files"].items()
            if (want := committed.get(version, {}).get("files", {}).get(path)) != got
        ]
        gone = set(committed) - set(computed)
        drifted += [f"{version}: committed, no such model here" for version in sorted(gone)]
        for line in drifted:
            typer.echo(line, err=True)
        if drifted:
            raise typer.Exit(1)
        typer.echo(f"outcome manifest holds: {', '.join(sorted(committed))}")
        return
    from mathtools.manifest import released_rows, write_manifest, write_released

    for version, written in write_manifest().items():
        typer.echo(f"{version}: {len(written['files'])} files, manifest {written['sha256']}")
    if history:
        until = subprocess.run(
            ["git", "-C", str(manifest.ROOT), "rev-parse", "--verify", f"{history}^{{commit}}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        rows = released_rows(manifest.ROOT, until, echo=typer.echo)
        write_released(rows, until)
        typer.echo(f"{len(rows)} (model version, engine code hash) rows written to {manifest.RELEASED_FILE}")
