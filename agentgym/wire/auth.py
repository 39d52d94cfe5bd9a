"""Tokens for `agentgym serve`: where they come from, how a request presents one, who it names.

- `load_tokens(token_file)`: the accepted tokens, from a file (one per line) or the
  ``AGENTGYM_SERVE_TOKEN`` environment variable; with neither, a fresh random token is written
  to a new file only its owner can read, and that file's path (never the token) is reported.
- `Authenticator`: checks the ``Authorization`` header (``Bearer TOKEN``, or HTTP Basic with
  the token as password, which is what a ``http://user:TOKEN@host`` URL sends, so OpenEnv's
  own clients authenticate unchanged) against every token with `hmac.compare_digest`, and
  names the principal by the accepted token's index (``token-<n>``), so sessions are bound to
  the token that opened them; only the tokens' digests are kept, and a token is never logged
  or echoed.
- `client_token(token, token_file)`: the client side's lookup, the same sources in the same order.
- `normalize_origin(origin)`: an ``--allow-origin`` value as browsers send it in ``Origin``.
  A token is not enough against a browser: one that holds it (a cached Basic login) sends it
  with any page's requests, so a request carrying an ``Origin`` (only browsers send one) is
  served only from an allowed origin.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from agentgym.errors import ConfigError

__all__ = [
    "TOKEN_ENV",
    "TOKEN_FILE_ENV",
    "MIN_TOKEN_LENGTH",
    "load_tokens",
    "client_token",
    "Authenticator",
    "new_token_file",
    "normalize_origin",
]

TOKEN_ENV = "AGENTGYM_SERVE_TOKEN"
TOKEN_FILE_ENV = "AGENTGYM_SERVE_TOKEN_FILE"
MIN_TOKEN_LENGTH = 16


def _read_token_file(path: str | os.PathLike[str]) -> list[str]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the token file {str(path)!r}: {exc.strerror}") from None
    tokens = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not tokens:
        raise ConfigError(f"the token file {str(path)!r} holds no token (one per line)")
    return tokens


def new_token_file(directory: str | None = None) -> Path:
    """Write a fresh random token to a new mode-0600 file; returns its path."""
    fd, name = tempfile.mkstemp(prefix="agentgym-serve-", suffix=".token", dir=directory)
    try:
        os.fchmod(fd, stat.S_IRUSR | stat.S_IWUSR)
        os.write(fd, (secrets.token_urlsafe(32) + "\n").encode())
    finally:
        os.close(fd)
    return Path(name)


def load_tokens(token_file: str | os.PathLike[str] | None = None) -> tuple[list[str], Path | None]:
    """``(tokens, generated_file)``: from ``token_file``, else ``$AGENTGYM_SERVE_TOKEN_FILE``, else
    ``$AGENTGYM_SERVE_TOKEN``, else a generated file (returned so the caller can say where it is)."""
    generated = None
    if token_file is None:
        token_file = os.environ.get(TOKEN_FILE_ENV) or None
    if token_file is not None:
        tokens = _read_token_file(token_file)
    elif os.environ.get(TOKEN_ENV):
        tokens = [os.environ[TOKEN_ENV].strip()]
    else:
        generated = new_token_file()
        tokens = _read_token_file(generated)
    short = [i for i, t in enumerate(tokens) if len(t) < MIN_TOKEN_LENGTH]
    if short:
        raise ConfigError(
            f"token(s) at position {short} are shorter than {MIN_TOKEN_LENGTH} characters; "
            "use `python -c 'import secrets; print(secrets.token_urlsafe(32))'`"
        )
    return tokens, generated


def client_token(token: str | None = None, token_file: str | os.PathLike[str] | None = None) -> str:
    """The token a client sends: ``token``, else the first line of ``token_file``, else
    ``$AGENTGYM_SERVE_TOKEN``, else the first line of ``$AGENTGYM_SERVE_TOKEN_FILE``."""
    if token:
        return token
    if token_file is not None:
        return _read_token_file(token_file)[0]
    if os.environ.get(TOKEN_ENV):
        return os.environ[TOKEN_ENV].strip()
    if os.environ.get(TOKEN_FILE_ENV):
        return _read_token_file(os.environ[TOKEN_FILE_ENV])[0]
    raise ConfigError(
        f"no token for the agentgym server: pass token=, or set {TOKEN_ENV} or {TOKEN_FILE_ENV} "
        "(the server prints where its token file is)"
    )


def _presented(authorization: str) -> str | None:
    scheme, _, value = authorization.strip().partition(" ")
    scheme, value = scheme.lower(), value.strip()
    if scheme == "bearer":
        return value or None
    if scheme == "basic":
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
        return decoded.partition(":")[2] or None
    return None


class Authenticator:
    """Constant-time token checks; `principal` names who presented a valid token, or is None."""

    def __init__(self, tokens: list[str]) -> None:
        if not tokens:
            raise ConfigError("agentgym serve needs at least one token")
        # digests of equal length make every comparison take the same time whatever was sent
        self._digests = [hashlib.sha256(t.encode()).digest() for t in tokens]

    def principal(self, authorization: str | None) -> str | None:
        """``"token-<n>"`` for the n-th accepted token presented in ``authorization``, else None."""
        if not authorization or len(authorization) > 4096:
            return None
        presented = _presented(authorization)
        if presented is None:
            return None
        digest = hashlib.sha256(presented.encode("utf-8", "surrogatepass")).digest()
        match = None
        for i, known in enumerate(self._digests):  # no early exit: the time does not say which token matched
            if hmac.compare_digest(digest, known):
                match = i
        return None if match is None else f"token-{match}"


_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_origin(origin: str) -> str:
    """``origin`` serialized as a browser's ``Origin`` header is (``scheme://host[:port]``, lower
    case, no default port), so an allow-list entry matches by plain string equality."""
    try:
        parts = urlsplit(origin.strip().rstrip("/"))
        port = parts.port
    except ValueError:
        parts, port = None, None
    if (
        parts is None
        or parts.scheme.lower() not in _DEFAULT_PORTS
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
        or parts.password is not None
    ):
        raise ConfigError(
            f"allowed origin {origin!r} is not an origin: expected http(s)://host[:port], "
            "e.g. --allow-origin http://localhost:3000"
        )
    scheme, host = parts.scheme.lower(), parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"  # IPv6, as browsers write it
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != _DEFAULT_PORTS[scheme] else "")
