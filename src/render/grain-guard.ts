// Grains a minion sent, as a master-side template sees them (threats.md #45): grains are the
// minion's own claims, and a template renders them into YAML text, so a grain string holding a
// line break (`role: "web\n    - dbsecret"` in `- roles.{{ grains.get('role') }}`) would add list
// items or keys to the operator's top file or pillar SLS. The check is made where a template
// reads a grain, not when the master caches grains: a multi-line grain that no master-side
// template reads (an SSH host key, a motd) stays legal, and targeting still matches it.

import { BrineError } from '../util/errors.js';
import { printable } from '../util/printable.js';

/**
 * Characters that start a new YAML line or act as one: C0 controls except tab (a tab cannot end
 * a line, and config values such as `"a\tb"` are legitimate), DEL, C1 controls (U+0085 is a YAML
 * 1.1 line break) and the Unicode line and paragraph separators.
 */
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

const NAMES: Readonly<Record<string, string>> = { '\n': 'a newline', '\r': 'a carriage return', '\u0000': 'a NUL character' };

function describe(ch: string): string {
  return NAMES[ch] ?? `the control character U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function unsafe(minion: string, grain: string, what: string, ch: string): BrineError {
  return new BrineError(
    'GRAIN_UNSAFE',
    `minion ${minion}: grain ${grain} ${what} ${describe(ch)}; grains rendered on the master may not contain control characters (they could add keys or list items to the rendered YAML), so this render was refused. Fix the grain on minion ${minion} (its grains: configuration, grains file or custom grain module) and send it again (saltutil.refresh_grains or a minion restart), then run saltutil.refresh_pillar there`,
    { details: { minion, grain } },
  );
}

/** Longest grain path shown: a key may be as long as the grains bound allows. */
const MAX_SHOWN = 200;

/** Salt's grain path notation (`a:b:0`), printable and bounded whatever the keys hold. */
function grainPath(parts: readonly string[]): string {
  const p = parts.join(':');
  return printable(p.length > MAX_SHOWN ? `${p.slice(0, MAX_SHOWN)}...` : p);
}

export interface GrainGuardOptions {
  /** The minion whose grains these are, named in the error. */
  minion: string;
  /** Told each refused grain path and the error about to be thrown (the render reports it whole). */
  onRefused?: (grain: string, error: BrineError) => void;
}

/**
 * A read-only view of `grains` that throws GRAIN_UNSAFE when a template reads a string (a value,
 * at any depth, or a key while listing a mapping) holding a control character other than tab.
 * Everything else reads as the plain data: arrays stay arrays, mappings stay mappings.
 */
export function guardGrains(grains: Readonly<Record<string, unknown>>, opts: GrainGuardOptions): Record<string, unknown> {
  // one view per object keeps `grains.x is grains.x` true and bounds the allocations
  const views = new WeakMap<object, object>();

  const refuse = (parts: readonly string[], what: string, ch: string): never => {
    const grain = grainPath(parts);
    const error = unsafe(opts.minion, grain, what, ch);
    opts.onRefused?.(grain, error);
    throw error;
  };

  const readOnly = (): never => {
    throw new TypeError(`grains are read-only in templates the master renders (minion ${opts.minion}): keep the changed value in a variable ({% set %}) instead`);
  };

  const view = (value: unknown, parts: readonly string[]): unknown => {
    if (typeof value === 'string') {
      const bad = UNSAFE.exec(value);
      if (bad) refuse(parts, 'contains', bad[0]);
      return value;
    }
    if (typeof value !== 'object' || value === null) return value;
    const seen = views.get(value);
    if (seen) return seen;
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const v: unknown = Reflect.get(target, key, receiver);
        // inherited members (Array.prototype.map, length) and symbols are not grain data
        if (typeof key === 'symbol' || !Object.hasOwn(target, key)) return v;
        return view(v, [...parts, key]);
      },
      ownKeys(target) {
        const keys = Reflect.ownKeys(target);
        for (const k of keys) {
          if (typeof k !== 'string') continue;
          const bad = UNSAFE.exec(k);
          if (bad) refuse([...parts, k], 'has a key with', bad[0]);
        }
        return keys;
      },
      // the view is over the master's cache of the minion's grains: a template writing to it
      // would change them for targeting and for every later render
      set: readOnly,
      deleteProperty: readOnly,
      defineProperty: readOnly,
    });
    views.set(value, proxy);
    return proxy;
  };

  return view(grains, []) as Record<string, unknown>;
}
