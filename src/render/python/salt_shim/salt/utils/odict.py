"""salt.utils.odict: Salt's OrderedDict is the standard one."""

from collections import OrderedDict  # noqa: F401
