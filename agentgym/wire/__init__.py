"""The wire between `agentgym serve` and its clients: what both sides import, and nothing else.

- `agentgym.wire.codec`: observations, infos, actions and spaces as JSON;
- `agentgym.wire.auth`: tokens (made and read by the server, sent by the client);
- `agentgym.wire.protocol`: the error types both sides name.

The client (`agentgym.remote`) imports this package and never `agentgym.serve`; the server
imports it too. An import contract (``.importlinter``) keeps it that way.
"""
