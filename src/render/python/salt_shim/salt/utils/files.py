"""salt.utils.files: fopen and the small file helpers tree code uses."""

import os


def fopen(*args, **kwargs):
    """open() with Salt's default of UTF-8 text (Salt's fopen decodes text as UTF-8 too)."""
    mode = args[1] if len(args) > 1 else kwargs.get("mode", "r")
    if "b" not in mode and "encoding" not in kwargs:
        kwargs["encoding"] = "utf-8"
    return open(*args, **kwargs)


flopen = fopen


def is_empty(filename):
    try:
        return os.stat(filename).st_size == 0
    except OSError:
        return False
