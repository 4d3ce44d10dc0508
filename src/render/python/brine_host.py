"""brine's host for Salt's Python renderers (#!py, #!pyobjects, #!pydsl): runs one SLS file's Python code.

brine (src/render/python/python-process.ts) starts `python3 brine_host.py`, writes one JSON line (the
request), and reads JSON lines back on this process's original stdout: `call` and `load` ask
brine for an execution function's return or a file of the tree (brine answers each with one
line on stdin), then one `done` (the high data) or `error` ends the render. The SLS file's own
prints go to stderr and its reads of stdin see nothing, so it can never forge or steal a line.
"""

import json
import os
import sys
import traceback

# brine's stand-in `salt` package (salt_shim/salt: salt.utils.pyobjects, salt.fileclient, ...) and
# the renderer helpers beside this file; isolated mode (-I) keeps any installed Salt off the path
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(_HERE, "salt_shim"), _HERE]

from salt import _brine  # noqa: E402
from salt.exceptions import CommandExecutionError as SaltCommandExecutionError  # noqa: E402

# the protocol's channels are the original stdin and stdout, on private descriptors (not inherited
# by processes the file starts): the file's prints go to stderr, and its reads of stdin (input(),
# a subprocess reading fd 0) see an empty /dev/null instead of brine's answers
_PROTO_IN = os.fdopen(os.dup(0), "r", encoding="utf-8")
_PROTO_OUT = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
_NULL = os.open(os.devnull, os.O_RDONLY)
os.dup2(_NULL, 0)
os.close(_NULL)
sys.stdin = open(os.devnull, encoding="utf-8")


class CommandExecutionError(SaltCommandExecutionError):
    """An execution function brine ran for the file failed: Salt's exception, with brine's code."""

    def __init__(self, code, message):
        super().__init__(message, brine_code=code)


def _encode(value):
    # sets and tuples are lists in Salt's YAML output of the same data; anything else is refused
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError("a value of type %s cannot be SLS data" % type(value).__name__)


def send(message):
    _PROTO_OUT.write(json.dumps(message, default=_encode, allow_nan=False) + "\n")
    _PROTO_OUT.flush()


def receive():
    line = _PROTO_IN.readline()
    if not line:
        # brine went away (the render timed out or was cancelled)
        os._exit(3)
    return json.loads(line)


def ask(message):
    send(message)
    reply = receive()
    if "error" in reply:
        raise CommandExecutionError(reply["error"].get("code", "EXEC_FAILED"), reply["error"].get("message", ""))
    return reply.get("return")


def call(fun, args, kwargs):
    return ask({"op": "call", "fun": fun, "args": list(args), "kwargs": kwargs})


class _Module:
    """`salt.cmd` in `salt.cmd.run(...)`: its attributes are the module's functions."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, fun):
        if fun.startswith("__"):
            raise AttributeError(fun)
        return _function("%s.%s" % (self._name, fun))


def _function(name):
    def run(*args, **kwargs):
        return call(name, args, kwargs)

    run.__name__ = name
    return run


class SaltFunctions:
    """`__salt__`: `__salt__['mod.fun'](...)` and `__salt__.mod.fun(...)` run brine's functions."""

    def __getitem__(self, name):
        if not isinstance(name, str) or "." not in name:
            raise KeyError(name)
        return _function(name)

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name):
        # whether brine has the function is known when it is called: it answers UNKNOWN_FUNCTION
        return isinstance(name, str) and "." in name

    def __getattr__(self, mod):
        if mod.startswith("__"):
            raise AttributeError(mod)
        return _Module(mod)


def salt_globals(request, salt):
    """The names Salt's py renderer sets on the module (salt/renderers/py.py and templates.py)."""
    saltenv = request["saltenv"]
    names = {
        "__salt__": salt,
        "salt": salt,
        "__grains__": request["grains"],
        "grains": request["grains"],
        "__opts__": request["opts"],
        "opts": request["opts"],
        "__pillar__": request["pillar"],
        "pillar": request["pillar"],
        "__env__": saltenv,
        "saltenv": saltenv,
        "__sls__": request["sls"],
        "sls": request["sls"],
        "tmplpath": request["source"],
    }
    return names


def where(exc, filename):
    """The line of `filename` the exception was raised at: the traceback's last frame in that file."""
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        return exc.lineno or 0
    # a pyobjects `from salt://... import` line that failed before the file ran
    line = getattr(exc, "brine_line", 0)
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno or 0
    return line


def missing_salt_module(exc):
    """The salt module an import asked for that brine's shim does not have, else None.

    Python names the first missing package (`salt.modules` for `import salt.modules.network`);
    the importing line, when its text is known, gives the whole name."""
    name = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if not isinstance(name, str) or not (name == "salt" or name.startswith("salt.")):
        return None
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<frozen")]
    line = (frames[-1].line or "") if frames else ""
    for word in line.replace(",", " ").split():
        if word == name or word.startswith(name + "."):
            return word
    return name


def importer(exc):
    """`file:line` of the code whose import failed: the traceback's last frame outside importlib."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<frozen")]
    return "%s:%s" % (frames[-1].filename, frames[-1].lineno) if frames else None


def tree_traceback(exc):
    """The traceback without brine's own frames (this host, its renderers, the shim): the tree's code only."""
    summary = traceback.TracebackException.from_exception(exc)
    summary.stack = traceback.StackSummary.from_list([f for f in summary.stack if not f.filename.startswith(_HERE + os.sep)])
    return "".join(summary.format())[-4000:]


def report(exc, filename):
    message = str(exc)
    if isinstance(exc, SyntaxError):
        message = exc.msg
    send(
        {
            "op": "error",
            "type": type(exc).__name__,
            "message": message,
            "line": where(exc, filename),
            "code": getattr(exc, "brine_code", None),
            "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:],
            "phase": getattr(exc, "brine_phase", None),
            "treeTraceback": tree_traceback(exc),
            "missingModule": missing_salt_module(exc),
            "importer": importer(exc) if missing_salt_module(exc) else None,
        }
    )


def render_py(request, salt):
    """#!py: exec the file as module `name`, set Salt's names on it, return what run() returns."""
    import types

    filename = request["source"]
    name = os.path.basename(request["path"]).split(".")[0] or "sls"
    module = types.ModuleType(name)
    module.__file__ = filename
    sys.modules[name] = module
    exec(compile(request["text"], filename, "exec"), module.__dict__)
    for key, value in salt_globals(request, salt).items():
        setattr(module, key, value)
    # a `template: py` file template: Salt's templates.py sets each template variable on the module too
    for key, value in request.get("variables", {}).items():
        setattr(module, key, value)
    run = getattr(module, "run", None)
    if not callable(run):
        raise AttributeError("module '%s' has no attribute 'run': a #!py file defines run() and returns the data" % name)
    data = run()
    # a file template's run() returns the file's text; Salt writes str() of whatever it returns
    return data if not request.get("textResult") or isinstance(data, str) else str(data)


def main():
    request = json.loads(_PROTO_IN.readline())
    salt = SaltFunctions()
    _brine.ask = ask
    _brine.salt = salt
    _brine.grains = request["grains"]
    _brine.opts = request["opts"]
    _brine.saltenv = request["saltenv"]
    try:
        if "custom" in request:
            import brine_custom

            kind, out = brine_custom.run(request, salt)
            _brine.cleanup()
            send({"op": "done", "data": out, "text": kind == "text"})
            return
        if request["renderer"] == "pyobjects":
            import brine_pyobjects

            data = brine_pyobjects.render(request, salt, salt_globals(request, salt), ask)
        elif request["renderer"] == "pydsl":
            import brine_pydsl

            data = brine_pydsl.render(request, salt)
        else:
            data = render_py(request, salt)
        _brine.cleanup()
        send({"op": "done", "data": data})
    except BaseException as exc:  # a render ends in a report whatever the file raised (SystemExit too)
        _brine.cleanup()
        try:
            report(exc, request["source"])
        except BaseException as again:
            send({"op": "error", "type": type(again).__name__, "message": str(again), "line": 0, "code": None, "traceback": ""})


if __name__ == "__main__":
    main()
