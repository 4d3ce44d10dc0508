// The `test` module: connectivity and argument-passing checks (test.ping, test.echo, ...).

import { BrineError } from '../util/errors.js';
import { abortError } from './abort.js';
import type { ExecContext, ModuleFunction } from './types.js';
import { defineFunction } from './define-function.js';
import { BRINE_VERSION } from './version.js';

/** Resolves after `seconds`, or rejects with the abort error as soon as the signal fires. */
function sleep(seconds: number, signal: AbortSignal): Promise<true> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal, 'test.sleep'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal, 'test.sleep'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, seconds * 1000);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

// setTimeout's limit is 2^31-1 ms; longer sleeps would fire at once.
const MAX_SLEEP_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

export const testFunctions: readonly ModuleFunction[] = [
  defineFunction({
    name: 'test.ping',
    doc: 'Return true: proves the minion is connected and executing jobs.',
    params: [],
    run: () => true,
  }),
  defineFunction({
    name: 'test.echo',
    doc: 'Return the text given.',
    params: [{ name: 'text', type: 'string', required: true, doc: 'the text to return' }],
    run: (_ctx, a) => a.named.text,
  }),
  defineFunction({
    name: 'test.version',
    doc: 'Return the brine version of the minion.',
    params: [],
    run: (ctx: ExecContext) => {
      const v = ctx.config.agent_version;
      return typeof v === 'string' && v !== '' ? v : BRINE_VERSION;
    },
  }),
  defineFunction({
    name: 'test.sleep',
    doc: 'Sleep for the given number of seconds, then return true; stops when the job is cancelled.',
    params: [{ name: 'length', type: 'number', required: true, doc: 'seconds to sleep' }],
    run: (ctx, a) => {
      const length = a.named.length;
      if (length < 0 || length > MAX_SLEEP_SECONDS) {
        throw new BrineError('BAD_ARGUMENTS', `test.sleep: length must be between 0 and ${MAX_SLEEP_SECONDS} seconds, got ${length}`);
      }
      return sleep(length, ctx.signal);
    },
  }),
  defineFunction({
    // A diagnostic, not a workload: it proves that a function hogging its thread (a tight loop in
    // a custom module) delays neither heartbeats nor other jobs, because jobs run in workers.
    name: 'test.busy_wait',
    doc: 'Block the executing thread in a busy loop for the given seconds (at most 600), then return true; shows job isolation.',
    params: [{ name: 'seconds', type: 'number', required: true, doc: 'seconds to spin' }],
    run: (_ctx, a) => {
      const seconds = a.named.seconds;
      if (seconds < 0 || seconds > 600) throw new BrineError('BAD_ARGUMENTS', `test.busy_wait: seconds must be between 0 and 600, got ${seconds}`);
      const end = Date.now() + seconds * 1000;
      while (Date.now() < end) {
        // spin: nothing else runs on this thread meanwhile
      }
      return true;
    },
  }),
  defineFunction({
    name: 'test.arg',
    doc: 'Return the positional and keyword arguments received, as {args, kwargs}.',
    params: [],
    varargs: true,
    kwargs: true,
    run: (_ctx, a) => ({ args: a.rest, kwargs: a.extra }),
  }),
  defineFunction({
    name: 'test.true',
    doc: 'Return true.',
    params: [],
    run: () => true,
  }),
  defineFunction({
    name: 'test.false',
    doc: 'Return false.',
    params: [],
    run: () => false,
  }),
];
