"""salt.loader for tree code: a renderer imports it (Rudd-O's objects.py does) and may ask for the
execution functions, which are brine's (the same `__salt__` the renderer was given)."""

from salt import _brine


def minion_mods(opts=None, *args, **kwargs):
    return _brine.salt


def render(opts=None, functions=None, *args, **kwargs):
    raise NotImplementedError("salt.loader.render: brine gives a tree's renderer no other renderers; render the text in the renderer itself")
