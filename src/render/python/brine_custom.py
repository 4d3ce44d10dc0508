"""A tree's own renderer (`_renderers/objects.py`, `<extension_modules>/renderers/`, render_dirs) for brine.

Loaded as Salt's loader loads a render module: a fresh module with the loader's names set on it
(`__salt__`, `__grains__`, `__pillar__`, `__opts__`, `__context__`, ...), then its
`render(data, saltenv, sls, **kwargs)` is called as salt/template.py's compile_template does:
text arrives as a StringIO (positioned at 0), data from an earlier stage as it is; kwargs hold
`renderers`, `tmplpath`, `rendered_sls` and `argline` when the shebang gave one.
"""

import importlib.util
import io
import sys


class RendererFailed(Exception):
    """Marks where the tree's renderer failed: `phase` is 'import' or 'render'."""


class NoOtherRenderers(dict):
    """The `renderers` keyword: brine does not hand a tree's renderer its other renderers."""

    def __missing__(self, name):
        raise KeyError("brine gives a tree's renderer no other renderers (asked for %r): render the text in the renderer itself" % (name,))


def load(request, salt):
    spec = request["custom"]
    module_name = "salt.loaded.ext.render." + spec["name"]
    loader_spec = importlib.util.spec_from_file_location(module_name, spec["module"])
    module = importlib.util.module_from_spec(loader_spec)
    # the loader's pack (salt/loader render()): set before the code runs, so module-level code sees them
    names = {
        "__salt__": salt,
        "__grains__": request["grains"],
        "__pillar__": request["pillar"],
        "__opts__": request["opts"],
        "__context__": {},
        "__proxy__": {},
        "__file_client__": None,
        "__env__": request["saltenv"],
        "__sls__": request["sls"],
    }
    module.__dict__.update(names)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except BaseException as exc:
        exc.brine_phase = "import"
        raise
    # Salt's loader skips a module whose __virtual__() answers False (or (False, reason))
    virtual = getattr(module, "__virtual__", None)
    answer = virtual() if callable(virtual) else True
    if answer is False or (isinstance(answer, tuple) and answer and answer[0] is False):
        reason = answer[1] if isinstance(answer, tuple) and len(answer) > 1 else "no reason given"
        exc = RuntimeError("%s: its __virtual__() refused to load it: %s" % (spec["module"], reason))
        exc.brine_phase = "import"
        raise exc
    render = getattr(module, "render", None)
    if not callable(render):
        exc = AttributeError("%s defines no render() function" % spec["module"])
        exc.brine_phase = "import"
        raise exc
    return render


def run(request, salt):
    """Runs the renderer; returns ('text', str) for text (a StringIO or str) or ('data', value)."""
    spec = request["custom"]
    render = load(request, salt)
    data = io.StringIO(spec["input"]["text"]) if "text" in spec["input"] else spec["input"]["data"]
    kwargs = {"renderers": NoOtherRenderers(), "tmplpath": request["source"], "rendered_sls": [request["sls"]]}
    if spec.get("argline"):
        kwargs["argline"] = spec["argline"]
    try:
        out = render(data, request["saltenv"], request["sls"], **kwargs)
    except BaseException as exc:
        exc.brine_phase = "render"
        raise
    if hasattr(out, "read") and callable(out.read):
        if hasattr(out, "seek"):
            out.seek(0)
        return "text", out.read()
    if isinstance(out, str):
        return "text", out
    return "data", out
