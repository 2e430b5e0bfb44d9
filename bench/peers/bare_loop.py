"""The ceiling: a hand-written line loop, orjson in and out, answering tools/call with the echo result
and every other request with an empty result. No validation, no capture, no protocol."""

import sys

import orjson


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        msg = orjson.loads(line)
        if "id" not in msg:
            continue
        if msg["method"] == "tools/call":
            text = msg["params"]["arguments"]["text"]
            result = {"content": [{"type": "text", "text": text}], "isError": False}
        else:
            result = {}
        out.write(orjson.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
