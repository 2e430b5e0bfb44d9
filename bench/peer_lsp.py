"""Hover and completion latency through multilspy, on the same file and analyzer as bench_relay.py.

Runs inside .venv-peers (multilspy pins old dependencies), started by bench_relay.py; prints one JSON
line with p50/p99 in ms. multilspy would download its own rust-analyzer; its `server_binary` setting
points it at ours instead, so it runs offline on the same analyzer as the other rows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import time
from importlib.metadata import version


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


async def measure(args: argparse.Namespace) -> dict:
    from multilspy import LanguageServer
    from multilspy.multilspy_config import MultilspyConfig
    from multilspy.multilspy_logger import MultilspyLogger

    logging.getLogger("multilspy").setLevel(logging.ERROR)
    config = MultilspyConfig.from_dict({"code_language": "rust", "server_binary": args.analyzer})
    server = LanguageServer.create(config, MultilspyLogger(), args.root)
    async with server.start_server():
        with server.open_file(args.file):
            hover = await server.request_hover(args.file, args.line, args.col)
            assert hover and "Option<&str>" in json.dumps(hover), hover
            for _ in range(20):
                await server.request_hover(args.file, args.line, args.col)
            hovers = []
            for _ in range(args.rounds):
                start = time.perf_counter()
                await server.request_hover(args.file, args.line, args.col)
                hovers.append((time.perf_counter() - start) * 1e3)
            completions = []
            for _ in range(args.complete_rounds):
                start = time.perf_counter()
                items = await server.request_completions(args.file, args.complete_line, args.complete_col,
                                                         allow_incomplete=True)
                completions.append((time.perf_counter() - start) * 1e3)
            assert items, "multilspy returned no completions"
    hover_p50, hover_p99 = percentiles(hovers)
    completion_p50, completion_p99 = percentiles(completions)
    return {
        "name": f"multilspy {version('multilspy')} (hover, completion)",
        "hover_p50": hover_p50, "hover_p99": hover_p99,
        "completion_p50": completion_p50, "completion_p99": completion_p99,
        "note": (f"multilspy {version('multilspy')} runs on our rust-analyzer through its `server_binary` "
                 "setting (its own download needs the internet). Its completion is on the file as on disk "
                 "(no transient content) and re-asks while rust-analyzer marks the list incomplete "
                 "(rust-analyzer always does: up to 30 requests per call)."),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", required=True)
    parser.add_argument("--file", required=True)
    parser.add_argument("--analyzer", required=True)
    parser.add_argument("--line", type=int, required=True, help="0-based")
    parser.add_argument("--col", type=int, required=True)
    parser.add_argument("--complete-line", type=int, required=True)
    parser.add_argument("--complete-col", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--complete-rounds", type=int, default=60)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args))))


if __name__ == "__main__":
    main()
