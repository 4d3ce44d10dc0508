"""salt.utils.json: the standard json module under Salt's names."""

import json as _json


def loads(s, **kwargs):
    return _json.loads(s, **kwargs)


def load(fp, **kwargs):
    return _json.load(fp, **kwargs)


def dumps(obj, **kwargs):
    return _json.dumps(obj, **kwargs)


def dump(obj, fp, **kwargs):
    return _json.dump(obj, fp, **kwargs)
