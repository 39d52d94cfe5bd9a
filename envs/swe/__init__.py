"""agentgym/SWE-v0: bugs in real open-source Python libraries, judged by each library's own tests.

Built the way SWE-smith builds its tasks, offline: pinned, permissively licensed pure-Python
libraries whose tests ship in their source distributions are fetched by ``agentgym setup``
(hash-checked) into the ``agentgym/swe`` image (`libraries`); procedural modifiers inject bugs
into functions and methods (`modifiers`); a candidate is kept only when the library's tests, run
in the sandbox, show at least one test going from pass to fail and at least one still passing
(`generate`, which writes ``data/``). The environment (`env`) hands the agent the buggy library
and a statement written from the failing tests; its verdict runs those tests again on a pristine
copy of the test suite with only the agent's source changes applied (`verdict`).
"""
