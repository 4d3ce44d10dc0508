// Nested lookup with a delimiter (`os:family`, `ipv4:0`), following Salt's
// traverse_dict_and_list: mappings by key, lists by index or by the first mapping holding it.

const INDEX = /^[+-]?\d+$/;

function ownValue(obj: object, key: string): { found: boolean; value?: unknown } {
  // Own properties only: `__proto__` or `constructor` must not reach Object.prototype.
  return Object.hasOwn(obj, key) ? { found: true, value: (obj as Record<string, unknown>)[key] } : { found: false };
}

function isMapping(x: unknown): x is object {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

export function traverseDictAndList(data: unknown, key: string, fallback: unknown, delimiter = ':'): unknown {
  let ptr = data;
  for (const part of delimiter === '' ? [key] : key.split(delimiter)) {
    if (Array.isArray(ptr)) {
      if (INDEX.test(part.trim())) {
        let idx = Number(part.trim());
        if (idx < 0) idx += ptr.length; // Python's negative indexing
        if (idx < 0 || idx >= ptr.length) return fallback;
        ptr = ptr[idx];
        continue;
      }
      const hit = ptr
        .filter(isMapping)
        .map((m) => ownValue(m, part))
        .find((r) => r.found);
      if (!hit) return fallback;
      ptr = hit.value;
    } else if (isMapping(ptr)) {
      const r = ownValue(ptr, part);
      if (!r.found) return fallback;
      ptr = r.value;
    } else {
      return fallback;
    }
  }
  return ptr;
}
