"""salt.utils.yaml: PyYAML (Debian python3-yaml) under Salt's names; safe loading by default."""

try:
    import yaml as _yaml
except ImportError as exc:  # pragma: no cover - depends on the host
    raise ImportError("salt.utils.yaml needs PyYAML on the host that renders: apt-get install python3-yaml") from exc

YAMLError = _yaml.YAMLError


def safe_load(stream, Loader=None):
    return _yaml.safe_load(stream)


load = safe_load


def safe_dump(data, stream=None, **kwargs):
    kwargs.setdefault("default_flow_style", False)
    return _yaml.safe_dump(data, stream, **kwargs)


def dump(data, stream=None, **kwargs):
    kwargs.setdefault("default_flow_style", False)
    return _yaml.dump(data, stream, **kwargs)
