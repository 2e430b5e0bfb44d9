"""The parts of the transcript apps that read the same in every SDK: plain functions, registered by
each app with its own SDK's decorators (the tools that take a Context stay in each app)."""

import anyio
from pydantic import BaseModel

events: dict[str, anyio.Event] = {}  # made on the serving loop, at first use
cancelled: list[str] = []


class Weather(BaseModel):
    city: str
    temp_c: float


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def weather(city: str) -> Weather:
    """Structured output."""
    return Weather(city=city, temp_c=21.5)


def explode() -> str:
    """Raises."""
    raise RuntimeError("the tool blew up")


def released() -> anyio.Event:
    return events.setdefault("released", anyio.Event())


async def wait_release() -> str:
    """Runs until `release` is called."""
    await released().wait()
    return "released"


async def release() -> str:
    """Lets `wait_release` finish."""
    released().set()
    return "ok"


def was_cancelled() -> list[str]:
    """Which calls were cancelled so far."""
    return cancelled


async def wait_for_cancel() -> str:
    """The body of `hang`, after it said it started."""
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        cancelled.append("hang")
        raise
    return "never"


def readme() -> str:
    """A static resource."""
    return "read me"


def note(topic: str) -> str:
    """A resource template."""
    return f"notes on {topic}"


def review(code: str) -> str:
    """A prompt."""
    return f"Please review:\n{code}"


TOOLS = (add, weather, explode, wait_release, release, was_cancelled)
