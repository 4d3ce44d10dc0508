"""salt.utils.dictupdate: recursive dictionary updates and merges, as Salt documents them.

update() changes `dest` in place (nested mappings are merged key by key, lists replaced unless
merge_lists); merge() leaves its inputs alone and picks a strategy: smart (recurse, or aggregate
for a yamlex renderer), recurse, list, overwrite, aggregate (brine: as recurse), none.
"""

import copy
import logging
from collections.abc import Mapping

log = logging.getLogger(__name__)


def update(dest, upd, recursive_update=True, merge_lists=False):
    if not isinstance(dest, Mapping) or not isinstance(upd, Mapping):
        raise TypeError("Cannot update using non-dict types in dictupdate.update()")
    # no key in common: a plain update (Salt's shortcut, same result)
    if recursive_update and set(dest) & set(upd):
        for key, val in upd.items():
            current = dest.get(key)
            if isinstance(current, Mapping) and isinstance(val, Mapping):
                dest[key] = update(current, val, merge_lists=merge_lists)
            elif merge_lists and isinstance(current, list) and isinstance(val, list):
                merged = copy.deepcopy(current)
                merged.extend(x for x in val if x not in merged)
                dest[key] = merged
            else:
                dest[key] = val
        return dest
    for key in upd:
        dest[key] = upd[key]
    return dest


def merge_list(obj_a, obj_b):
    ret = {}
    for key, val in obj_a.items():
        ret[key] = [val, obj_b[key]] if key in obj_b else val
    return ret


def merge_recurse(obj_a, obj_b, merge_lists=False):
    return update(copy.deepcopy(obj_a), obj_b, merge_lists=merge_lists)


def merge_aggregate(obj_a, obj_b):
    # Salt aggregates yamlex's !aggregate values; brine has no yamlex, so this recurses
    return merge_recurse(obj_a, obj_b)


def merge_overwrite(obj_a, obj_b, merge_lists=False):
    for key in obj_b:
        if key in obj_a:
            obj_a[key] = obj_b[key]
    return merge_recurse(obj_a, obj_b, merge_lists=merge_lists)


def merge(obj_a, obj_b, strategy="smart", renderer="yaml", merge_lists=False):
    if strategy == "smart":
        strategy = "aggregate" if renderer.split("|")[-1] == "yamlex" or renderer.startswith("yamlex_") else "recurse"
    if strategy == "list":
        return merge_list(obj_a, obj_b)
    if strategy == "recurse":
        return merge_recurse(obj_a, obj_b, merge_lists)
    if strategy == "aggregate":
        return merge_aggregate(obj_a, obj_b)
    if strategy == "overwrite":
        return merge_overwrite(obj_a, obj_b, merge_lists)
    if strategy == "none":
        return merge_recurse(obj_a, obj_b)
    log.warning("Unknown merging strategy '%s', fallback to recurse", strategy)
    return obj_b


def ensure_dict_key(in_dict, keys, delimiter=":", ordered_dict=False):
    """Makes the nested mappings that `keys` ('a:b:c') names exist; returns in_dict."""
    current = in_dict
    for key in keys.split(delimiter) if delimiter in keys else [keys]:
        current = current.setdefault(key, {})
    return in_dict


def set_dict_key_value(in_dict, keys, value, delimiter=":", ordered_dict=False):
    parts = keys.split(delimiter)
    if len(parts) > 1:
        ensure_dict_key(in_dict, delimiter.join(parts[:-1]), delimiter=delimiter)
    current = in_dict
    for key in parts[:-1]:
        current = current[key]
    current[parts[-1]] = value
    return in_dict
