"""The bridge back to brine for the shim modules: set by brine_host.py before the render runs."""

import os
import shutil
import tempfile

# ask(message) -> the reply's return (brine_host.ask); salt: the `__salt__` object; the request's data
ask = None
salt = None
grains = {}
opts = {}
saltenv = "base"

_scratch = None


def scratch_dir():
    """A private directory for files fetched from salt:// (fileclient.cache_file); removed at the end."""
    global _scratch
    if _scratch is None:
        _scratch = tempfile.mkdtemp(prefix="brine-pyrender-")
    return _scratch


def cleanup():
    global _scratch
    if _scratch is not None:
        shutil.rmtree(_scratch, ignore_errors=True)
        _scratch = None
