#!/usr/bin/env python3
# Renders a corpus of templates with Python Jinja2 configured the way Salt configures it
# (salt/utils/templates.py render_jinja_tmpl: SandboxedEnvironment, StrictUndefined unless
# allow_undefined, do + loopcontrols + Salt's serializer tags, Salt's filters and tests, the
# context as environment globals, the trailing newline re-added), so that the differential test
# compares brine's engine with Jinja2's. One process for the whole corpus: JSON on stdin
# ({"cases": [{name, source, template, context, files}]}), JSON on stdout ({name: {ok, output|error}}).
# The salt[...] functions are the same deterministic stubs the TypeScript side uses.

import base64
import copy
import fnmatch
import hashlib
import itertools
import json
import posixpath
import re
import shlex
import sys
import uuid
from collections import OrderedDict
from collections.abc import Hashable, Mapping

import jinja2
import jinja2.ext
import jinja2.sandbox
import yaml
from jinja2 import nodes
from jinja2.ext import Extension
from markupsafe import Markup


# --- Salt's YAML loader (salt.utils.yamlloader.SaltYamlSafeLoader) -------------------------
class SaltYamlSafeLoader(yaml.SafeLoader):
    def construct_mapping(self, node, deep=False):
        self.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in mapping:
                raise yaml.constructor.ConstructorError(None, None, f"Conflicting ID '{key}'", key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def construct_scalar(self, node):
        # Salt strips the leading zeros of an int before PyYAML reads it: 0755 is 755, not 493
        if node.tag == "tag:yaml.org,2002:int" and node.value != "0" and node.value.startswith("0") and not node.value.startswith(("0b", "0x")):
            node.value = node.value.lstrip("0") or "0"
        return super().construct_scalar(node)


SaltYamlSafeLoader.add_constructor("tag:yaml.org,2002:map", SaltYamlSafeLoader.construct_mapping)
SaltYamlSafeLoader.add_constructor("tag:yaml.org,2002:timestamp", SaltYamlSafeLoader.construct_scalar)


def yaml_load(text):
    return yaml.load(text, Loader=SaltYamlSafeLoader)


# --- salt.utils.data ------------------------------------------------------------------------
def traverse_dict_and_list(data, key, default=None, delimiter=":"):
    ptr = data
    if isinstance(key, str):
        key = key.split(delimiter)
    for each in key:
        if isinstance(ptr, list):
            embedded = [x for x in ptr if isinstance(x, dict) and each in x]
            if embedded:
                ptr = embedded[0][each]
                continue
            try:
                idx = int(each)
                ptr = ptr[idx]
            except (ValueError, IndexError):
                return default
        else:
            try:
                ptr = ptr[each]
            except (KeyError, TypeError):
                return default
    return ptr


def dictupdate(dest, upd):
    for key, val in upd.items():
        cur = dest.get(key)
        if isinstance(cur, Mapping) and isinstance(val, Mapping):
            dictupdate(cur, val)
        else:
            dest[key] = val
    return dest


def filter_by(lookup_dict, lookup, traverse, merge=None, default="default", base=None):
    ret = None
    val = traverse_dict_and_list(traverse, lookup, [])
    for each in val if isinstance(val, list) else [val]:
        for key in lookup_dict:
            test_key = key if isinstance(key, str) else str(key)
            test_each = each if isinstance(each, str) else str(each)
            if fnmatch.fnmatchcase(test_each, test_key):
                ret = lookup_dict[key]
                break
        if ret is not None:
            break
    if ret is None:
        ret = lookup_dict.get(default, None)
    if base and base in lookup_dict:
        base_values = lookup_dict[base]
        if ret is None:
            ret = base_values
        elif isinstance(base_values, Mapping):
            if not isinstance(ret, Mapping):
                raise Exception("filter_by default and look-up values must both be dictionaries.")
            ret = dictupdate(copy.deepcopy(base_values), ret)
    if merge:
        if not isinstance(merge, Mapping):
            raise Exception("filter_by merge argument must be a dictionary.")
        if ret is None:
            ret = merge
        else:
            dictupdate(ret, copy.deepcopy(merge))
    return ret


# --- the salt[...] dictionary with the test stubs -------------------------------------------
def stub_merge(a, b, merge_lists):
    # a stand-in for slsutil.merge (its real behaviour is the execution module's test):
    # dicts merged recursively, lists concatenated when merge_lists, else replaced
    out = copy.deepcopy(a)

    def rec(dest, upd):
        for key, val in upd.items():
            cur = dest.get(key)
            if isinstance(cur, dict) and isinstance(val, dict):
                rec(cur, val)
            elif merge_lists and isinstance(cur, list) and isinstance(val, list):
                dest[key] = cur + copy.deepcopy(val)
            else:
                dest[key] = copy.deepcopy(val)

    rec(out, b)
    return out


def stub_call(fun, args, kwargs):
    if fun == "test.echo":
        return args[0]
    if fun == "cmd.run":
        return "ran: " + args[0]
    if fun == "network.ip_addrs":
        return ["10.0.0.1", "10.0.0.2"]
    if fun == "test.kwargs":
        return {"args": list(args), "kwargs": kwargs}
    if fun == "test.lines":
        return "one\ntwo\nthree"
    if fun.startswith("log."):
        return None
    if fun == "slsutil.merge":
        return stub_merge(args[0], args[1], kwargs.get("merge_lists", False))
    raise Exception(f"'{fun}' is not available")


class SaltFuncs(dict):
    def __init__(self, grains, pillar, opts):
        super().__init__()
        self._grains, self._pillar, self._opts = grains, pillar, opts

    def _local(self, fun):
        if fun == "grains.get":
            return lambda key, default="", delimiter=":", **kw: traverse_dict_and_list(self._grains, key, default, delimiter)
        if fun == "pillar.get":

            def pillar_get(key, default="", merge=False, merge_nested_lists=None, delimiter=":", **kw):
                # salt/modules/pillar.py get()
                if merge:
                    if isinstance(default, dict):
                        ret = traverse_dict_and_list(self._pillar, key, {}, delimiter)
                        if isinstance(ret, Mapping):
                            return dictupdate(copy.deepcopy(default), copy.deepcopy(ret))
                    elif isinstance(default, list):
                        ret = traverse_dict_and_list(self._pillar, key, [], delimiter)
                        if isinstance(ret, list):
                            default = copy.deepcopy(default)
                            default.extend([x for x in ret if x not in default])
                            return default
                return traverse_dict_and_list(self._pillar, key, default, delimiter)

            return pillar_get
        if fun == "config.get":

            def config_get(key, default="", delimiter=":", **kw):
                for src in (self._opts, self._grains, self._pillar):
                    v = traverse_dict_and_list(src, key, "__missing__", delimiter)
                    if v != "__missing__":
                        return v
                return default

            return config_get
        if fun == "grains.filter_by":
            return lambda lookup_dict, grain="os_family", merge=None, default="default", base=None: filter_by(lookup_dict, grain, self._grains, merge, default, base)
        return lambda *a, **k: stub_call(fun, a, k)

    def __getitem__(self, fun):
        # salt/renderers/jinja.py _split_module_dicts: salt['mod'] is the module's `lambda: None`
        if "." not in fun:
            return getattr(self, fun)
        return self._local(fun)

    def __contains__(self, fun):
        return True

    def __getattr__(self, mod):
        if mod.startswith("_"):
            raise AttributeError(mod)
        outer = self

        class Mod:
            def __call__(self):
                return None

            def __getattr__(self, fun):
                return outer._local(f"{mod}.{fun}")

        return Mod()


# --- Salt's filters and tests (salt/utils/jinja.py and salt.utils.*) ------------------------
def regex_flags(ignorecase, multiline):
    return (re.I if ignorecase else 0) | (re.M if multiline else 0)


class SafeOrderedDumper(yaml.SafeDumper):
    # salt.utils.yamldumper.SafeOrderedDumper: an OrderedDict is written in its own order
    pass


SafeOrderedDumper.add_representer(OrderedDict, lambda dumper, data: dumper.represent_dict(list(data.items())))


def format_yaml(value, flow_style=True):
    txt = yaml.dump(value, Dumper=SafeOrderedDumper, default_flow_style=flow_style, allow_unicode=True).strip()
    if txt.endswith("\n..."):
        txt = txt[: len(txt) - 4]
    return Markup(txt)


def yaml_dquote(text):
    import io

    with io.StringIO() as ostream:
        emitter = yaml.emitter.Emitter(ostream, width=float("inf"))
        emitter.write_double_quoted(str(text))
        return ostream.getvalue()


def yaml_squote(text):
    import io

    with io.StringIO() as ostream:
        emitter = yaml.emitter.Emitter(ostream, width=float("inf"))
        emitter.write_single_quoted(str(text))
        return ostream.getvalue()


def yaml_encode(data):
    node = yaml.representer.SafeRepresenter().represent_data(data)
    if not isinstance(node, yaml.ScalarNode):
        raise TypeError("yaml_encode() only works with YAML scalar data")
    tag = node.tag.rsplit(":", 1)[-1]
    ret = node.value
    if tag == "str":
        ret = yaml_dquote(node.value)
    return Markup(ret)


def tojson(val, indent=None, **options):
    options.setdefault("ensure_ascii", True)
    if indent is not None:
        options["indent"] = indent
    return Markup(json.dumps(val, **options).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027"))


def unique(values):
    ret = None
    if isinstance(values, Hashable):
        ret = set(values)
    else:
        ret = []
        for value in values:
            if value not in ret:
                ret.append(value)
    return ret


def union(lst1, lst2):
    if isinstance(lst1, Hashable) and isinstance(lst2, Hashable):
        return set(lst1) | set(lst2)
    return unique(lst1 + lst2)


def intersect(lst1, lst2):
    if isinstance(lst1, Hashable) and isinstance(lst2, Hashable):
        return set(lst1) & set(lst2)
    return unique([ele for ele in lst1 if ele in lst2])


def difference(lst1, lst2):
    if isinstance(lst1, Hashable) and isinstance(lst2, Hashable):
        return set(lst1) - set(lst2)
    return unique([ele for ele in lst1 if ele not in lst2])


def symmetric_difference(lst1, lst2):
    if isinstance(lst1, Hashable) and isinstance(lst2, Hashable):
        return set(lst1) ^ set(lst2)
    return unique([ele for ele in union(lst1, lst2) if ele not in intersect(lst1, lst2)])


def avg(lst):
    if not isinstance(lst, Hashable):
        return float(sum(lst) / len(lst))
    return float(lst)


def regex_search(txt, rgx, ignorecase=False, multiline=False):
    obj = re.search(rgx, txt, regex_flags(ignorecase, multiline))
    return obj.groups() if obj else None


def regex_match(txt, rgx, ignorecase=False, multiline=False):
    obj = re.match(rgx, txt, regex_flags(ignorecase, multiline))
    return obj.groups() if obj else None


def to_bool(val):
    if val is None:
        return False
    if isinstance(val, bool):
        return val
    if isinstance(val, str):
        return val.lower() in ("yes", "1", "true")
    if isinstance(val, int):
        return val > 0
    if not isinstance(val, Hashable):
        return len(val) > 0
    return False


def path_join(*parts, **kwargs):
    # salt.utils.path.join (the path_join filter) on POSIX
    import posixpath

    kwargs.pop("use_posixpath", None)
    if kwargs:
        raise TypeError("The following keyword arguments are not valid: " + ", ".join(kwargs))
    parts = [posixpath.normpath(str(p)) for p in parts]
    if not parts:
        return ""
    root = parts.pop(0)
    if not parts:
        ret = root
    else:
        ret = posixpath.join(root, *[p.lstrip("/") for p in parts])
    return posixpath.normpath(ret)


def to_num(text):
    # salt.utils.data.to_num
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def is_iter(thing, ignore=(str,)):
    # salt.utils.data.is_iter
    if ignore and isinstance(thing, ignore):
        return False
    try:
        iter(thing)
        return True
    except TypeError:
        return False


def ip_text(ip, version):
    # salt.utils.network._is_ipv without options: str() of the address or interface of that version, else None
    import ipaddress
    try:
        obj = ipaddress.ip_address(ip)
    except ValueError:
        try:
            obj = ipaddress.ip_interface(ip)
        except ValueError:
            return None
    return str(obj) if obj.version == version else None


def is_ipv(ip, version):
    # salt.utils.network._is_ipv without options, as a test: an address or interface of that version
    return ip_text(ip, version) is not None


def ipv_filter(value, version):
    # salt.utils.network._ipv_filter
    if isinstance(value, (str, bytes)):
        return ip_text(value, version)
    if isinstance(value, (list, tuple)):
        return [ip_text(a, version) for a in value if ip_text(a, version) is not None]
    return None


def ipaddr_filter(value):
    v4, v6 = ipv_filter(value, 4), ipv_filter(value, 6)
    if v4 is None or v6 is None:
        return v4 or v6
    return v4 + v6


SALT_FILTERS = {
    "ipv4": lambda v: ipv_filter(v, 4),
    "ipv6": lambda v: ipv_filter(v, 6),
    "ipaddr": ipaddr_filter,
    "is_ip": lambda ip: is_ipv(ip, 4) or is_ipv(ip, 6),
    "is_ipv4": lambda ip: is_ipv(ip, 4),
    "is_ipv6": lambda ip: is_ipv(ip, 6),
    "is_list": lambda v: isinstance(v, list),
    "is_iter": is_iter,
    "to_num": to_num,
    "sorted_ignorecase": lambda v: sorted(v, key=lambda x: x.lower()),
    "path_join": path_join,
    "json": lambda v, sort_keys=True, indent=None: Markup(json.dumps(v, sort_keys=sort_keys, indent=indent).strip()),
    "tojson": tojson,
    "yaml": format_yaml,
    "yaml_encode": yaml_encode,
    "yaml_dquote": yaml_dquote,
    "yaml_squote": yaml_squote,
    "regex_replace": lambda txt, rgx, val, ignorecase=False, multiline=False: re.sub(rgx, val, txt, flags=regex_flags(ignorecase, multiline)),
    "regex_search": regex_search,
    "regex_match": regex_match,
    "regex_escape": lambda v: re.escape(v),
    "traverse": lambda data, key, default=None, delimiter=":": traverse_dict_and_list(data, key, default, delimiter),
    "unique": unique,
    "sequence": lambda data: data if isinstance(data, (list, tuple, set, dict)) else [data],
    "min": lambda obj: min(obj),
    "max": lambda obj: max(obj),
    "avg": avg,
    "union": union,
    "intersect": intersect,
    "difference": difference,
    "symmetric_difference": symmetric_difference,
    "skip": lambda data: "",
    "uuid": lambda val: str(uuid.uuid5(uuid.UUID("91633EBF-1C86-5E33-935A-28061F4B480E"), str(val))),
    "to_bool": to_bool,
    "load_yaml": lambda v: yaml_load(str(v)),
    "load_json": lambda v: json.loads(str(v)),
    "load_text": lambda v: str(v),
    "md5": lambda v: hashlib.md5(str(v).encode()).hexdigest(),
    "sha1": lambda v: hashlib.sha1(str(v).encode()).hexdigest(),
    "sha256": lambda v: hashlib.sha256(str(v).encode()).hexdigest(),
    "sha512": lambda v: hashlib.sha512(str(v).encode()).hexdigest(),
    "base64_encode": lambda v: base64.b64encode(str(v).encode()).decode(),
    "base64_decode": lambda v: base64.b64decode(str(v).encode()).decode(),
    "quote": lambda v: shlex.quote(str(v)),
    "zip": lambda *iterables: zip(*iterables),
    "zip_longest": lambda *iterables, fillvalue=None: itertools.zip_longest(*iterables, fillvalue=fillvalue),
}


def test_match(txt, rgx, ignorecase=False, multiline=False):
    return bool(re.match(rgx, txt, regex_flags(ignorecase, multiline)))


SALT_TESTS = {"match": test_match, "equalto": lambda a, b: a == b, "list": lambda v: isinstance(v, list)}


# --- Salt's SerializerExtension tags --------------------------------------------------------
class SerializerExtension(Extension):
    tags = {"load_yaml", "load_json", "load_text", "import_yaml", "import_json", "import_text"}

    def parse(self, parser):
        kind = parser.stream.current.value
        if kind.startswith("import"):
            return self._parse_import(parser, kind.split("_")[1])
        return self._parse_load(parser, kind.split("_")[1])

    def _parse_load(self, parser, converter):
        parser.stream.skip()
        lineno = parser.stream.current.lineno
        parser.stream.expect("name:as")
        target = parser.parse_assign_target()
        macro_name = "_" + parser.free_identifier().name
        macro_body = parser.parse_statements(("name:endload",), drop_needle=True)
        return [
            nodes.Macro(macro_name, [], [], macro_body).set_lineno(lineno),
            nodes.Assign(
                target,
                nodes.Filter(nodes.Call(nodes.Name(macro_name, "load").set_lineno(lineno), [], [], None, None).set_lineno(lineno), "load_" + converter, [], [], None, None).set_lineno(lineno),
            ).set_lineno(lineno),
        ]

    def _parse_import(self, parser, converter):
        import_node = parser.parse_import()
        target = import_node.target
        lineno = import_node.lineno
        return [
            import_node,
            nodes.Assign(nodes.Name(target, "store").set_lineno(lineno), nodes.Filter(nodes.Name(target, "load").set_lineno(lineno), "load_" + converter, [], [], None, None).set_lineno(lineno)).set_lineno(lineno),
        ]


# --- the loader: SaltCacheLoader.get_source's rules (Salt 3007) -----------------------------
# A plain name is root-relative; ./ and ../ are relative to the globals' tpldir, which every load
# by a plain name sets (before the file is read) to that template's directory.
class CorpusLoader(jinja2.BaseLoader):
    def __init__(self, files):
        self.files = files

    def get_source(self, environment, template):
        name = template[len("salt://") :] if template.startswith("salt://") else template
        is_relative = name.split("/", 1)[0] in (".", "..")
        if is_relative:
            name = posixpath.normpath(environment.globals.get("tpldir", ".") + "/" + name)
            if name.split("/", 1)[0] == "..":
                raise jinja2.TemplateNotFound(template)
        else:
            tpldir = posixpath.dirname(name)
            environment.globals["tpldir"] = "." if tpldir == "" else tpldir
        if name not in self.files:
            raise jinja2.TemplateNotFound(template)
        return self.files[name], name, lambda: True


class PrintableDict(dict):
    # salt.utils.jinja.PrintableDict: what Salt's SerializerExtension finalizer prints for a dict
    def __str__(self):
        out = []
        for key, value in self.items():
            if isinstance(value, str):
                out.append("{0!r}: {1!r}".format(key, value))
            else:
                out.append("{0!r}: {1!s}".format(key, value))
        return "{" + ", ".join(out) + "}"

    def __repr__(self):
        return "{" + ", ".join("{0!r}: {1!r}".format(k, v) for k, v in self.items()) + "}"


def finalize(data):
    def explore(data):
        if isinstance(data, dict):
            return PrintableDict([(key, explore(value)) for key, value in data.items()])
        if isinstance(data, (list, tuple, set)):
            return data.__class__([explore(value) for value in data])
        return data

    return explore(data)


def render(case):
    ctx = dict(case["context"])
    grains, pillar, opts = ctx.get("grains", {}), ctx.get("pillar", {}), ctx.get("opts", {})
    ctx.setdefault("saltenv", "base")
    ctx.setdefault("grains", grains)
    ctx.setdefault("pillar", pillar)
    ctx.setdefault("opts", opts)
    ctx["salt"] = SaltFuncs(grains, pillar, opts)
    args = {"extensions": ["jinja2.ext.do", "jinja2.ext.loopcontrols", SerializerExtension], "loader": CorpusLoader(case.get("files", {}))}
    if not opts.get("allow_undefined", False):
        args["undefined"] = jinja2.StrictUndefined
    args["finalize"] = finalize
    env = jinja2.sandbox.SandboxedEnvironment(**args)
    env.tests.update(SALT_TESTS)
    env.filters.update(SALT_FILTERS)
    env.globals["odict"] = OrderedDict
    env.globals["raise"] = lambda msg: (_ for _ in ()).throw(jinja2.exceptions.TemplateError(msg))
    env.globals.update(ctx)
    src = case["template"]
    newline = "\n" if src.endswith("\n") else ""
    out = env.from_string(src).render(**ctx)
    return out + newline


def main():
    cases = json.load(sys.stdin)["cases"]
    results = {}
    for case in cases:
        try:
            results[case["name"]] = {"ok": True, "output": render(case)}
        except Exception as exc:  # noqa: BLE001 - every failure is a result to compare
            results[case["name"]] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
