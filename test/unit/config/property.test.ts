import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { OPTIONS, loadConfig, type OptionSpec } from '../../../src/config/index.js';
import { configDir } from './helpers.js';

/** Values of an option's declared type (what the docs promise the loader accepts). */
function valueOf(spec: OptionSpec): fc.Arbitrary<unknown> {
  const str = spec.path || spec.nonEmpty ? fc.string({ minLength: 1 }) : fc.string();
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x));
  const base: fc.Arbitrary<unknown> = (() => {
    switch (spec.type) {
      case 'string': return str;
      case 'int': return fc.maxSafeInteger();
      case 'number': return fc.oneof(fc.integer(), finite);
      case 'bool': return fc.boolean();
      case 'list': return fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean()));
      case 'string_or_list': return fc.oneof(fc.string(), fc.array(fc.string(), { minLength: 1 }));
      case 'string_or_bool': return fc.oneof(fc.string(), fc.boolean());
      case 'map': return fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean()), { noNullPrototype: true });
      case 'enum': return fc.constantFrom(...(spec.values ?? []));
    }
  })();
  return spec.nullable ? fc.oneof(base, fc.constant(null)) : base;
}

const settable = OPTIONS.filter((o) => !o.derived);
const entry = fc.constantFrom(...settable).chain((spec) => fc.tuple(fc.constant(spec), valueOf(spec)));

test('any known option with a value of its declared type loads, and keeps that value', (t) => {
  const dir = configDir(t);
  fc.assert(
    fc.property(entry, ([spec, value]) => {
      writeFileSync(join(dir, spec.roles[0] ?? 'minion'), stringify({ [spec.name]: value }, { version: '1.1' }));
      const cfg = loadConfig(spec.roles[0] ?? 'minion', { configDir: dir, env: {} });
      assert.equal(cfg.sources[spec.name], join(dir, spec.roles[0] ?? 'minion'));
      // Paths move under root_dir and root_dir is made absolute; everything else is kept as written.
      if (!spec.path && spec.name !== 'root_dir') assert.deepEqual(cfg.opts[spec.name], value);
      else assert.ok(typeof cfg.opts[spec.name] === 'string' && (cfg.opts[spec.name] as string).startsWith('/'));
    }),
    { numRuns: 500 },
  );
});
