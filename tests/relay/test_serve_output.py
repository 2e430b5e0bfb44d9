"""`ferrule serve`'s answer writer: the first answer since the host wrote goes at once, later ones are
joined at the end of their loop turn, and none is lost."""

from __future__ import annotations

import asyncio
import io

from ferrule.relay.serve import _Output


class _Writes(io.BytesIO):
    """A plain (not streamable) stdout that records each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []

    def write(self, data) -> int:  # type: ignore[override]
        self.writes.append(bytes(data))
        return len(data)


def _on_a_loop(body):
    async def run():
        stdout = _Writes()
        output = _Output(stdout)  # type: ignore[arg-type]
        await output.open()
        await body(output, stdout.writes)

    asyncio.run(asyncio.wait_for(run(), 10))


def test_in_lockstep_each_answer_goes_at_once_and_schedules_nothing():
    async def body(output, writes):
        for n in range(3):
            output.input_arrived()
            output.write(b"answer %d\n" % n)
            assert writes[-1] == b"answer %d\n" % n and len(writes) == n + 1
            assert not output.turns.turn_end_due, "no loop turn is spent on an empty window"
            await asyncio.sleep(0)

    _on_a_loop(body)


def test_a_burst_is_one_write_after_the_first_and_a_later_answer_is_not_lost():
    async def body(output, writes):
        output.input_arrived()
        for n in range(4):
            output.write(b"%d\n" % n)
        assert writes == [b"0\n"], "the others wait for the turn's end"
        await asyncio.sleep(0)
        assert writes == [b"0\n", b"1\n2\n3\n"]
        output.input_arrived()
        output.write(b"first\n")
        await asyncio.sleep(0)
        output.write(b"later\n")  # another turn, the host silent since: held to this turn's end
        assert writes[-1] == b"first\n"
        await asyncio.sleep(0)
        assert writes[-1] == b"later\n"

    _on_a_loop(body)
