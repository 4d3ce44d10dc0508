"""brine's stand-in for the `salt` package, for a tree's own Python (renderers, #!py/#!pyobjects files).

Written by brine from Salt's documented behaviour; none of Salt's code. brine_host.py puts this
directory first on sys.path of its own python3 process only. It holds the few modules tree code
imports (salt.utils.pyobjects, salt.fileclient, salt.utils.dictupdate, salt.exceptions, ...); an
import of any other salt module is reported by brine as RENDER_SALT_MODULE_MISSING.
"""
