// src/reactor/function-replay.ts with the real renderer: salt[...] calls in a reactor SLS are
// answered by asynchronous functions, each distinct call running once (a call with effects is not
// repeated by the re-renders), a call whose answer depends on another's works, a failing call
// fails the render with the function's own coded error, and a template looping over calls is capped.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderSls } from '../../../src/render/index.js';
import { renderWithCalls } from '../../../src/reactor/index.js';
import { BrineError } from '../../../src/util/errors.js';

function renderer(text: string) {
  return (callFunction: (fun: string, arg: unknown[], kwarg: Record<string, unknown>) => unknown) =>
    renderSls(text, { source: '/srv/reactor/r.sls', saltenv: 'base', context: {}, callFunction, loadFile: () => undefined });
}

test('each distinct call runs once, in template order; a call using an earlier answer gets it; the render ends with every answer in place', async () => {
  const calls: string[] = [];
  const run = async (fun: string, arg: unknown[]) => {
    calls.push(`${fun}(${arg.join(',')})`);
    await new Promise((r) => setImmediate(r));
    return fun === 'cmd.run' ? `out:${arg[0]}` : `${fun}:${arg[0]}`;
  };
  const text = "{% set a = salt['cmd.run']('one') %}{% set b = salt['test.echo'](a) %}{% set c = salt['cmd.run']('one') %}\nx:\n  - {{ a }}\n  - {{ b }}\n  - {{ c }}\n";
  const data = await renderWithCalls(renderer(text), run, '/srv/reactor/r.sls');
  assert.deepEqual(data, { x: ['out:one', 'test.echo:out:one', 'out:one'] });
  assert.deepEqual(calls, ['cmd.run(one)', 'test.echo(out:one)']);
});

test("a failing call fails the render with the function's coded error, after the calls before it ran once", async () => {
  const calls: string[] = [];
  const run = async (fun: string) => {
    calls.push(fun);
    if (fun === 'nosuch.fun') throw new BrineError('UNKNOWN_FUNCTION', "'nosuch.fun' is not available");
    return 1;
  };
  await assert.rejects(renderWithCalls(renderer("{{ salt['test.true']() }}{{ salt['nosuch.fun']() }}\n"), run, '/srv/reactor/r.sls'), (err: unknown) => {
    const chain: string[] = [];
    for (let e: unknown = err; e instanceof Error; e = e.cause) chain.push(`${(e as BrineError).code}: ${e.message}`);
    assert.ok(
      chain.some((c) => c.includes("UNKNOWN_FUNCTION: 'nosuch.fun' is not available")),
      chain.join('\n'),
    );
    return true;
  });
  assert.deepEqual(calls, ['test.true', 'nosuch.fun']);
});

test('a template calling with ever new arguments is stopped at the cap with RENDER_FAILED naming the file', async () => {
  let n = 0;
  const run = async () => ++n;
  const text = "{% for i in range(1000) %}{{ salt['test.echo'](i) }}{% endfor %}\n";
  await assert.rejects(renderWithCalls(renderer(text), run, '/srv/reactor/r.sls', 5), (err: BrineError) => {
    assert.equal(err.code, 'RENDER_FAILED');
    assert.match(err.message, /\/srv\/reactor\/r\.sls: more than 5 distinct salt\[\.\.\.\] calls in one render/);
    return true;
  });
  assert.equal(n, 5);
});
