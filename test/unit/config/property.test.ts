import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { OPTIONS, loadConfig, resolveTrees, type OptionSpec } from '../../../src/config/index.js';
import { configDir } from './helpers.js';

/** Values of an option's declared type (what the docs promise the loader accepts). */
function arbitraryFor(spec: OptionSpec): fc.Arbitrary<unknown> {
  const str = spec.path || spec.nonEmpty ? fc.string({ minLength: 1 }) : fc.string();
  const finite = fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x));
  const base: fc.Arbitrary<unknown> = (() => {
    switch (spec.type) {
      case 'string':
        return str;
      case 'int':
        return fc.maxSafeInteger();
      case 'number':
        return fc.oneof(fc.integer(), finite);
      case 'bool':
        return fc.boolean();
      case 'list':
        return fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean()));
      case 'string_or_list':
        return fc.oneof(fc.string(), fc.array(fc.string(), { minLength: 1 }));
      case 'string_or_bool':
        return fc.oneof(fc.string(), fc.boolean());
      case 'map':
        return fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean()), { noNullPrototype: true });
      case 'enum':
        return fc.constantFrom(...(spec.values ?? []));
    }
  })();
  const ranged = spec.min === undefined ? base : base.filter((v) => typeof v !== 'number' || (spec.minExclusive ? v > spec.min! : v >= spec.min!));
  // options related to another one must keep the relation with that one's default
  const related = RELATED.get(spec.name);
  const kept = related ? ranged.filter((v) => typeof v !== 'number' || related(v)) : ranged;
  return spec.nullable ? fc.oneof(kept, fc.constant(null)) : kept;
}

const RELATED = new Map<string, (v: number) => boolean>([
  ['heartbeat_interval', (v) => v < 30],
  ['heartbeat_timeout', (v) => v > 10],
  ['recon_default', (v) => v <= 10000],
  ['recon_max', (v) => v >= 1000],
]);

const settable = OPTIONS.filter((o) => !o.derived);
const entry = fc.constantFrom(...settable).chain((spec) => fc.tuple(fc.constant(spec), arbitraryFor(spec)));

test('any known option with a value of its declared type loads, and keeps that value', (t) => {
  const dir = configDir(t);
  fc.assert(
    fc.property(entry, ([spec, value]) => {
      writeFileSync(join(dir, spec.roles[0] ?? 'minion'), stringify({ [spec.name]: value }, { version: '1.1' }));
      const cfg = loadConfig(spec.roles[0] ?? 'minion', { configDir: dir, env: {} });
      assert.equal(cfg.sources[spec.name], join(dir, spec.roles[0] ?? 'minion'));
      // Paths move under root_dir and root_dir is made absolute; relative tree directories are taken
      // under root_dir (/ here); everything else (a nullable path's null too) is kept as written.
      if (spec.trees) assert.deepEqual(cfg.opts[spec.name], resolveTrees('/', value as Record<string, unknown>));
      else if ((!spec.path && spec.name !== 'root_dir') || value === null) assert.deepEqual(cfg.opts[spec.name], value);
      else assert.ok(typeof cfg.opts[spec.name] === 'string' && (cfg.opts[spec.name] as string).startsWith('/'));
    }),
    { numRuns: 500 },
  );
});

test('values below an option minimum and broken relations are refused with CONFIG_VALUE', (t) => {
  const dir = configDir(t);
  const refused = (role: 'master' | 'minion', text: string, pattern: RegExp) => {
    writeFileSync(join(dir, role), text);
    assert.throws(
      () => loadConfig(role, { configDir: dir, env: {} }),
      (err: Error & { code?: string }) => err.code === 'CONFIG_VALUE' && pattern.test(err.message),
    );
  };
  refused('minion', 'heartbeat_interval: 0\n', /heartbeat_interval.*greater than 0/);
  refused('minion', 'return_queue_max: 0\n', /return_queue_max.*at least 1/);
  refused('minion', 'heartbeat_interval: 20\nheartbeat_timeout: 15\n', /heartbeat_timeout.*must be longer than heartbeat_interval/);
  refused('minion', 'recon_default: 5000\nrecon_max: 100\n', /recon_max.*at least recon_default/);
  refused('master', 'ret_port: -1\n', /ret_port/);
});
