"""Typed errors. Each says what failed and what to run to fix it.

Infrastructure errors (the engine, the sandbox) derive from `InfrastructureError` so that the
evaluation harness and trainers can retry or mask them instead of scoring them as agent
failures. Agent mistakes never raise: they come back as observation text and events.
"""

from __future__ import annotations

__all__ = [
    "AgentGymError",
    "InfrastructureError",
    "EngineUnreachable",
    "ImageMissing",
    "SandboxStartFailed",
    "SandboxCrashed",
    "SandboxTimeout",
    "ResetFailed",
    "ProtocolError",
    "SandboxClosed",
    "SandboxOpError",
    "ConfigError",
    "UnknownEnvId",
    "ServerUnreachable",
    "RemoteInfrastructureError",
    "RemoteCallTimeout",
    "RemoteAuthError",
    "RemoteError",
]


class AgentGymError(Exception):
    """Base of every error agentgym raises on purpose."""


class ConfigError(AgentGymError, ValueError):
    """A bad argument or option from the user; the message echoes the bad value."""


class UnknownEnvId(ConfigError):
    """No env is registered under this id; the message names the closest ids and `agentgym list`."""


class InfrastructureError(AgentGymError):
    """The sandbox or its engine failed; not the agent's fault. Retry or mask, never score."""


class EngineUnreachable(InfrastructureError):
    """No Docker engine answers."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(
            "no Docker engine answers"
            + (f" ({detail})" if detail else "")
            + ". Run `agentgym setup` to install and start one, or pass backend='local'."
        )


class ImageMissing(InfrastructureError):
    """The sandbox image has not been built on this machine."""

    def __init__(self, image: str) -> None:
        self.image = image
        super().__init__(f"sandbox image {image!r} is missing. Run `agentgym setup` to build it.")


class SandboxStartFailed(InfrastructureError):
    """The container or the step server inside it did not come up."""


class SandboxCrashed(InfrastructureError):
    """The step server died or its channel broke mid-episode."""


class SandboxTimeout(InfrastructureError):
    """The step server did not answer within its deadline (the command's own timeout is not this)."""


class ResetFailed(InfrastructureError):
    """An episode's reset failed on a fresh env at every attempt (`agentgym.integrations.episode.Episode`);
    the last attempt's error is the cause (``__cause__``) and every attempt's is listed."""

    def __init__(self, env_id: str, failures: list[str]) -> None:
        self.env_id, self.failures = env_id, list(failures)
        super().__init__(
            f"{env_id}: reset failed on a fresh env {len(failures)} time(s): {'; '.join(failures)}. "
            "Check the engine and images with `agentgym setup`, or the server with `agentgym serve`."
        )


class ProtocolError(SandboxCrashed):
    """The step server's channel carried a frame that breaks the protocol: a reply to another request,
    a frame over the size cap, a bad magic. The channel is unusable afterwards; the env replaces the
    sandbox at the next reset."""


class SandboxClosed(AgentGymError):
    """A call on a sandbox after `close()`."""


class SandboxOpError(AgentGymError):
    """The step server refused an operation (bad path, unknown module); the message says why."""


# ---------------------------------------------------------------- a served env (`agentgym.remote`)
class ServerUnreachable(InfrastructureError):
    """The agentgym server could not be reached, closed the connection, or did not answer in time.
    Check that `agentgym serve` is running at that URL."""


class RemoteInfrastructureError(InfrastructureError):
    """The server's env raised an infrastructure error (its sandbox crashed or timed out)."""


class RemoteCallTimeout(RemoteInfrastructureError):
    """The server's env call (a reset or step) ran past the server's deadline (``agentgym serve
    --call-timeout``); the server closed that session and its sandbox. The next reset opens a new one."""


class RemoteAuthError(ConfigError):
    """The server refused the token: set AGENTGYM_SERVE_TOKEN (or token=) to the server's token."""


class RemoteError(AgentGymError):
    """The server refused a request (``code`` is OpenEnv's error code, ``error_type`` the server-side type)."""

    def __init__(self, message: str, code: str = "", error_type: str = "") -> None:
        super().__init__(message)
        self.code, self.error_type = code, error_type
