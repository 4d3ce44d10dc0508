// Issue 21 point 5 (threats.md #44): target patterns with catastrophic backtracking. Every pcre,
// grain_pcre, pillar_pcre and glob target runs on a linear-time engine, so these patterns give the
// right answer on 50,000-character values (V8's RegExp needs longer than the age of the universe
// for the first one; these tests would hang on it). Lookaround and backreferences, which a
// linear engine cannot run, are refused with a coded error that says why; ordinary patterns keep
// Python re.match semantics.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchTarget, minionMatches, type Grains, type TargetType } from '../../../src/targeting/index.js';
import { execFileSync } from 'node:child_process';
import { compileLinearGlob, compileLinearRegex, MAX_PATTERN_WEIGHT, MAX_PROGRAM_SIZE } from '../../../src/targeting/linear-regex.js';
import { globToRegExpSource, RE2_GLOB } from '../../../src/util/glob.js';
import { patternWeight } from '../../../src/targeting/pattern-weight.js';
import { isBrineError } from '../../../src/util/errors.js';

const HEX = '0123456789abcdef';
const longHex = (n: number) => HEX.repeat(Math.ceil(n / HEX.length)).slice(0, n);
const LONG = 50_000;

// the example; `[0-9a-f]{4}` then `([0-9a-f]+)+` before a letter that never comes
const EVIL = '[0-9a-f]{4}([0-9a-f]+)+X';

const refused = (fn: () => unknown, why: RegExp) =>
  assert.throws(fn, (err: unknown) => {
    assert.ok(isBrineError(err, 'TARGET_INVALID'), String(err));
    assert.match(err.message, why);
    return true;
  });

test('catastrophic pcre, grain_pcre and pillar_pcre targets give the right answer on 50,000-character values', () => {
  const ids = ['evil', 'good'];
  const data: Record<string, Grains> = { evil: { machine_id: longHex(LONG) }, good: { machine_id: `${longHex(LONG)}X` } };
  const opts = { grains: (id: string) => data[id], pillar: (id: string) => data[id] };
  for (const [type, tgt] of [
    ['grain_pcre', `machine_id:${EVIL}`],
    ['pillar_pcre', `machine_id:${EVIL}`],
    ['compound', `P@machine_id:${EVIL} or J@machine_id:(a+)+$`],
  ] as Array<[TargetType, string]>) {
    assert.deepEqual(matchTarget(tgt, type, ids, opts).matched, ['good'], `${type} ${tgt}`);
  }
  // the minion's own re-check runs the same engine
  assert.equal(minionMatches(`machine_id:${EVIL}`, 'grain_pcre', 'evil', data.evil), false);
  assert.equal(minionMatches(`machine_id:${EVIL}`, 'grain_pcre', 'good', data.good), true);
  // pcre on IDs, and the classic shapes on long texts
  const longId = `a${'a'.repeat(LONG)}`;
  assert.deepEqual(matchTarget('(a+)+$', 'pcre', [`${longId}!`, longId]).matched, [longId]);
  assert.deepEqual(matchTarget('(a|aa)+b', 'pcre', [longId, `${longId}b`]).matched, [`${longId}b`]);
});

test('a glob with many stars (*a*a*a*a*a*a*a*a*b) gives the right answer on 50,000-character IDs and values', () => {
  const glob = '*a*a*a*a*a*a*a*a*b';
  const a = 'a'.repeat(LONG);
  assert.deepEqual(matchTarget(glob, 'glob', [a, `${a}b`]).matched, [`${a}b`]);
  const grains: Record<string, Grains> = { m1: { blob: a }, m2: { blob: `${a}b` } };
  assert.deepEqual(matchTarget(`blob:${glob}`, 'grain', ['m1', 'm2'], { grains: (id) => grains[id] }).matched, ['m2']);
});

test('lookaround and backreferences are TARGET_INVALID saying that targets run on a linear-time engine', () => {
  for (const [type, tgt] of [
    ['pcre', 'web(?!1)'],
    ['pcre', '(?<=w)eb'],
    ['pcre', '(w)\\1'],
    ['grain_pcre', 'os:(?=deb)'],
    ['pillar_pcre', 'role:(a)\\1'],
    ['compound', 'E@web(?=1) or G@os:Debian'],
  ] as Array<[TargetType, string]>) {
    refused(() => matchTarget(tgt, type, ['web1']), /(lookahead or lookbehind|backreference).*linear-time engine/);
    // the minion refuses the same way (the publish is dropped and logged)
    refused(() => minionMatches(tgt, type, 'web1', { os: 'Debian' }, undefined, { role: 'aa' }), /linear-time engine/);
  }
  refused(() => matchTarget('web\\Z', 'pcre', ['web']), /\\Z \(write \\z\)/);
});

test('a pattern that compiles to more than 1000 instructions, or weighs more than 2000, is TARGET_INVALID naming the limit', () => {
  assert.equal(MAX_PROGRAM_SIZE, 1000);
  assert.equal(MAX_PATTERN_WEIGHT, 2000);
  refused(() => matchTarget('(.*a){300}X', 'pcre', ['a']), /instructions, over the limit of 1000; use smaller \{n\} counts/);
  refused(() => matchTarget(`os:${'[a-z]'.repeat(1200)}`, 'grain', ['a']), /-G target .* is not a usable glob: it compiles to \d+ instructions/);
  refused(() => matchTarget(`x${'?'.repeat(1200)}`, 'glob', ['a']), /glob target .*over the limit/);
  // counted repeats that would take seconds to compile are refused from the pattern's text
  refused(() => matchTarget('(.{0,999})'.repeat(51), 'pcre', ['a']), new RegExp(`weigh \\d+, over the limit of ${MAX_PATTERN_WEIGHT}; use smaller \\{n\\} counts`));
  refused(() => matchTarget(`os:${'((.{0,9}){0,9}){0,9}'.repeat(3)}`, 'grain_pcre', ['a']), /over the limit/);
  // an alternation of many IDs is small: RE2 shares the common prefix
  const many = Array.from({ length: 200 }, (_, i) => `web${i}`).join('|');
  assert.ok(compileLinearRegex(many).ok);
  assert.deepEqual(matchTarget(many, 'pcre', ['web199', 'db1']).matched, ['web199']);
  // ordinary counted repeats are light
  for (const ok of ['[0-9a-f]{40}', '(\\d{1,3}\\.){3}\\d{1,3}$', 'web[0-9]{2,4}-(prod|dev)']) assert.ok(compileLinearRegex(ok).ok, ok);
});

test('ordinary patterns keep Python re.match semantics', () => {
  const ids = ['web1', 'web12', 'xweb1', 'db1', 'WEB3'];
  assert.deepEqual(matchTarget('web\\d', 'pcre', ids).matched, ['web1', 'web12'], 'anchored at the start only');
  assert.deepEqual(matchTarget('web\\d$', 'pcre', ids).matched, ['web1']);
  assert.deepEqual(matchTarget('(?i)web', 'pcre', ids).matched, ['web1', 'web12', 'WEB3']);
  assert.deepEqual(matchTarget('(?P<kind>web|db)1', 'pcre', ids).matched, ['web1', 'web12', 'db1']);
  // an unbalanced ) cannot escape the anchoring
  refused(() => matchTarget('x)|(.*', 'pcre', ids), /not a valid regular expression: unexpected \)/);
  // grain_pcre lower-cases the value and ignores case, as Salt does; \D keeps its meaning
  const grains: Record<string, Grains> = { a: { os: 'Debian', n: '12ab' }, b: { os: 'Fedora', n: '123' } };
  const g = (tgt: string) => matchTarget(tgt, 'grain_pcre', ['a', 'b'], { grains: (id) => grains[id] }).matched;
  assert.deepEqual(g('os:DEB'), ['a']);
  assert.deepEqual(g('n:\\d+\\D'), ['a']);
  assert.deepEqual(g('os:(debian|fedora)$'), ['a', 'b']);
});

test('a pattern weighs its characters, with {n} multiplying the atom or group before it', () => {
  assert.equal(patternWeight('web1'), 4);
  assert.equal(patternWeight('[0-9a-f]{40}'), 40);
  assert.equal(patternWeight('(ab){3}'), 9);
  assert.equal(patternWeight('((a){10}){10}'), 210, 'nested counts multiply');
  assert.equal(patternWeight('a{2,5}b{3,}'), 8);
  assert.equal(patternWeight('\\x{1f600}\\p{Greek}[]a]|x'), 4, 'escapes with braces and a class with ] first are one atom each');
});

test('the literal globs (`*`, `web*`, an exact ID) answer as the engine does, and do not load it', async () => {
  const patterns = ['*', '**', 'emu-*', 'emu-0001', 'emu-0001*', 'web\\1*', 'a.b*', 'é*', '', 'emu-*-x', 'emu?', 'emu[0-9]*', '*emu', `${'x'.repeat(300)}*`];
  const texts = ['', 'emu-0001', 'emu-0001.x', 'emu-', 'emu', 'EMU-0001', 'web\\1a', 'a.b', 'aXb', 'é', 'e\u0301', 'emu-\nx', 'x'.repeat(300), 'x'.repeat(301)];
  for (const p of patterns) {
    const glob = compileLinearGlob(p);
    const engine = compileLinearRegex(globToRegExpSource(p, RE2_GLOB));
    assert.ok(glob.ok && engine.ok, p);
    for (const t of texts) assert.equal(glob.re.matches(t), engine.re.matches(t), `${JSON.stringify(p)} on ${JSON.stringify(t)}`);
  }
  // in a fresh process: a publish to `emu-*` must not load re2js into the master's turn
  const mod = new URL('../../../src/targeting/linear-regex.js', import.meta.url).href;
  const code = `const { compileLinearGlob } = await import(${JSON.stringify(mod)}); const { createRequire } = await import('node:module');
    const g = compileLinearGlob('emu-*'); const loaded = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('re2js'));
    process.stdout.write(JSON.stringify({ matches: g.ok && g.re.matches('emu-1'), loaded }));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { matches: true, loaded: false });
});
