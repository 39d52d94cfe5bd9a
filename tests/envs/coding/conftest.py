"""``fixtures/`` is a tiny corpus in the coding format (module + ``test_<module>.py``), not tests to collect."""

collect_ignore = ["fixtures"]
