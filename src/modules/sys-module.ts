// The `sys` module: what this minion can run (sys.list_functions, sys.list_modules, sys.doc).
// It reads the registry it is registered in, so it is built from that registry.

import { formatSignature } from './bind-args.js';
import { globToRegExp, hasGlob } from './glob.js';
import type { ModuleRegistry } from './registry.js';
import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';

/**
 * Salt's selection rule: a pattern with a glob character or a dot is matched against whole
 * names (`test.p*`, `cmd.run`); a bare word selects a module (`test` → `test.*`).
 */
function select(names: readonly string[], patterns: readonly unknown[]): string[] {
  if (patterns.length === 0) return [...names];
  const picked = new Set<string>();
  for (const raw of patterns) {
    // Salt's sys.doc takes 'sys.' as the module sys (not a name ending in a dot)
    const p = String(raw).replace(/^([^.*?[]+)\.$/, '$1');
    if (hasGlob(p) || p.includes('.')) {
      const re = globToRegExp(p);
      for (const n of names) if (re.test(n)) picked.add(n);
    } else {
      for (const n of names) if (n.startsWith(`${p}.`)) picked.add(n);
    }
  }
  return [...picked].sort();
}

function moduleOf(name: string): string {
  return name.slice(0, name.indexOf('.'));
}

/** "signature\n\none-line doc", as sys.doc shows each function. */
export function describeFunction(fn: ModuleFunction): string {
  return `${formatSignature(fn)}\n\n${fn.doc}`;
}

export function sysFunctions(registry: ModuleRegistry): ModuleFunction[] {
  return [
    defineFunction({
      name: 'sys.list_functions',
      doc: "List the functions this minion offers, sorted; optionally only those of the given modules or globs ('test', 'cmd.run*').",
      params: [],
      varargs: true,
      run: (_ctx, a) => select(registry.list(), a.rest),
    }),
    defineFunction({
      name: 'sys.list_modules',
      doc: 'List the modules this minion offers, sorted; optionally only those matching the given globs.',
      params: [],
      varargs: true,
      run: (_ctx, a) => {
        const modules = [...new Set(registry.list().map(moduleOf))].sort();
        if (a.rest.length === 0) return modules;
        const res = a.rest.map((p) => globToRegExp(String(p)));
        return modules.filter((m) => res.some((re) => re.test(m)));
      },
    }),
    defineFunction({
      name: 'sys.doc',
      doc: "Show the signature and doc of functions: all, a module ('cmd'), a function ('cmd.run') or a glob.",
      params: [],
      varargs: true,
      run: (_ctx, a) => {
        const out = new Map<string, string>();
        for (const name of select(registry.list(), a.rest)) {
          const fn = registry.get(name);
          if (fn) out.set(name, describeFunction(fn));
        }
        return Object.fromEntries(out);
      },
    }),
  ];
}
