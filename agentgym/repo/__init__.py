"""What the code families (Coding-v0, SWE-v0) share: unified diffs and the views of files they show.

`diffs` parses, makes and applies unified diffs; `views` renders a file with line numbers, the
lines an edit changed, and a whole-file diff. Host-side only, stdlib only; no family is imported.
"""
