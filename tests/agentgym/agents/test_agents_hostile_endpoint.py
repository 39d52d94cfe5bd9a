"""The chat agent against hostile loopback endpoints: every misbehaviour is a typed
`ModelEndpointError` within the request's deadline, and the API key never leaves for another host."""

from __future__ import annotations

import json
import time
from http.server import ThreadingHTTPServer

import pytest

from agentgym.agents import OpenAIChatAgent
from agentgym.agents.http import ModelEndpointError, ModelEndpointTimeout, ModelReplyError
from support.fake_chat import serve
from support.hostile_chat import Canned, Endless, HugeDeclared, Recorder, Redirect, SlowDrip, SlowHeaders

KEY = "sk-hostile-test-key"


def _agent(url: str, **kw) -> OpenAIChatAgent:
    agent = OpenAIChatAgent(url, "m", api_key=KEY, retries=1, **kw)
    agent._usage = {"model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "model_seconds": 0.0}
    return agent


@pytest.mark.parametrize("handler", [SlowDrip, SlowHeaders])
def test_a_slow_drip_cannot_stretch_the_deadline(handler):
    with serve(handler) as url:
        start = time.monotonic()
        with pytest.raises(ModelEndpointTimeout, match="within 1 s"):
            _agent(url, timeout=1.0)._complete([{"role": "user", "content": "hi"}])
        assert time.monotonic() - start < 2.5  # one deadline, not one per byte


@pytest.mark.parametrize("handler", [Endless, HugeDeclared])
def test_reply_bodies_are_bounded(handler):
    with serve(handler) as url:
        start = time.monotonic()
        with pytest.raises(ModelReplyError, match="1048576"):
            _agent(url, timeout=20.0, max_reply_bytes=1 << 20)._complete([{"role": "user", "content": "hi"}])
        assert time.monotonic() - start < 10


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_no_credential_on_a_cross_host_redirect(status):
    Recorder.seen = []
    other = ThreadingHTTPServer(("127.0.0.2", 0), Recorder)  # another host on loopback
    import threading

    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        Redirect.target = f"http://127.0.0.2:{other.server_address[1]}/steal"
        Redirect.status = status
        with serve(Redirect) as url:
            with pytest.raises(ModelEndpointError, match="redirect"):
                _agent(url, timeout=5.0)._complete([{"role": "user", "content": "hi"}])
    finally:
        other.shutdown()
        other.server_close()
    assert not [s for s in Recorder.seen if s[2]], f"the key reached the other host: {Recorder.seen}"


MALFORMED = {
    "not json": b"<html>hi</html>",
    "a list": b"[1, 2]",
    "null": b"null",
    "no choices": b'{"choices": []}',
    "choice not an object": b'{"choices": ["x"]}',
    "message a string": b'{"choices": [{"message": "hello"}]}',
    "message null": b'{"choices": [{"message": null}]}',
    "content a number": b'{"choices": [{"message": {"content": 5}}]}',
    "content parts of numbers": b'{"choices": [{"message": {"content": [1, 2]}}]}',
    "usage a string": b'{"choices": [{"message": {"content": "x"}}], "usage": "lots"}',
    "usage a list": b'{"choices": [{"message": {"content": "x"}}], "usage": [1]}',
    "tokens a string": b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": "12"}}',
    "tokens negative": b'{"choices": [{"message": {"content": "x"}}], "usage": {"completion_tokens": -1}}',
    "tokens a float": b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": 1e400}}',
    "tokens NaN": b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": NaN}}',
    "tokens 5000 digits": b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": '
    + b"9" * 5000
    + b"}}",
    "deep JSON": b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "not utf-8": b'{"choices": [{"message": {"content": "\xff\xfe"}}]}',
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_replies_are_typed_errors(name):
    Canned.body = MALFORMED[name]
    with serve(Canned) as url:
        with pytest.raises(ModelReplyError):
            _agent(url, timeout=5.0)._complete([{"role": "user", "content": "hi"}])


def test_a_well_formed_reply_still_works_with_content_parts():
    Canned.body = json.dumps(
        {
            "choices": [{"message": {"content": [{"type": "text", "text": "view a.py"}]}}],
            "usage": {"prompt_tokens": 7, "completion_tokens": 2},
        }
    ).encode()
    with serve(Canned) as url:
        agent = _agent(url, timeout=5.0)
        assert agent._complete([{"role": "user", "content": "hi"}]) == "view a.py"
        assert agent.cost()["prompt_tokens"] == 7 and agent.cost()["completion_tokens"] == 2
