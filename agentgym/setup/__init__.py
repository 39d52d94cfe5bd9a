"""Machine setup: start a Docker engine, build the sandbox images, diagnose what is missing.

``agentgym setup`` runs `engine.ensure_engine`, then each image pipeline (`images` lists them); ``agentgym doctor``
reports what works. Both are idempotent and print what they do, because the slow steps
(installing the engine, bootstrapping the base image) take minutes on a fresh machine.
"""

from __future__ import annotations

__all__ = ["engine", "images", "imaging", "base_image", "family_images", "package_images", "page_images", "commands"]
