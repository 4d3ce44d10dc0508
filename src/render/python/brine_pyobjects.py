"""Salt's #!pyobjects renderer for brine: `Pkg.installed("nginx")` and friends build high data.

Written from Salt's documentation of the renderer (salt/renderers/pyobjects.py) and the
behaviour of salt/utils/pyobjects.py: states are kept in the order they are made, a state's
arguments are listed sorted by name, `with` blocks add their requisite to every state made
inside, `extend(ID)` as a state's ID puts it under `extend`, `include()` lists SLS names, and
`from salt://x.sls import Y` runs that file (its states are not kept) to take its names.
"""

import builtins
import os
import re

REQUISITES = (
    "listen",
    "onchanges",
    "onfail",
    "require",
    "watch",
    "use",
    "listen_in",
    "onchanges_in",
    "onfail_in",
    "require_in",
    "watch_in",
    "use_in",
)

FROM_RE = re.compile(r"^\s*from\s+(salt:\/\/.*)\s+import (.*)$")
IMPORT_RE = re.compile(r"^\s*import\s+(salt:\/\/.*)$")
AS_RE = re.compile(r"^(.*) as (.*)$")


class DuplicateState(Exception):
    pass


class Registry:
    """What one render collects: states by ID, includes, extends and the open `with` requisites."""

    def __init__(self):
        self.states = {}
        self.extends = {}
        self.includes = []
        self.requisites = []
        self.enabled = True

    def include(self, *names):
        if self.enabled:
            self.includes.extend(names)

    def add(self, id_, state, extend):
        if not self.enabled:
            return
        target = self.extends if extend else self.states
        funcs = target.setdefault(id_, {})
        if state.full_func in funcs:
            raise DuplicateState("A state with id '%s', type '%s' exists" % (id_, state.full_func))
        for req in self.requisites:
            state.kwargs.setdefault(req.requisite, []).append(req())
        funcs.update(state())

    def high(self):
        data = dict(self.states)
        if self.includes:
            data["include"] = list(self.includes)
        if self.extends:
            data["extend"] = dict(self.extends)
        return data


class Extend:
    """`extend("apache")`: a state made with it as ID goes under the high data's `extend`."""

    def __init__(self, name):
        self.name = name


class Requisite:
    """`Pkg("nginx")`: `{pkg: nginx}` in a requisite list, or a `with` block requiring it."""

    def __init__(self, registry, requisite, module, id_):
        self.registry = registry
        self.requisite = requisite
        self.module = module
        self.id_ = id_

    def __call__(self):
        return {self.module: self.id_}

    def __enter__(self):
        if self.registry.enabled:
            self.registry.requisites.append(self)
        return self

    def __exit__(self, *exc):
        if self.registry.enabled:
            self.registry.requisites.pop()


class State:
    def __init__(self, registry, id_, module, func, kwargs):
        self.module = module
        self.func = func
        for name in REQUISITES:
            # a single requisite may be given without a list
            if name in kwargs and not _iterable(kwargs[name]):
                kwargs[name] = [kwargs[name]]
        self.kwargs = kwargs
        extend = isinstance(id_, Extend)
        self.id_ = id_.name if extend else id_
        self.requisite = Requisite(registry, "require", module, self.id_)
        registry.add(self.id_, self, extend)

    @property
    def full_func(self):
        return "%s.%s" % (self.module, self.func)

    def attrs(self):
        for name in REQUISITES:
            if name in self.kwargs:
                self.kwargs[name] = [r() if isinstance(r, Requisite) else r for r in self.kwargs[name]]
        return [{key: self.kwargs[key]} for key in sorted(self.kwargs)]

    def __call__(self):
        return {self.full_func: self.attrs()}

    def __enter__(self):
        return self.requisite.__enter__()

    def __exit__(self, *exc):
        self.requisite.__exit__(*exc)


def _iterable(value):
    try:
        iter(value)
    except TypeError:
        return False
    return True


class StateFactory:
    """`Pkg`, `File`, `SshAuth`...: `Pkg.installed(id, **kw)` makes a state, `Pkg(id)` a requisite."""

    def __init__(self, registry, module):
        self._registry = registry
        self._module = module

    def __getattr__(self, func):
        if func.startswith("__"):
            raise AttributeError(func)

        def make_state(id_, **kwargs):
            return State(self._registry, id_, self._module, func, kwargs)

        return make_state

    def __call__(self, id_, requisite="require"):
        return Requisite(self._registry, requisite, self._module, id_)


def module_name(camel):
    """`SshAuth` -> `ssh_auth`: Salt names each factory by capitalising the parts of the module name."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


class Scope(dict):
    """The file's globals: a capitalised name nobody defined is the factory of that state module."""

    def __init__(self, registry, base):
        super().__init__(base)
        self._registry = registry

    def __missing__(self, name):
        # builtins (Exception, ValueError...) are looked up after the globals: they stay builtins
        if name[:1].isupper() and not hasattr(builtins, name) and name.isidentifier() and not name.isupper():
            factory = StateFactory(self._registry, module_name(name))
            self[name] = factory
            return factory
        raise KeyError(name)


class SaltObject:
    """`salt.cmd.run(...)` in a pyobjects file (Salt's SaltObject over `__salt__`)."""

    def __init__(self, salt):
        self._salt = salt

    def __getattr__(self, mod):
        if mod.startswith("__"):
            raise AttributeError(mod)
        return getattr(self._salt, mod)


class PyobjectsModule:
    """`import salt://map.sls`: the imported file's names under the file's own base name."""

    def __init__(self, name, attrs):
        self.__dict__.update(attrs)
        self.__name = name

    def __repr__(self):
        return "<module '%s' (pyobjects)>" % self.__name


def map_class(grains, salt):
    """Salt's `Map`: a class whose nested classes are matched against grains to set its attributes."""

    class MapMeta(type):
        def __init__(cls, name, bases, attrs):
            super().__init__(name, bases, attrs)
            if bases:
                _resolve_map(cls, attrs, grains, salt)

    return MapMeta("Map", (object,), {})


def _resolve_map(cls, attrs, grains, salt):
    matches = []
    for item, filt in attrs.items():
        if item.startswith("_") or not isinstance(filt, type):
            continue
        values = {k: v for k, v in vars(filt).items() if not k.startswith("_")}
        matches.append((getattr(filt, "__grain__", "os_family"), getattr(filt, "__match__", item), values))
    priority = getattr(cls, "priority", None)
    if priority is not None and hasattr(priority, "__iter__"):
        ordered = [m for grain in priority for m in matches if m[0] == grain]
        matches = ordered + [m for m in matches if m not in ordered]
    result = {}
    for grain, match, values in matches:
        if grain in grains and grains[grain] == match:
            result.update(values)
    merge = getattr(cls, "merge", None)
    if merge is not None:
        found = salt["pillar.get"](merge)
        if found:
            result.update(found)
    for name, value in result.items():
        setattr(cls, name, value)


def render(request, salt, names, ask):
    registry = Registry()
    base = dict(names)
    base.update(
        {
            "__builtins__": __builtins__,
            "__name__": os.path.basename(request["path"]).split(".")[0] or "sls",
            "include": registry.include,
            "extend": Extend,
            "Map": map_class(request["grains"], salt),
            "salt": SaltObject(salt),
            "pillar": salt["pillar.get"],
            "grains": salt["grains.get"],
            "mine": salt["mine.get"],
            "config": salt["config.get"],
        }
    )
    # imported files run with the registry off: only their names are wanted, not their states
    registry.enabled = False
    text, scope = _process(request["text"], request["source"], registry, base, ask, set(), True)
    registry.enabled = True
    exec(compile(text, request["source"], "exec"), scope)
    return registry.high()


def _process(text, source, registry, base, ask, seen, top=False):
    """The text with its `salt://` import lines blanked (line numbers kept), and the scope they fill."""
    scope = Scope(registry, base)
    lines = []
    for number, line in enumerate(text.split("\n"), 1):
        found = IMPORT_RE.match(line) or FROM_RE.match(line)
        if not found:
            lines.append(line)
            continue
        try:
            _import(found, scope, registry, base, ask, seen, source)
        except Exception as exc:
            # the rendered file's import line is where the error shows
            if top and not hasattr(exc, "brine_line"):
                exc.brine_line = number
            raise
        lines.append("")
    return "\n".join(lines), scope


def _import(found, scope, registry, base, ask, seen, source):
    """Runs one `import salt://...` line: the file is fetched from brine and run for its names."""
    url = found.group(1).strip()
    if url in seen:
        raise ImportError("'%s' imports itself (through %s)" % (url, source))
    loaded = ask({"op": "load", "name": url[len("salt://") :]})
    if loaded is None:
        raise ImportError("Could not find the file '%s'" % url)
    body, names = _process(loaded, url, registry, base, ask, seen | {url})
    exec(compile(body, url, "exec"), names)
    if found.re is IMPORT_RE:
        module = os.path.splitext(os.path.basename(url))[0]
        scope[module] = PyobjectsModule(module, names)
    else:
        for item in found.group(2).split(","):
            name = alias = item.strip()
            pair = AS_RE.match(name)
            if pair:
                name, alias = pair.group(1).strip(), pair.group(2).strip()
            if name not in names:
                raise ImportError("'%s' was not found in '%s'" % (name, url))
            scope[alias] = names[name]
