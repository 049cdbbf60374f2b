"""The audit report's plots: each network's pool levels on its own axes (log scale: pools of 50 and 25,000 are
both readable) and the observed RTP with its band against par."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from services.audit.core.audit import AuditResult
from shared.money import MICRO_PER_MINOR, MINOR_DIGITS


def write_plots(result: AuditResult, body: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = {}
    by_network = defaultdict(list)
    for pool in result.pools.pools.values():
        by_network[pool.network_id].append(pool)
    if by_network:
        figure, axes = plt.subplots(len(by_network), 1, figsize=(9, 3.6 * len(by_network)), squeeze=False)
        for axis, (network_id, pools) in zip(axes[:, 0], sorted(by_network.items())):
            currency = pools[0].currency
            scale = MICRO_PER_MINOR * 10 ** MINOR_DIGITS[currency]
            for pool in sorted(pools, key=lambda p: p.pool_id):
                times = [datetime.fromtimestamp(ms / 1000, timezone.utc) for ms, _ in pool.history]
                axis.step(times, [level / scale for _, level in pool.history], where="post", label=pool.pool_id)
            axis.set_yscale("log")
            axis.set_ylabel(f"level ({currency}, log scale)")
            axis.set_title(f"{network_id}: pool levels (closing of every movement, UTC)")
            axis.legend(fontsize="small", loc="upper left")
        figure.autofmt_xdate()
        figure.tight_layout()
        paths["plot_pools"] = out_dir / "pool-levels.png"
        figure.savefig(paths["plot_pools"], dpi=100, bbox_inches="tight")
        plt.close(figure)
    rows = [row for row in body["rtp"] if row["spins"] >= 2]
    if rows:
        figure, axis = plt.subplots(figsize=(7, 4))
        for index, row in enumerate(rows):
            drawn = axis.errorbar(
                [index],
                [row["rtp"] * 100],
                yerr=[[(row["rtp"] - row["band_low"]) * 100], [(row["band_high"] - row["rtp"]) * 100]],
                fmt="o",
                capsize=6,
                label=f"{row['game']} observed ({row['spins']:,} spins)",
            )
            if row["par_rtp"] is not None:
                axis.hlines(
                    row["par_rtp"] * 100,
                    index - 0.3,
                    index + 0.3,
                    colors=drawn[0].get_color(),
                    linestyles="dashed",
                    label=f"{row['game']} par",
                )
        axis.set_xticks(range(len(rows)), [row["game"] for row in rows])
        axis.set_ylabel("RTP % (house win + contribution)")
        axis.set_title("Observed RTP with 95 % band vs par sheet")
        axis.legend(fontsize="small")
        paths["plot_rtp"] = out_dir / "rtp.png"
        figure.savefig(paths["plot_rtp"], dpi=100, bbox_inches="tight")
        plt.close(figure)
    return paths
