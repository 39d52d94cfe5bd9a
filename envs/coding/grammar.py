"""The coding family's action grammar: one command per action, its body on the following lines.

Text agents write these commands; menu agents pick them from ``info["admissible_actions"]``
(the menu holds plain commands in the same grammar, so one executor serves both). `parse`
raises `ActionError` with the grammar in the message for anything else.
"""

from __future__ import annotations

from agentgym.repo.grammar import CommandGrammar

__all__ = ["HELP", "GRAMMAR", "parse", "TOOLS"]

HELP = """\
Actions (one per turn; a body goes on the lines after the command):
  view PATH                 show a file with line numbers
  view PATH START-END       show lines START..END (or `view PATH N` for one line)
  run COMMAND               run a shell command in the repository (10 s limit)
  replace PATH START-END    replace lines START..END with the lines that follow;
  NEW LINES...              END = START-1 inserts before START, no lines deletes the range
  patch                     apply the unified diff that follows
  --- a/FILE                (context and '-' lines must match the file; '+' lines are added)
  +++ b/FILE
  @@ -START,COUNT +START,COUNT @@
  ...
  test                      run the visible tests
  revert                    undo your last edit (replace, patch or revert)
  submit                    finish; the hidden tests decide success
  help                      show this text"""

TOOLS = {"view": "view", "run": "shell", "replace": "edit", "patch": "edit", "revert": "edit", "test": "tests"}

GRAMMAR = CommandGrammar(HELP, TOOLS, no_args=("test", "submit", "help", "revert"))
parse = GRAMMAR.parse
"""Parse one action string; raise `ActionError` saying what the grammar expects (`CommandGrammar.parse`)."""
