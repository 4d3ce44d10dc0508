// The daemon logger's destinations: stderr at log_level and log_file at log_level_logfile, each
// with its own threshold, in the same format.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../../src/util/logger.js';

test('each sink gets the lines at or above its own level; quiet gets none', () => {
  const console: string[] = [];
  const file: string[] = [];
  const none: string[] = [];
  const log = createLogger({
    name: 'master',
    level: 'warning',
    write: (l) => console.push(l),
    sinks: [
      { level: 'debug', write: (l) => file.push(l) },
      { level: 'quiet', write: (l) => none.push(l) },
    ],
  });
  log.debug('d');
  log.info('i');
  log.warn('w');
  assert.deepEqual(
    console.map((l) => l.trim().split('] ')[1]),
    ['w'],
  );
  assert.deepEqual(
    file.map((l) => l.trim().split('] ')[1]),
    ['d', 'i', 'w'],
  );
  assert.deepEqual(none, []);
});

test('a quiet console with a file sink still writes the file', () => {
  const file: string[] = [];
  const log = createLogger({ name: 'minion', level: 'quiet', write: () => assert.fail('console is quiet'), sinks: [{ level: 'info', write: (l) => file.push(l) }] });
  log.info('hello');
  log.debug('not this');
  assert.equal(file.length, 1);
  assert.match(file[0]!, /\[minion\]\[INFO {4}\] hello\n$/);
});
