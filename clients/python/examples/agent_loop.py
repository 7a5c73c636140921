"""An agent loop in the LangGraph style (a graph of nodes over a shared state), in plain Python: each node's
step is tracked as an event of the ticket's outcome, and the run awaits only at the end.

    VERDICT_URL=http://localhost:8080 VERDICT_TOKEN=... python examples/agent_loop.py
"""
from __future__ import annotations

import asyncio
import os
from typing import Awaitable, Callable, Dict, List, Optional, TypedDict

from verdict_client import AsyncVerdictClient, VerdictError


class TicketState(TypedDict):
    ticket: str
    messages: List[str]
    resolved: bool


Node = Callable[[TicketState], Awaitable[Optional[str]]]


async def triage(state: TicketState) -> Optional[str]:
    state["messages"].append(f"triaged {state['ticket']}")
    return "respond"


async def respond(state: TicketState) -> Optional[str]:
    state["messages"].append("answered the customer")
    state["resolved"] = True
    return None  # the end of the graph


GRAPH: Dict[str, Node] = {"triage": triage, "respond": respond}


async def run_ticket(verdict: AsyncVerdictClient, ticket: str) -> None:
    # The same key and task again answers the existing outcome.
    await verdict.outcomes.open({"key": ticket, "task_key": "support"})
    state: TicketState = {"ticket": ticket, "messages": [], "resolved": False}
    tracked = []
    node: Optional[str] = "triage"
    while node is not None:
        following = await GRAPH[node](state)
        # Not awaited here: the client batches the steps of every ticket; order per ticket is kept.
        tracked.append(asyncio.ensure_future(verdict.track({"outcome_key": ticket, "action": node, "properties": {"messages": len(state["messages"])}})))
        node = following
    if state["resolved"]:
        tracked.append(asyncio.ensure_future(verdict.track({"outcome_key": ticket, "action": "resolved"})))
    # Returns once the service has every step; raises VerdictError if it refused one.
    await asyncio.gather(*tracked)


async def main() -> None:
    async with AsyncVerdictClient(os.environ.get("VERDICT_URL", "http://localhost:8080"), os.environ["VERDICT_TOKEN"]) as verdict:
        await verdict.tasks.put("support", {"name": "Support ticket", "condition": "resolved"})
        results = await asyncio.gather(*(run_ticket(verdict, f"ticket:{n}") for n in range(10)), return_exceptions=True)
        for n, result in enumerate(results):
            if isinstance(result, VerdictError):
                print(f"ticket:{n}: {result}")
        async for outcome in verdict.outcomes.list(task_key="support"):
            print(outcome["key"], outcome["status"], outcome["progress"])


if __name__ == "__main__":
    asyncio.run(main())
