// Execution functions declared with defineFunction see `args.named` typed from their `params`.
// The expectType lines are checked by the compiler (before defineFunction, `named` was
// Record<string, unknown> and module code cast every argument); the run-time tests check that
// what bindArguments hands over really has the declared types, for every built-in function.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDefaultRegistry, defineFunction, defineParams, ModuleRegistry, type NamedArgs, type ParamSpec, type ParamType } from '../../../src/modules/index.js';
import { expectType, type Equal } from '../../helpers/type-equal.js';
import { makeCtx } from './context.js';

const DEMO_PARAMS = defineParams([
  { name: 'text', type: 'string', required: true },
  { name: 'anything', type: 'any', required: true },
  { name: 'count', type: 'int', default: 3 },
  { name: 'ratio', type: 'number' },
  { name: 'loud', type: 'bool', default: false },
  { name: 'items', type: 'list' },
  { name: 'env', type: 'map' },
  { name: 'sep', type: 'string', default: ':', keywordOnly: true },
]);

describe('defineFunction typing', () => {
  it('types each argument from its declared type; required and defaulted ones are always present', () => {
    expectType<
      Equal<NamedArgs<typeof DEMO_PARAMS>, { text: string; count: number; loud: boolean; anything: unknown; sep: string } & { ratio?: number; items?: unknown[]; env?: Record<string, unknown> }>
    >();
    const fn = defineFunction({
      name: 'demo.typed',
      doc: 'Check the inferred argument types.',
      params: [
        { name: 'host', type: 'string', required: true },
        { name: 'port', type: 'int', default: 22 },
        { name: 'family', type: 'string' },
      ],
      run: (_ctx, a) => {
        expectType<Equal<typeof a.named.host, string>>();
        expectType<Equal<typeof a.named.port, number>>();
        expectType<Equal<typeof a.named.family, string | undefined>>();
        // @ts-expect-error an undeclared parameter is not an argument
        void a.named.nope;
        return `${a.named.host}:${a.named.port}`;
      },
    });
    assert.equal(fn.params.length, 3);
  });
});

describe('defineFunction at run time', () => {
  const probe = defineFunction({
    name: 'demo.probe',
    doc: 'Return the bound arguments with their run-time types.',
    params: DEMO_PARAMS,
    run: (_ctx, a) => ({ named: a.named, types: Object.fromEntries(Object.entries(a.named).map(([k, v]) => [k, Array.isArray(v) ? 'list' : typeof v])) }),
  });

  it('hands over values of the declared types, also when the CLI sends them as text', async () => {
    const r = new ModuleRegistry();
    r.register(probe);
    const res = await r.call('demo.probe', [42, null, '7', '0.5', 'true', ['a'], { K: 'v' }], {}, makeCtx());
    assert.equal(res.retcode, 0, JSON.stringify(res.return));
    assert.deepEqual(res.return, {
      named: { text: '42', anything: null, count: 7, ratio: 0.5, loud: true, items: ['a'], env: { K: 'v' }, sep: ':' },
      types: { text: 'string', anything: 'object', count: 'number', ratio: 'number', loud: 'boolean', items: 'list', env: 'object', sep: 'string' },
    });
  });

  it('leaves an optional argument without default absent, and applies defaults', async () => {
    const r = new ModuleRegistry();
    r.register(probe);
    const res = await r.call('demo.probe', ['hi', 1], {}, makeCtx());
    assert.equal(res.retcode, 0, JSON.stringify(res.return));
    assert.deepEqual(res.return, {
      named: { text: 'hi', anything: 1, count: 3, loud: false, sep: ':' },
      types: { text: 'string', anything: 'number', count: 'number', loud: 'boolean', sep: 'string' },
    });
  });
});

/** What a bound value of each declared type looks like (the run-time side of ParamValue). */
const LOOKS_LIKE: Record<ParamType, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  int: (v) => Number.isSafeInteger(v),
  bool: (v) => typeof v === 'boolean',
  any: () => true,
  list: (v) => Array.isArray(v),
  map: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};

describe('built-in declarations', () => {
  it('every default of every built-in parameter has the type the parameter declares', () => {
    const registry = createDefaultRegistry();
    const wrong: string[] = [];
    for (const name of registry.list()) {
      for (const p of registry.get(name)!.params as readonly ParamSpec[]) {
        if (p.default !== undefined && !LOOKS_LIKE[p.type](p.default)) wrong.push(`${name}(${p.name}: ${p.type} = ${JSON.stringify(p.default)})`);
      }
    }
    // A default of another type would be typed as the declared type but arrive as something else.
    assert.deepEqual(wrong, []);
  });
});
