// Which outputter a call prints with, the highstate settings from config and flags, and
// salt-call's exit status.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callExitCode, cliExit, defaultOutputterFor, HIGHSTATE_FUNCTIONS } from '../../../src/cli/output/index.js';
import { highstateOptions, useColor } from '../../../src/cli/state-output-flags.js';
import { isBrineError } from '../../../src/util/errors.js';

test('state runs print with highstate, show_* and everything else with nested, --out always wins', () => {
  for (const fun of ['state.apply', 'state.sls', 'state.highstate', 'state.single', 'state.sls_id', 'state.top']) assert.equal(defaultOutputterFor(fun, undefined), 'highstate', fun);
  for (const fun of ['state.show_sls', 'state.show_top', 'state.show_highstate', 'state.show_lowstate', 'test.ping', 'state.apply_x', 'mystate.apply']) {
    assert.equal(defaultOutputterFor(fun, undefined), 'nested', fun);
  }
  assert.equal(defaultOutputterFor('state.apply', 'json'), 'json');
  assert.equal(defaultOutputterFor('test.ping', 'highstate'), 'highstate');
  assert.ok(![...HIGHSTATE_FUNCTIONS].some((f) => f.startsWith('state.show_')));
});

test('highstate settings: Salt defaults, the config, then the flags', () => {
  assert.deepEqual(highstateOptions({}, {}), { output: 'full', verbose: true, terse: [], exclude: [] });
  assert.deepEqual(highstateOptions({ state_output: 'terse', state_verbose: false }, {}), { output: 'terse', verbose: false, terse: [], exclude: [] });
  const flags = highstateOptions({ state_output: 'terse', state_verbose: false }, { stateOutput: 'Mixed_ID', stateVerbose: 'True' });
  assert.equal(flags.output, 'mixed_id', 'case is forgiven, as Salt lowercases state_output');
  assert.equal(flags.verbose, true);
  assert.equal(highstateOptions({}, { stateVerbose: 'false' }).verbose, false);
  // filter lists: the job's own terse=/exclude= first (Salt reads them from the CLI args), else the config.
  assert.deepEqual(highstateOptions({ state_output: 'filter', state_output_terse: [true], state_output_exclude: ['None'] }, {}), {
    output: 'filter',
    verbose: true,
    terse: ['True'],
    exclude: ['None'],
  });
  assert.deepEqual(highstateOptions({ state_output_terse: ['True'] }, {}, { terse: 'False,None' }).terse, ['False', 'None']);
});

test('a bad --state-output or --state-verbose is a usage error naming the choices', () => {
  assert.throws(
    () => highstateOptions({}, { stateOutput: 'verbose' }),
    (e: unknown) => isBrineError(e) && e.code === 'USAGE' && /--state-output must be one of full, terse, mixed, changes, filter, full_id/.test(e.message),
  );
  assert.throws(
    () => highstateOptions({}, { stateVerbose: 'maybe' }),
    (e: unknown) => isBrineError(e) && e.code === 'USAGE' && /--state-verbose must be True or False/.test(e.message),
  );
});

test('colour: --no-color never, --force-color always, else only on a terminal', () => {
  assert.equal(useColor({ color: false, forceColor: true }, true), false);
  assert.equal(useColor({ forceColor: true }, false), true, '--force-color colours even an --out-file');
  assert.equal(useColor({}, false), false);
});

test('salt-call exit status: 1 for any failure, the retcode itself with --retcode-passthrough', () => {
  assert.equal(callExitCode(0, false), 0);
  assert.equal(callExitCode(2, false), 1);
  assert.equal(callExitCode(2, true), 2);
  assert.equal(callExitCode(0, true), 0);
});

test('salt exit status: a minion whose state run failed (retcode 2) makes brine run exit 1', () => {
  const states = { 'test_|-a_|-a_|-fail_without_changes': { result: false, changes: {}, comment: 'Failure!', name: 'a', __run_num__: 0 } };
  assert.deepEqual(cliExit({ web1: { return: states, retcode: 2 }, web2: { return: {}, retcode: 0 } }), { code: 1, message: 'ERROR: Minions returned with non-zero exit code' });
  assert.deepEqual(cliExit({ web2: { return: {}, retcode: 0 } }), { code: 0 });
});
