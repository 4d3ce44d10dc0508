// The highstate outputter against Salt's layout (salt/output/highstate.py): realistic state
// returns in every state_output mode, state_verbose False, colours, compile errors and the summary.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_HIGHSTATE_OPTIONS, format, noReturn, formatReturn, formatStatic, highstateBlock, type HighstateOptions } from '../../../src/cli/output/index.js';

const GREEN = '\x1b[0;32m';
const CYAN = '\x1b[0;36m';
const RED = '\x1b[0;31m';
const LIGHT_RED = '\x1b[0;1;31m';
const LY = '\x1b[0;1;33m';
const END = '\x1b[0;0m';

const DIFF = '--- \n+++ \n@@ -1 +1 @@\n-worker_processes 1;\n+worker_processes 4;\n';

function state(id: string, name: string, fun: string, runNum: number, fields: Record<string, unknown>): [string, Record<string, unknown>] {
  const [mod, f] = fun.split('.') as [string, string];
  return [`${mod}_|-${id}_|-${name}_|-${f}`, { name, changes: {}, __id__: id, __sls__: 'web', __run_num__: runNum, start_time: `12:00:0${runNum}.123456`, duration: 12.345, ...fields }];
}

// Keys deliberately out of run order: the outputter sorts by __run_num__.
const RUN: Record<string, unknown> = Object.fromEntries([
  state('nginx-service', 'nginx', 'service.running', 2, { result: false, comment: 'Service nginx failed to start\nJob for nginx.service failed.', duration: 100 }),
  state('nginx', 'nginx', 'pkg.installed', 0, { result: true, comment: 'All specified packages are already installed' }),
  state('/etc/nginx/nginx.conf', '/etc/nginx/nginx.conf', 'file.managed', 1, { result: true, comment: 'File /etc/nginx/nginx.conf updated', changes: { diff: DIFF }, duration: 3.5 }),
]);

const opts = (over: Partial<HighstateOptions>): HighstateOptions => ({ ...DEFAULT_HIGHSTATE_OPTIONS, ...over });

test('full output: every state in __run_num__ order, changes through nested, the diff as text, the summary', () => {
  const expected = [
    'web1:',
    '----------',
    '          ID: nginx',
    '    Function: pkg.installed',
    '      Result: True',
    '     Comment: All specified packages are already installed',
    '     Started: 12:00:00.123456',
    '    Duration: 12.345 ms',
    '     Changes:   ',
    '----------',
    '          ID: /etc/nginx/nginx.conf',
    '    Function: file.managed',
    '      Result: True',
    '     Comment: File /etc/nginx/nginx.conf updated',
    '     Started: 12:00:01.123456',
    '    Duration: 3.5 ms',
    '     Changes:   ',
    '              ----------',
    '              diff:',
    '                  --- ',
    '                  +++ ',
    '                  @@ -1 +1 @@',
    '                  -worker_processes 1;',
    '                  +worker_processes 4;',
    '----------',
    '          ID: nginx-service',
    '    Function: service.running',
    '        Name: nginx',
    '      Result: False',
    '     Comment: Service nginx failed to start',
    '              Job for nginx.service failed.',
    '     Started: 12:00:02.123456',
    '    Duration: 100.0 ms',
    '     Changes:   ',
    '',
    'Summary for web1',
    '------------',
    'Succeeded: 2 (changed=1)',
    'Failed:    1',
    '------------',
    'Total states run:     3',
    'Total run time: 115.845 ms',
  ].join('\n');
  assert.equal(highstateBlock('web1', RUN, { color: false }), expected);
  // The same through the --out machinery (a trailing newline per block).
  assert.equal(format('highstate', { web1: RUN }, { color: false }), `${expected}\n`);
});

test('test=True: result None prints in light yellow and counts as unchanged in Succeeded', () => {
  const data = Object.fromEntries([
    state('nginx', 'nginx', 'pkg.installed', 0, { result: true, comment: 'All specified packages are already installed' }),
    state('conf', '/etc/app.conf', 'file.managed', 1, { result: null, comment: 'The file /etc/app.conf is set to be changed', changes: { diff: '+new\n' } }),
  ]);
  const plain = highstateBlock('local', data, { color: false });
  assert.match(plain, /\n {6}Result: None\n/);
  assert.match(plain, /\nSucceeded: 2 \(unchanged=1, changed=1\)\nFailed: {4}0\n/);
  const colored = highstateBlock('local', data, { color: true });
  assert.ok(colored.startsWith(`${LY}local:${END}\n`), 'the minion name turns light yellow');
  assert.ok(colored.includes(`    ${LY}  Result: None${END}`));
  assert.ok(colored.includes(`${GREEN}Succeeded: 2${END} (${LY}unchanged=1${END}, ${GREEN}changed=1${END})`));
});

test('colours: green clean, cyan changed, red failed; the failed count red; none of it with colour off', () => {
  const out = highstateBlock('web1', RUN, { color: true });
  assert.ok(out.startsWith(`${RED}web1:${END}\n`), 'a failed state turns the minion name red');
  assert.ok(out.includes(`    ${GREEN}      ID: nginx${END}`));
  assert.ok(out.includes(`    ${CYAN}      ID: /etc/nginx/nginx.conf${END}`));
  assert.ok(out.includes(`    ${RED}      ID: nginx-service${END}`));
  // The changes are the nested outputter's: cyan keys, green strings.
  assert.ok(out.includes(`${CYAN}     Changes:   \n              ${CYAN}----------${END}\n              ${CYAN}diff${END}:`));
  assert.ok(out.includes(`                  ${GREEN}+worker_processes 4;${END}`));
  assert.ok(out.includes(`${RED}Failed:    1${END}`));
  assert.ok(out.includes(`${CYAN}\nSummary for web1\n------------${END}`));
  const clean = highstateBlock('web1', Object.fromEntries([state('a', 'a', 'test.nop', 0, { result: true, comment: '' })]), { color: true });
  assert.ok(clean.startsWith(`${GREEN}web1:${END}`));
  assert.ok(clean.includes(`${CYAN}Failed:    0${END}`), 'no failures: the Failed line is cyan');
  assert.ok(!highstateBlock('web1', RUN, { color: false }).includes('\x1b'));
});

test('state_output terse: one line per state with Clean/Changed/Failed/Differs', () => {
  const withNone = { ...RUN, ...Object.fromEntries([state('pending', 'pending', 'test.succeed_with_changes', 3, { result: null, comment: 'would change', changes: { x: 1 }, duration: 0.5 })]) };
  const out = highstateBlock('web1', withNone, { color: false, state: opts({ output: 'terse' }) });
  const lines = out.split('\n');
  assert.deepEqual(lines.slice(0, 5), [
    'web1:',
    '  Name: nginx - Function: pkg.installed - Result: Clean - Started: 12:00:00.123456 - Duration: 12.345 ms',
    '  Name: /etc/nginx/nginx.conf - Function: file.managed - Result: Changed - Started: 12:00:01.123456 - Duration: 3.5 ms',
    '  Name: nginx - Function: service.running - Result: Failed - Started: 12:00:02.123456 - Duration: 100.0 ms',
    '  Name: pending - Function: test.succeed_with_changes - Result: Differs - Started: 12:00:03.123456 - Duration: 0.5 ms',
  ]);
  assert.match(out, /\nSucceeded: 3 \(unchanged=1, changed=2\)\nFailed: {4}1\n/);
  const colored = highstateBlock('web1', withNone, { color: true, state: opts({ output: 'terse' }) });
  assert.ok(colored.includes(` ${RED} Name: nginx - Function: service.running - Result: Failed`));
});

test('state_output mixed: terse unless failed; changes: terse unless failed or changed', () => {
  const mixed = highstateBlock('web1', RUN, { color: false, state: opts({ output: 'mixed' }) });
  assert.match(mixed, /^ {2}Name: nginx - Function: pkg\.installed - Result: Clean/m);
  assert.match(mixed, /^ {2}Name: \/etc\/nginx\/nginx\.conf - Function: file\.managed - Result: Changed/m);
  assert.match(mixed, /^ {10}ID: nginx-service$/m);
  assert.doesNotMatch(mixed, /ID: nginx$/m);

  const changes = highstateBlock('web1', RUN, { color: false, state: opts({ output: 'changes' }) });
  assert.match(changes, /^ {2}Name: nginx - Function: pkg\.installed - Result: Clean/m);
  assert.match(changes, /^ {10}ID: \/etc\/nginx\/nginx\.conf$/m);
  assert.match(changes, /^ {10}ID: nginx-service$/m);
});

test('state_output filter: terse and exclude by result', () => {
  const out = highstateBlock('web1', RUN, { color: false, state: opts({ output: 'filter', terse: ['True'], exclude: ['False'] }) });
  assert.match(out, /^ {2}Name: nginx - Function: pkg\.installed - Result: Clean/m);
  assert.match(out, /^ {2}Name: \/etc\/nginx\/nginx\.conf - Function: file\.managed - Result: Changed/m);
  assert.doesNotMatch(out, /nginx-service|service\.running/, 'the failed state is excluded');
  assert.match(out, /\nFailed: {4}1\n/, 'but still counted');
  const none = highstateBlock('web1', RUN, { color: false, state: opts({ output: 'filter' }) });
  assert.equal(none, highstateBlock('web1', RUN, { color: false }), 'filter with empty lists is full output');
});

test('the _id variants show the state ID where the name would be', () => {
  const full = highstateBlock('web1', RUN, { color: false, state: opts({ output: 'full_id' }) });
  assert.doesNotMatch(full, /Name:/, 'no Name line: name and ID are now the same');
  assert.match(full, /^ {10}ID: nginx-service$/m);
  const terse = highstateBlock('web1', RUN, { color: false, state: opts({ output: 'terse_id' }) });
  assert.match(terse, /^ {2}Name: nginx-service - Function: service\.running - Result: Failed/m);
});

test('state_verbose False hides states with result True and no changes; the summary still counts them', () => {
  const out = highstateBlock('web1', RUN, { color: false, state: opts({ verbose: false }) });
  assert.doesNotMatch(out, /ID: nginx$/m);
  assert.match(out, /ID: \/etc\/nginx\/nginx\.conf/);
  assert.match(out, /ID: nginx-service/);
  assert.match(out, /\nSucceeded: 2 \(changed=1\)\nFailed: {4}1\n-{12}\nTotal states run: {5}3\n/);
  // All clean: just the name and the summary.
  const clean = Object.fromEntries([state('a', 'a', 'test.nop', 0, { result: true, comment: 'ok', duration: 1 })]);
  assert.equal(
    highstateBlock('web1', clean, { color: false, state: opts({ verbose: false }) }),
    ['web1:', '', 'Summary for web1', '------------', 'Succeeded: 1', 'Failed:    0', '------------', 'Total states run:     1', 'Total run time:   1.000 ms'].join('\n'),
  );
});

test('a compile-error list prints "Data failed to compile:" and each error, in light red, no summary', () => {
  const errors = ["Rendering SLS 'base:web' failed: Jinja variable 'bug' is undefined; line 3", "Requisite require of 'a' names 'missing', which is not a state"];
  const expected = ['local:', '    Data failed to compile:', '----------', `    ${errors[0]}`, '----------', `    ${errors[1]}`].join('\n');
  assert.equal(highstateBlock('local', errors, { color: false }), expected);
  const colored = highstateBlock('local', errors, { color: true });
  assert.ok(colored.startsWith(`${LIGHT_RED}local:${END}\n    ${LIGHT_RED}Data failed to compile:${END}\n${LIGHT_RED}----------\n    Rendering`));
  assert.doesNotMatch(colored, /Summary/);
});

test('summary: columns widen with two-digit counts; run time switches to seconds above 999 ms', () => {
  const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => state(`s${i}`, `s${i}`, 'test.nop', i, { result: true, comment: '', duration: 100 })));
  const out = highstateBlock('m', many, { color: false });
  assert.ok(out.endsWith(['', 'Summary for m', '-------------', 'Succeeded: 12', 'Failed:     0', '-------------', 'Total states run:     12', 'Total run time:    1.200 s'].join('\n')), out);
  // No states: Salt sizes the columns for a zero-width count, so they are one narrower.
  const empty = highstateBlock('m', {}, { color: false });
  assert.equal(empty, ['m:', '', 'Summary for m', '-----------', 'Succeeded: 0', 'Failed:   0', '-----------', 'Total states run:    0', 'Total run time:  0.000 ms'].join('\n'));
});

test('a string return (e.g. an unavailable function) prints as its lines; control characters are neutralised', () => {
  assert.equal(highstateBlock('web1', "'state.apply' is not available.", { color: false }), "web1:\n    'state.apply' is not available.");
  const evil = Object.fromEntries([state('x', 'x', 'cmd.run', 0, { result: true, comment: 'ok\x1b]0;pwned\x07', changes: { stdout: '\x1b[2J' } })]);
  const out = highstateBlock('web1', evil, { color: false });
  assert.ok(!out.includes('\x1b') && !out.includes('\x07'), out);
  assert.match(out, /Comment: ok\?\]0;pwned\?/);
});

test('warnings are printed under the state and counted in the summary', () => {
  const data = Object.fromEntries([state('w', 'w', 'file.managed', 0, { result: true, comment: 'ok', warnings: ['The mode argument is deprecated'] })]);
  const out = highstateBlock('web1', data, { color: false });
  assert.match(out, /\n {4}Warnings: The mode argument is deprecated\n/);
  assert.match(out, /\nWarnings: {2}1\n/);
});

test('--out json and yaml give the raw state structure unchanged', () => {
  const json = JSON.parse(formatReturn('json', 'web1', RUN, { color: false, state: opts({ output: 'terse' }) })) as Record<string, unknown>;
  assert.deepEqual(json, { web1: RUN });
  const stat = formatStatic('json', new Map([['web1', RUN]]), { color: false });
  assert.deepEqual(JSON.parse(stat), { web1: RUN });
  assert.match(formatReturn('yaml', 'web1', RUN, { color: false }), /__run_num__: 2/);
});

test('a minion that did not return prints as with the nested outputter', () => {
  const marker = noReturn('no_response');
  assert.equal(highstateBlock('web9', marker, { color: true }), format('nested', { web9: marker }, { color: true }).trimEnd());
  assert.match(highstateBlock('web9', marker, { color: false }), /^web9:\n {4}Minion did not return/);
});
