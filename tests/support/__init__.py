"""Test-only environments and helpers shared by the suite (not part of the package)."""
