"""The drop-in: one app object under its SDK's own stdio run and under `ferrule run`.

For an official SDK 2.x `MCPServer` and a fastmcp app (bench/peers/mcpserver_echo.py and
fastmcp_echo.py, each serving the `echo` tool), measured with bench_mcp.py's drivers and figures:
lockstep tools/call (requests/s, p50), pipelined responses/s, server CPU per call, start-up to the
`initialize` answer and peak RSS. Both runs of an app serve the same object with the same SDK
semantics; what differs is the transport, the loop, the encoding and, for both apps' plain sync
tools, the dispatch (ferrule calls the tool straight from the app's registry, with its own pydantic
models; fastmcp's echo on a worker thread, as fastmcp runs it).
The native `ferrule.mcp.Server` and the hand-written orjson loop run in the same rounds, so the
native server's lockstep against that ceiling is in the same table (target: at least 0.75), in each of
bench_mcp.py's placements (one core, two cores).

Run: `python bench/bench_dropin.py [--quick]`, or `python bench/run.py --only bench_dropin`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_mcp  # noqa: E402
from _report import print_table  # noqa: E402

APPS = {"MCPServer": "mcpserver_echo.py", "fastmcp": "fastmcp_echo.py"}


class RunPeer(bench_mcp.Peer):
    """The app under `ferrule run` (through the peers' shim, which is what the console script does)."""

    def __init__(self, name: str, app: str) -> None:
        super().__init__(name, "ferrule_run.py")
        self.app = app

    def env(self) -> dict[str, str]:
        return {**super().env(), "FERRULE_RUN_APP": self.app}


def peers() -> list[tuple[str, bench_mcp.Peer, bench_mcp.Peer]]:
    return [(kind, bench_mcp.Peer(f"{kind}, its SDK's stdio", app), RunPeer(f"{kind}, ferrule run", app))
            for kind, app in APPS.items()]


NATIVE = bench_mcp.Peer("ferrule.mcp.Server (native)", "ferrule_echo.py")
BARE = bench_mcp.Peer("hand-written orjson loop", "bare_loop.py")


def main(quick: bool = False) -> dict[str, bench_mcp.Figures]:
    pairs = peers()
    results = bench_mcp.run([*(p for _, sdk, ours in pairs for p in (sdk, ours)), NATIVE, BARE], quick)
    rows, checks = [], []
    for kind, sdk_peer, our_peer in pairs:
        sdk, ours = results[sdk_peer.name], results[our_peer.name]
        for peer, f in ((sdk_peer, sdk), (our_peer, ours)):
            rows.append([peer.name, f.lockstep_rate, f"{f.lockstep_rate / sdk.lockstep_rate:.1f}x", f.percentile(0.5),
                         f.lockstep_cpu, f.pipelined_rate, f"{f.pipelined_rate / sdk.pipelined_rate:.1f}x",
                         statistics.median(f.startup) * 1e3, f.rss / 2**20])
        checks.append([f"{kind}: lockstep vs its SDK's stdio", ">= 10x", ours.lockstep_rate / sdk.lockstep_rate, 10.0])
        checks.append([f"{kind}: pipelined vs its SDK's stdio", ">= 30x", ours.pipelined_rate / sdk.pipelined_rate, 30.0])
    bare = results[BARE.name]
    for peer in (NATIVE, BARE):
        f = results[peer.name]
        rows.append([peer.name, f.lockstep_rate, f"{f.lockstep_rate / bare.lockstep_rate:.2f}x of the loop",
                     f.percentile(0.5), f.lockstep_cpu, f.pipelined_rate,
                     f"{f.pipelined_rate / bare.pipelined_rate:.2f}x of the loop", statistics.median(f.startup) * 1e3,
                     f.rss / 2**20])
    for _, placement, ratio in bench_mcp.lockstep_by_placement(results, [NATIVE.name], BARE.name):
        checks.append([f"native server: lockstep vs the bare loop, {placement}", ">= 0.75x", ratio, 0.75])
    print_table(
        "The drop-in: one app under its SDK's stdio and under ferrule run" + (" (quick)" if quick else ""),
        ["server", "lockstep req/s", "vs SDK (vs loop)", "p50 µs", "CPU/call µs (lockstep)", "pipelined resp/s",
         "vs SDK (vs loop)",
         "start-up ms", "peak RSS MB"],
        rows,
        f"Python {sys.version.split()[0]}, {bench_mcp.versions()}. Rates: median of interleaved rounds; lockstep on "
        f"{bench_mcp.placements()[0].name}, pipelined on {bench_mcp.placements()[-1].name} (bench_mcp.py says why); "
        "CPU per call: the child's rusage minus an idle run's.",
    )
    print_table("ferrule run against its targets", ["figure", "target", "measured", ""],
                [[figure, target, f"{value:.2f}x", "met" if value >= bound else "NOT met"]
                 for figure, target, value, bound in checks])
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI)")
    main(parser.parse_args().quick)
