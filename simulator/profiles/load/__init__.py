"""The load profile (docs/load.md): simulated desktops and MCP clients as Locust users, every lifecycle
judged. This package's modules import neither gevent nor Locust, except ``locustfile`` (loaded by Locust only, in
its own processes): ``python -m simulator load`` (``cli``) runs Locust in subprocesses.

* ``ledger``: the lifecycle ledger and its judgement (pure);
* ``frames``: the desktop's frames of one lifecycle (pure, the protocol core's builders);
* ``summary``: the figures and the verdict of a run, from Locust's CSV and the server's view (pure);
* ``echo``: the bare websockets echo server of the baseline; ``mcp_rpc``: raw JSON-RPC to MCP servers;
* ``cli``: the command line; ``report``: the figures as a report's limits section.
"""

from .ledger import DUPLICATION, INVALID, LOSS, Judgement, Ledger, TaskRecord, Verdict, chat_of_external_key

__all__ = ["DUPLICATION", "INVALID", "LOSS", "Judgement", "Ledger", "TaskRecord", "Verdict", "chat_of_external_key"]
