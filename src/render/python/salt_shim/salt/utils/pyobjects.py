"""salt.utils.pyobjects for a tree's own renderers (a pyobjects variant such as Rudd-O's objects.py).

Salt keeps one registry in class attributes (`Registry.enabled = False`, `Registry.salt_data()`)
and builds states with `StateFactory("pkg").installed(...)`. These names are Salt's; the state
building is brine's #!pyobjects implementation (brine_pyobjects.py), over one registry per render
(one python3 process renders one file).
"""

import brine_pyobjects as _impl
from salt import _brine

REQUISITES = _impl.REQUISITES
DuplicateState = _impl.DuplicateState
StateExtend = _impl.Extend

_registry = _impl.Registry()


class StateException(Exception):
    pass


class InvalidFunction(StateException):
    pass


def _shared(attr):
    return property(lambda cls: getattr(_registry, attr), lambda cls, value: setattr(_registry, attr, value))


class _RegistryType(type):
    """`Registry.enabled = False` and `Registry.states` reach the render's one registry."""

    enabled = _shared("enabled")
    states = _shared("states")
    extends = _shared("extends")
    includes = _shared("includes")
    requisites = _shared("requisites")


class Registry(metaclass=_RegistryType):
    @classmethod
    def empty(cls):
        enabled = _registry.enabled
        _registry.__init__()
        _registry.enabled = enabled

    @classmethod
    def include(cls, *names):
        _registry.include(*names)

    @classmethod
    def salt_data(cls):
        data = _registry.high()
        cls.empty()
        return data

    @classmethod
    def add(cls, id_, state, extend=False):
        _registry.add(id_, state, extend)

    @classmethod
    def extend(cls, id_, state):
        _registry.add(id_, state, True)

    @classmethod
    def make_extend(cls, name):
        return StateExtend(name)

    @classmethod
    def push_requisite(cls, requisite):
        if _registry.enabled:
            _registry.requisites.append(requisite)

    @classmethod
    def pop_requisite(cls):
        if _registry.enabled:
            _registry.requisites.pop()


class StateRequisite(_impl.Requisite):
    def __init__(self, requisite, module, id_):
        super().__init__(_registry, requisite, module, id_)


class State(_impl.State):
    def __init__(self, id_, module, func, **kwargs):
        super().__init__(_registry, id_, module, func, kwargs)


class StateFactory(_impl.StateFactory):
    """`StateFactory("ssh_auth").present(id, **kw)` makes a state; `factory(id)` is a requisite."""

    def __init__(self, module, valid_funcs=None):
        super().__init__(_registry, module)
        self.module = module
        self.valid_funcs = list(valid_funcs or [])

    def __getattr__(self, func):
        if func.startswith("__"):
            raise AttributeError(func)
        if self.valid_funcs and func not in self.valid_funcs:
            raise InvalidFunction("The function '%s' does not exist in the StateFactory for '%s'" % (func, self.module))

        def make_state(id_, **kwargs):
            return State(id_, self.module, func, **kwargs)

        return make_state

    def __call__(self, id_, requisite="require"):
        return StateRequisite(requisite, self.module, id_)


class SaltObject:
    """`SaltObject(__salt__).cmd.run(...)`: attribute access over `__salt__['cmd.run']`."""

    def __init__(self, salt):
        self._salt = salt

    def __getattr__(self, mod):
        if mod.startswith("__"):
            raise AttributeError(mod)
        salt = self._salt

        class _Functions:
            def __getattr__(self, func):
                try:
                    return salt["%s.%s" % (mod, func)]
                except KeyError:
                    raise AttributeError("%s.%s" % (mod, func)) from None

        return _Functions()


class MapMeta(type):
    """A subclass of Map is resolved against the grains when it is defined (Salt's MapMeta)."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        if any(isinstance(base, MapMeta) for base in bases):
            salt = Map.__salt__ if Map.__salt__ is not None else _brine.salt
            _impl._resolve_map(cls, attrs, _brine.grains, salt)


class Map(metaclass=MapMeta):
    # a renderer sets Map.__salt__ = __salt__ (Salt's convention); brine's own otherwise
    __salt__ = None
