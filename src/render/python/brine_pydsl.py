"""Salt's #!pydsl renderer for brine: `state('id').pkg.installed(...)` declarations build high data.

Written from Salt's pydsl documentation and the behaviour of salt/utils/pydsl.py: declarations
keep the order they were made in, a function's first positional argument is its `name`,
requisite methods (`.require(...)`, `.watch(file='/etc/x')`) add `{kind: [{mod: id}]}`, the
`ordered` option makes each state require the one before, `extend()` moves declarations under
`extend`, and a `_slsmod_<sls>` `stateconf.set` state is added last, as Salt adds it. What brine
does not do: include() renders nothing at once (the included files are listed in `include`, as
with `delayed=True`), and a state cannot be run while rendering (`state(...)()`).
"""

import uuid

REQUISITES = frozenset(
    "listen require watch prereq use listen_in require_in watch_in prereq_in use_in onchanges onfail".split()
)


class PyDslError(Exception):
    pass


class Options(dict):
    def __getattr__(self, name):
        return self.get(name)


class Sls:
    """One file's declarations: the object behind `state()`, `include()`, `extend()` and `__pydsl__`."""

    def __init__(self, name, saltenv):
        self.name = name
        self.saltenv = saltenv
        self.includes = []
        self.extends = []
        self.decls = []
        self.by_id = {}
        self.options = Options()
        self.funcs = []

    def set(self, **options):
        self.options.update(options)

    def include(self, *names, **kws):
        saltenv = kws.get("saltenv", self.saltenv)
        for name in names:
            self.includes.append((saltenv, name))

    def extend(self, *state_funcs):
        if self.options.ordered or self.funcs:
            raise PyDslError("Cannot extend() after the ordered option was turned on!")
        for func in state_funcs:
            state_id = func.mod.state_id
            decl = self.by_id.pop(state_id)
            self.decls.remove(decl)
            self.extends.append(decl)

    def state(self, id=None):
        # an anonymous state gets a unique ID with a leading dot (stateconf's namespace mark)
        id = id or ".%s" % uuid.uuid4()
        if id not in self.by_id:
            self.by_id[id] = decl = Declaration(self, id)
            self.decls.append(decl)
        return self.by_id[id]

    def high(self, module_repr):
        self.state("_slsmod_" + self.name).stateconf.set(slsmod=module_repr)
        data = {}
        if self.includes:
            data["include"] = [{env: name} for env, name in self.includes]
        if self.extends:
            data["extend"] = {d.id: d.data("extend") for d in self.extends}
        for decl in self.decls:
            data[decl.id] = decl.data()
        return data


class Declaration:
    """`state('id')`: its attributes are state modules (`.file`, `.pkg`), one function each."""

    def __init__(self, sls, id):
        self.sls = sls
        self.id = id
        self.mods = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        for mod in self.mods:
            if mod.name == name:
                return mod
        mod = Module(self.sls, name, self.id)
        self.mods.append(mod)
        return mod

    __getitem__ = __getattr__

    def __str__(self):
        return self.id

    def __call__(self, check=True):
        raise PyDslError("state(%r)() runs a state while rendering, which brine does not do: let the state run with the others" % self.id)

    def data(self, context=None):
        return {mod.name: mod.func.data(context, mod.name) for mod in self.mods}


class Module:
    """`state('id').file`: `.managed(...)` or `('managed', ...)` picks its function."""

    def __init__(self, sls, name, state_id):
        self.sls = sls
        self.name = name
        self.state_id = state_id
        self.func = None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if self.func is None:
            self.func = Function(self.sls, None if name in REQUISITES else name, self)
        elif name not in REQUISITES and name != self.func.name:
            if self.func.name:
                raise PyDslError("Multiple state functions(%s) not allowed in a state module(%s)!" % (name, self.name))
            self.func.name = name
            return self.func
        return getattr(self.func, name) if name in REQUISITES else self.func

    def __call__(self, _fname, *args, **kws):
        return getattr(self, _fname).configure(args, kws)

    def __str__(self):
        return self.name


class Function:
    def __init__(self, sls, name, mod):
        self.mod = mod
        self.name = name
        self.args = []
        if sls.options.ordered:
            if sls.funcs:
                self.require(sls.funcs[-1].mod)
            sls.funcs.append(self)

    def __call__(self, *args, **kws):
        return self.configure(args, kws)

    def configure(self, args, kws):
        args = list(args)
        if args:
            args[0] = {"name": args[0]}
        args.extend({k: v} for k, v in kws.items())
        self.args.extend(args)
        return self

    def reference(self, kind, mod, ref):
        if isinstance(mod, Module):
            ref = mod.state_id
        elif not (mod and ref):
            raise PyDslError("Invalid a requisite reference declaration! %s: %s" % (mod, ref))
        self.args.append({kind: [{str(mod): str(ref)}]})

    def data(self, context, mod_name):
        if not self.name:
            if context == "extend":
                return self.args
            raise PyDslError("No state function specified for module: %s" % mod_name)
        return [self.name] + self.args

    def __getattr__(self, kind):
        if kind not in REQUISITES:
            raise AttributeError(kind)

        def add(*mods, **refs):
            for mod in mods:
                self.reference(kind, mod, None)
            for mod, ref in refs.items():
                self.reference(kind, mod, ref)
            return self

        return add


def render(request, salt):
    """Runs the file as module `<sls>` with Salt's pydsl names; returns its high data."""
    import types

    sls = Sls(request["sls"], request["saltenv"])
    module = types.ModuleType(request["sls"])
    module.__dict__.update(
        {
            "__pydsl__": sls,
            "include": sls.include,
            "extend": sls.extend,
            "state": sls.state,
            "__salt__": salt,
            "__grains__": request["grains"],
            "__opts__": request["opts"],
            "__pillar__": request["pillar"],
            "__env__": request["saltenv"],
            "__sls__": request["sls"],
            "__file__": request["source"],
        }
    )
    exec(compile(request["text"], request["source"], "exec"), module.__dict__)
    return sls.high(repr(module))
