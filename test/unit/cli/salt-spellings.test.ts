// normalizeArgs: Salt's spellings become brine's only for a command that has the option, -c moves
// to the last subcommand, and nothing after `--` (a job's own arguments) changes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { commandName, normalizeArgs } from '../../../src/cli/salt-spellings.js';

function program(): Command {
  const p = new Command('brine');
  p.command('run').argument('[args...]').option('-c, --config-dir <dir>').option('--out <o>').option('--state-output <m>').option('--no-color');
  const jobs = p.command('jobs');
  jobs.command('list').option('-c, --config-dir <dir>').option('--out <o>');
  p.command('emulate').option('--count <n>');
  p.command('nats').command('enrolment').option('-o, --out <file>').option('--output <x>');
  return p;
}

describe('salt spellings', () => {
  it('respells the output aliases, with and without =', () => {
    assert.deepEqual(normalizeArgs(['run', '*', 'test.ping', '--output=json', '--state_output', 'terse', '--no-colour'], program()), [
      'run',
      '*',
      'test.ping',
      '--out=json',
      '--state-output',
      'terse',
      '--no-color',
    ]);
  });

  it('moves -c DIR from before a subcommand to after the last one', () => {
    assert.deepEqual(normalizeArgs(['-c', '/d', 'jobs', 'list'], program()), ['jobs', 'list', '-c', '/d']);
    assert.deepEqual(normalizeArgs(['jobs', '--config-dir=/d', 'list', '--output', 'json'], program()), ['jobs', 'list', '--config-dir=/d', '--out', 'json']);
    assert.deepEqual(normalizeArgs(['jobs', 'list', '-c', '/d'], program()), ['jobs', 'list', '-c', '/d']);
  });

  it('leaves a command without the option alone, so commander still names it unknown', () => {
    assert.deepEqual(normalizeArgs(['-c', '/d', 'emulate'], program()), ['-c', '/d', 'emulate']);
    assert.deepEqual(normalizeArgs(['emulate', '--output=json'], program()), ['emulate', '--output=json']);
    // a command with its own --output keeps it
    assert.deepEqual(normalizeArgs(['nats', 'enrolment', '--output', 'x'], program()), ['nats', 'enrolment', '--output', 'x']);
  });

  it('does not touch anything after --', () => {
    assert.deepEqual(normalizeArgs(['run', '*', 'cmd.run', '--', '--output=json'], program()), ['run', '*', 'cmd.run', '--', '--output=json']);
  });

  it('commandName skips -c DIR before the command', () => {
    assert.equal(commandName(['-c', '/d', 'jobs', 'list']), 'jobs');
    assert.equal(commandName(['--config-dir=/d', 'key']), 'key');
    assert.equal(commandName(['run', '*']), 'run');
    assert.equal(commandName([]), undefined);
  });
});
