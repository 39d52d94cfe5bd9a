"""Sandbox images, one module per pipeline; this module gathers their public names.

* `base_image`: Debian bootstrapped offline (``mmdebstrap`` or ``debootstrap`` from the machine's mirror, ``docker
  import``), or built from a named image where a registry is reachable: ``agentgym/base``.
* `family_images`: ``envs/<family>/Dockerfile`` built ``FROM`` the base with no network.
* `package_images`: ``envs/<family>/<variant>.packages``, the base plus Debian packages downloaded
  on the host and installed with no network (``agentgym/browser-chromium``).
* `page_images`: task pages published elsewhere (MiniWoB++), fetched pinned and hash-checked,
  added to the Chromium image (``agentgym/miniwob``).
* `api_images`: tool APIs published elsewhere (BFCL's multi-turn classes and data), fetched pinned
  and hash-checked, added to the base (``agentgym/bfcl``).
* `swe_images`: real open-source libraries and their test suites (SWE-v0), fetched pinned and
  hash-checked, added to the base (``agentgym/swe``).

`imaging` holds what they share: every image is built under a temporary tag, checked by starting
a real sandbox on it, then promoted, and labelled with a hash of its inputs so an unchanged one is
skipped (``agentgym setup`` is idempotent).
"""

from __future__ import annotations

from agentgym.setup.api_images import BFCL_IMAGE, build_api_images, build_bfcl_image
from agentgym.setup.base_image import (
    BASE_IMAGE,
    BASE_PACKAGES,
    AptSource,
    _os_release,  # noqa: F401 - its tests read the release through this module
    apt_sources,
    build_base,
    pick_source,
)
from agentgym.setup.family_images import build_families, build_family, context_hash, family_contexts, family_image
from agentgym.setup.imaging import CONTEXT_LABEL, WORK_ROOT, image_id, verify_image
from agentgym.setup.package_images import build_package_image, build_package_images, package_images, read_packages
from agentgym.setup.page_images import PAGE_SOURCES, build_page_image, build_page_images
from agentgym.setup.swe_images import SWE_IMAGE, build_swe_image, build_swe_images

__all__ = [
    "BASE_IMAGE",
    "BASE_PACKAGES",
    "CONTEXT_LABEL",
    "WORK_ROOT",
    "AptSource",
    "apt_sources",
    "pick_source",
    "family_contexts",
    "family_image",
    "context_hash",
    "image_id",
    "build_base",
    "build_family",
    "build_families",
    "package_images",
    "read_packages",
    "build_package_image",
    "build_package_images",
    "PAGE_SOURCES",
    "build_page_image",
    "build_page_images",
    "verify_image",
    "BFCL_IMAGE",
    "build_bfcl_image",
    "build_api_images",
    "SWE_IMAGE",
    "build_swe_image",
    "build_swe_images",
]
