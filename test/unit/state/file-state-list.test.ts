// The file and archive state functions as the runtime and docs/states.md see them: registered
// once each, with a doc line, `name` first, and an example SLS that parses and uses the function.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { builtinStateFunctions } from '../../../src/state/index.js';

const MINE = [
  'archive.extracted',
  'file.absent',
  'file.append',
  'file.blockreplace',
  'file.copy',
  'file.directory',
  'file.line',
  'file.managed',
  'file.recurse',
  'file.replace',
  'file.symlink',
  'file.touch',
];

describe('file and archive state functions', () => {
  const byName = new Map(builtinStateFunctions.map((f) => [f.name, f]));

  it('are all registered, each once', () => {
    for (const name of MINE) assert.ok(byName.has(name), `${name} is not in builtinStateFunctions`);
    const names = builtinStateFunctions.map((f) => f.name);
    assert.equal(new Set(names).size, names.length);
  });

  it('each has a one-line doc, name as first parameter, and an example using it with declared arguments', () => {
    for (const name of MINE) {
      const fn = byName.get(name)!;
      assert.ok(fn.doc.length > 0 && !fn.doc.includes('\n'), `${name}: doc`);
      assert.equal(fn.params[0]?.name, 'name', `${name}: first parameter`);
      const sls = parse(fn.example) as Record<string, Record<string, unknown>>;
      const [id, body] = Object.entries(sls)[0]!;
      assert.ok(id.length > 0);
      const args = body[name];
      assert.ok(Array.isArray(args), `${name}: example must use ${name} with a list of arguments`);
      const declared = new Set(fn.params.map((p) => p.name));
      for (const arg of args as Record<string, unknown>[]) {
        for (const key of Object.keys(arg)) assert.ok(declared.has(key), `${name}: example uses undeclared argument ${key}`);
      }
    }
  });
});
