"""salt.utils: the submodules tree code imports (files, dictupdate, pyobjects, yaml, json, odict)."""
