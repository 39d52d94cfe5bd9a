"""The Sandbox contract and the step-server protocol, on both backends.

Binary data, outputs much larger than one Docker stream frame, output caps, timeouts that kill
whole process groups, stray writes to the server's stdout, snapshot/restore identity, and
typed errors for bad requests.
"""

from __future__ import annotations

import os
import time

import pytest

from agentgym.errors import SandboxClosed, SandboxCrashed, SandboxOpError
from agentgym.sandbox import make_sandbox


@pytest.fixture(scope="module", params=["local", "docker"])
def sandbox(request):
    """One sandbox per backend for this module (tests restore what they change)."""
    from support.docker import require_docker

    if request.param == "docker":
        require_docker()
    with make_sandbox(request.param) as sb:
        yield sb


def test_run_reports_exit_code_and_merged_output(sandbox):
    r = sandbox.run("echo out; echo err >&2; exit 3")
    assert r.exit_code == 3 and not r.timed_out and not r.truncated and not r.ok
    assert r.output == b"out\nerr\n"
    r = sandbox.run(["python3", "-c", "import sys; print(sys.argv[1:])", "a b", "c"])
    assert r.ok and r.text == "['a b', 'c']\n"


def test_nul_and_non_utf8_bytes_survive(sandbox):
    r = sandbox.run(r"printf 'a\000b\377c\n'")
    assert r.output == b"a\x00b\xffc\n"
    blob = bytes(range(256)) * 4
    sandbox.write_files({"bin/blob": blob})
    assert sandbox.read_file("bin/blob") == blob
    assert sandbox.run("cat bin/blob").output == blob


def test_ten_megabyte_output_split_across_frames_is_exact(sandbox):
    data = os.urandom(10 << 20)
    sandbox.write_files({"big.bin": data})
    r = sandbox.run("cat big.bin", max_output=11 << 20, timeout=60)
    assert r.ok and not r.truncated and r.output == data
    assert sandbox.read_file("big.bin") == data
    sandbox.run("rm big.bin")
    sandbox.ping()


def test_output_flood_is_truncated_with_a_marker(sandbox):
    start = time.monotonic()
    r = sandbox.run("yes 0123456789 | head -c 50000000", max_output=1 << 20, timeout=60)
    assert r.truncated and r.exit_code == 0
    assert r.output.startswith(b"0123456789\n")
    assert b"[agentgym: output truncated, 48951424 bytes omitted]" in r.output
    assert len(r.output) < (1 << 20) + 100
    assert time.monotonic() - start < 30
    sandbox.ping()


def test_infinite_loop_is_killed_with_its_background_children(sandbox):
    sandbox.run("rm -f late.txt")
    start = time.monotonic()
    r = sandbox.run("(sleep 1.5; echo alive > late.txt) & while :; do :; done", timeout=0.5)
    assert r.timed_out and r.exit_code == -9 and not r.ok
    assert time.monotonic() - start < 3
    sandbox.ping()
    time.sleep(1.7)
    assert sandbox.run("test -e late.txt").exit_code == 1, "the background child outlived the timeout"


def test_finished_command_does_not_wait_for_a_background_child_holding_the_pipe(sandbox):
    start = time.monotonic()
    r = sandbox.run("sleep 30 & echo started", timeout=20)
    assert r.ok and r.output == b"started\n"
    assert time.monotonic() - start < 3


def test_command_that_closes_its_output_still_honours_the_timeout(sandbox):
    start = time.monotonic()
    r = sandbox.run("exec >/dev/null 2>&1; sleep 30", timeout=0.5)
    assert r.timed_out
    assert time.monotonic() - start < 3


def test_stray_writes_to_the_servers_stdout_do_not_corrupt_the_channel(sandbox):
    source = (
        "import os, sys\n"
        "def shout():\n"
        "    print('stray print from a tool')\n"
        "    sys.stdout.flush()\n"
        "    os.write(1, b'\\x00AG1\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05junk')\n"
        "    os.write(2, b'stray stderr')\n"
        "    return {'ok': True}\n"
        "def child():\n"
        "    print('child print')\n"
        "    os.system('echo from a grandchild')\n"
        "    return 7\n"
    )
    assert set(sandbox.load_module("noisy", source)) >= {"shout", "child"}
    assert sandbox.call("noisy", "shout") == {"ok": True}
    r = sandbox.fork_call("noisy", "child", timeout=10)
    assert r.value == 7 and r.error is None
    assert b"child print" in r.output and b"from a grandchild" in r.output
    assert sandbox.run("echo fine").output == b"fine\n"


def test_fork_call_timeout_and_errors(sandbox):
    sandbox.load_module(
        "slow", "import time\ndef nap(s):\n    time.sleep(s)\n    return s\ndef boom():\n    raise ValueError('bad')\n"
    )
    r = sandbox.fork_call("slow", "nap", timeout=0.5, s=30)
    assert r.timed_out and r.value is None
    r = sandbox.fork_call("slow", "boom")
    assert r.error == "ValueError: bad"
    assert sandbox.fork_call("slow", "nap", s=0).value == 0


def test_snapshot_restore_is_checksum_identical(sandbox):
    sandbox.run("rm -rf ./*")
    files = {f"pkg{i % 10}/mod{i}.py": os.urandom(10_000) for i in range(200)}
    sandbox.write_files(files)
    sandbox.run("chmod 755 pkg0/mod0.py && ln -s pkg1/mod1.py link && mkdir -p empty/dir")
    before = sandbox.snapshot("t")
    assert before == sandbox.checksum()
    sandbox.run(
        "rm -rf pkg3 && echo x >> pkg1/mod1.py && chmod 600 pkg2/mod2.py && mkdir ro && touch ro/f && "
        "chmod 500 ro && echo new > new.txt && rm link"
    )
    assert sandbox.checksum() != before
    assert sandbox.restore("t") == before
    assert sandbox.checksum() == before
    assert sandbox.read_file("pkg5/mod5.py") == files["pkg5/mod5.py"]
    assert "new.txt" not in sandbox.list_files()
    assert sandbox.run("readlink link").output == b"pkg1/mod1.py\n"
    sandbox.run("chmod -R u+w . ; rm -rf ./*")


def test_restore_sees_same_size_edits_forged_mtimes_and_type_changes(sandbox):
    sandbox.run("rm -rf ./*")
    sandbox.write_files({"a.txt": "aaaa", "d/b.txt": "bbbb", "d/e/c.txt": "cccc"})
    digest = sandbox.snapshot("s")
    for _ in range(2):  # right after a snapshot, and right after a restore (same clock tick)
        sandbox.write_files({"a.txt": "AAAA"})
        assert sandbox.restore("s") == digest and sandbox.checksum() == digest
        assert sandbox.read_file("a.txt") == b"aaaa"
    time.sleep(0.1)
    sandbox.run("touch -r d/b.txt ref && echo -n BBBB > d/b.txt && touch -r ref d/b.txt && rm ref")
    sandbox.restore("s")
    assert sandbox.read_file("d/b.txt") == b"bbbb" and sandbox.checksum() == digest
    sandbox.run("rm -rf d/e && echo -n file > d/e && rm a.txt && mkdir a.txt && touch a.txt/x")
    assert sandbox.restore("s") == digest and sandbox.checksum() == digest
    assert sandbox.read_file("d/e/c.txt") == b"cccc"
    sandbox.run("chmod 500 d")
    assert sandbox.restore("s") == digest and sandbox.checksum() == digest
    sandbox.run("rm -rf ./*")


def test_deferred_writes_land_in_order_before_anything_reads_or_runs(sandbox):
    sandbox.run("rm -rf ./*")
    calls = sandbox.calls
    sandbox.write_files({"a.txt": "one", "d/b.txt": "bee"}, defer=True)
    sandbox.write_files({"a.txt": "two"}, defer=True)  # the later write of a path wins
    assert sandbox.calls == calls, "a held-back write made a round trip"
    assert sandbox.run("cat a.txt d/b.txt").output == b"twobee"
    sandbox.write_files({"c.txt": "held"}, defer=True)
    sandbox.write_files({"c.txt": "sent", "e.txt": "e"})  # an eager write goes after what was held back
    assert sandbox.read_file("c.txt") == b"sent" and sandbox.read_file("e.txt") == b"e"
    sandbox.run("rm -rf ./*")


def test_a_refused_held_back_write_closes_the_sandbox(backend):
    """The workspace is then not what its user was told (the env would cache a test run of other
    files under its own): nothing may run on it, and an env replaces it at its next reset."""
    with make_sandbox(backend) as sb:
        sb.write_files({"ok.txt": "fine", "../escape.txt": "x"}, defer=True)
        with pytest.raises(SandboxCrashed, match="refused a held-back write.*outside the workspace"):
            sb.run("cat ok.txt")
        assert sb.broken
        with pytest.raises(SandboxCrashed):
            sb.ping()


def test_a_deferred_restore_waits_for_the_next_request_and_drops_the_writes_before_it(sandbox):
    sandbox.run("rm -rf ./*")
    sandbox.write_files({"kept.txt": "k"})
    digest = sandbox.snapshot("deferred")
    sandbox.restore("deferred")  # nothing ran since this restore: the next one may wait
    sandbox.write_files({"kept.txt": "edited", "gone.txt": "g"}, defer=True)
    calls = sandbox.calls
    assert sandbox.restore("deferred", defer=True) is None
    sandbox.write_files({"new.txt": "n"}, defer=True)
    assert sandbox.calls == calls
    assert sorted(sandbox.list_files()) == ["kept.txt", "new.txt"]
    assert sandbox.read_file("kept.txt") == b"k"
    sandbox.run("rm new.txt")
    assert sandbox.checksum() == digest
    sandbox.run("rm -rf ./*")


def test_a_restore_after_agent_code_ran_is_never_deferred(sandbox):
    """The attack: an agent leaves a process behind that rewrites the workspace after the reset;
    a restore held back would let it live on, so after any op that can start one it runs at once."""
    sandbox.run("rm -rf ./*")
    sandbox.write_files({"f.txt": "clean"})
    digest = sandbox.snapshot("ran")
    sandbox.run("(while :; do echo tampered > f.txt; sleep 0.05; done) >/dev/null 2>&1 &")
    assert sandbox.restore("ran", defer=True) == digest
    time.sleep(0.3)
    assert sandbox.read_file("f.txt") == b"clean", "the agent's process outlived the restore"
    sandbox.load_module("deferral", "def nap():\n    return 0\n")
    assert sandbox.restore("ran", defer=True) is None  # loading trusted code starts no process
    assert sandbox.fork_call("deferral", "nap").value == 0  # a forked run is agent code
    assert sandbox.restore("ran", defer=True) == digest
    sandbox.run("rm -rf ./*")


def test_paths_outside_the_workspace_are_refused(sandbox):
    with pytest.raises(SandboxOpError, match="outside the workspace"):
        sandbox.read_file("../../etc/passwd")
    with pytest.raises(SandboxOpError, match="outside the workspace"):
        sandbox.write_files({"../escape.txt": b"x"})
    with pytest.raises(SandboxOpError):
        sandbox.call("not_loaded", "f")
    with pytest.raises(SandboxOpError):
        sandbox.restore("never-taken")
    sandbox.ping()


def test_close_is_idempotent_and_calls_after_close_raise(backend):
    sb = make_sandbox(backend)
    with sb:
        sb.ping()
    sb.close()
    assert sb.closed
    with pytest.raises(SandboxClosed):
        sb.ping()
