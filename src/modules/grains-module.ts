// The `grains` module: read the minion's grains (grains.items, grains.get, grains.item, grains.ls).

import type { ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';
import { traverseDictAndList } from './traverse.js';

export const grainsFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'grains.items',
    doc: 'Return all grains.',
    params: [],
    run: (ctx) => ({ ...ctx.grains() }),
  }),
  defineFunction({
    name: 'grains.get',
    doc: "Return one grain; nested values are reached with the delimiter, as in 'os_family' or 'ipv4:0'.",
    params: [
      { name: 'key', type: 'string', required: true, doc: 'the grain, with nested keys joined by the delimiter' },
      { name: 'default', type: 'any', default: '', doc: 'returned when the grain is missing' },
      { name: 'delimiter', type: 'string', default: ':', doc: 'separates nested keys' },
    ],
    run: (ctx, a) => traverseDictAndList(ctx.grains(), a.named.key, a.named.default, a.named.delimiter),
  }),
  defineFunction({
    name: 'grains.item',
    doc: 'Return the named grains as {name: value}; missing ones get the default.',
    params: [
      { name: 'default', type: 'any', default: '', keywordOnly: true, doc: 'value for missing grains' },
      { name: 'delimiter', type: 'string', default: ':', keywordOnly: true, doc: 'separates nested keys' },
    ],
    varargs: true,
    run: (ctx, a) => {
      const grains = ctx.grains();
      // fromEntries: a key named `__proto__` becomes a plain entry, not the object's prototype.
      return Object.fromEntries(
        a.rest.map((k) => {
          const key = String(k);
          return [key, traverseDictAndList(grains, key, a.named.default, a.named.delimiter)];
        }),
      );
    },
  }),
  defineFunction({
    name: 'grains.ls',
    doc: 'Return the names of all grains, sorted.',
    params: [],
    run: (ctx) => Object.keys(ctx.grains()).sort(),
  }),
];
