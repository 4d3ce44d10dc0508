import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BrineError } from '../../../src/util/errors.js';
import { createDefaultRegistry, ModuleRegistry, withRetcode, type ModuleFunction } from '../../../src/modules/index.js';
import { makeCtx } from './context.js';

const echoArgs = (over: Partial<ModuleFunction> = {}): ModuleFunction => ({
  name: 'demo.fn',
  doc: 'Return what was bound.',
  params: [
    { name: 'a', type: 'string', required: true },
    { name: 'n', type: 'int', default: 3 },
    { name: 'flag', type: 'bool' },
  ],
  run: (_ctx, args) => args,
  ...over,
});

function registryWith(...fns: ModuleFunction[]): ModuleRegistry {
  const r = new ModuleRegistry();
  r.registerAll(fns);
  return r;
}

describe('ModuleRegistry registration', () => {
  it('rejects a second function with the same name', () => {
    const r = registryWith(echoArgs());
    assert.throws(
      () => r.register(echoArgs()),
      (e: unknown) => e instanceof BrineError && /already registered/.test(e.message),
    );
    assert.deepEqual(r.list(), ['demo.fn']);
  });

  it('rejects malformed names and declarations', () => {
    const r = new ModuleRegistry();
    assert.throws(() => r.register(echoArgs({ name: 'nodot' })), /module\.function/);
    assert.throws(() => r.register(echoArgs({ name: 'Demo.Fn' })), /module\.function/);
    assert.throws(() => r.register(echoArgs({ doc: 'two\nlines' })), /one non-empty line/);
    assert.throws(
      () =>
        r.register(
          echoArgs({
            params: [
              { name: 'x', type: 'any' },
              { name: 'x', type: 'any' },
            ],
          }),
        ),
      /declared twice/,
    );
    assert.throws(
      () =>
        r.register(
          echoArgs({
            params: [
              { name: 'x', type: 'any' },
              { name: 'y', type: 'any', required: true },
            ],
          }),
        ),
      /follows an optional/,
    );
    assert.deepEqual(r.list(), []);
  });

  it('lists names sorted', () => {
    const r = registryWith(echoArgs({ name: 'zed.b' }), echoArgs({ name: 'alpha.z' }), echoArgs({ name: 'alpha.a' }));
    assert.deepEqual(r.list(), ['alpha.a', 'alpha.z', 'zed.b']);
  });
});

describe('ModuleRegistry dispatch', () => {
  const r = createDefaultRegistry();
  for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'test.__proto__', 'test.constructor', 'foo.bar', '']) {
    it(`'${name}' is UNKNOWN_FUNCTION`, async () => {
      const res = await r.call(name, [], {}, makeCtx());
      assert.deepEqual(res, {
        return: `'${name}' is not available.`,
        retcode: 1,
        success: false,
        error: { code: 'UNKNOWN_FUNCTION', message: `'${name}' is not available.` },
      });
    });
  }

  it('get() does not reach Object.prototype', () => {
    assert.equal(r.get('constructor'), undefined);
    assert.equal(r.get('__proto__'), undefined);
    assert.equal(r.get('test.ping')?.name, 'test.ping');
  });

  it('rejects non-list args and non-mapping kwargs without throwing', async () => {
    const a = await r.call('test.ping', 'x' as unknown as unknown[], {}, makeCtx());
    assert.equal(a.error?.code, 'BAD_ARGUMENTS');
    const b = await r.call('test.ping', [], [] as unknown as Record<string, unknown>, makeCtx());
    assert.equal(b.error?.code, 'BAD_ARGUMENTS');
  });
});

describe('argument binding', () => {
  const r = registryWith(echoArgs(), echoArgs({ name: 'demo.var', varargs: true, kwargs: true }));
  const ctx = makeCtx();

  it('fills positionals in order, kwargs by name, defaults for the rest', async () => {
    const res = await r.call('demo.fn', ['x'], { flag: true }, ctx);
    assert.deepEqual(res.return, { named: { a: 'x', n: 3, flag: true }, rest: [], extra: {} });
    const res2 = await r.call('demo.fn', ['x', 7], {}, ctx);
    assert.deepEqual(res2.return, { named: { a: 'x', n: 7 }, rest: [], extra: {} });
  });

  it('converts CLI text to the declared type', async () => {
    const res = await r.call('demo.fn', ['x', '42'], { flag: 'False' }, ctx);
    assert.deepEqual(res.return, { named: { a: 'x', n: 42, flag: false }, rest: [], extra: {} });
  });

  it('treats null as not given for an optional parameter', async () => {
    const res = await r.call('demo.fn', ['x', null], {}, ctx);
    assert.deepEqual((res.return as { named: unknown }).named, { a: 'x', n: 3 });
  });

  const badCases: [string, unknown[], Record<string, unknown>, RegExp][] = [
    ['missing required', [], {}, /demo\.fn: missing required argument 'a' \(a string\)/],
    ['required given as null', [null], {}, /argument 'a' must be a string, got null/],
    ['unknown kwarg', ['x'], { bogus: 1 }, /unexpected keyword argument 'bogus'/],
    ['too many positionals', ['x', 1, true, 'extra'], {}, /takes at most 3 positional argument\(s\) but 4 were given/],
    ['wrong type int', ['x', 'seven'], {}, /argument 'n' must be an integer, got string "seven"/],
    ['non-integer for int', ['x', 1.5], {}, /argument 'n' must be an integer/],
    ['wrong type bool', ['x'], { flag: 'maybe' }, /argument 'flag' must be a boolean/],
    ['mapping for string', [{ k: 1 }], {}, /argument 'a' must be a string, got mapping/],
    ['same argument twice', ['x'], { a: 'y' }, /multiple values for argument 'a'/],
  ];
  for (const [label, arg, kwarg, re] of badCases) {
    it(`BAD_ARGUMENTS: ${label}`, async () => {
      const res = await r.call('demo.fn', arg, kwarg, ctx);
      assert.equal(res.error?.code, 'BAD_ARGUMENTS');
      assert.equal(res.retcode, 1);
      assert.equal(res.success, false);
      assert.match(res.error.message, re);
      assert.ok(res.error.message.endsWith('Signature: demo.fn(a: string, n: int = 3, flag?: bool)'), res.error.message);
    });
  }

  it('varargs and kwargs collect the surplus, including hostile key names as plain keys', async () => {
    const twice = await r.call('demo.var', ['x'], { a: 'y' }, ctx);
    assert.equal(twice.error?.code, 'BAD_ARGUMENTS', 'a declared parameter given twice is not swallowed by **kwargs');
    const ok = await r.call('demo.var', ['x', 1, true, 'p', 'q'], JSON.parse('{"k":1,"__proto__":{"polluted":true},"constructor":2,"toString":3}') as Record<string, unknown>, ctx);
    const ret = ok.return as { rest: unknown[]; extra: Record<string, unknown> };
    assert.deepEqual(ret.rest, ['p', 'q']);
    assert.equal(Object.getPrototypeOf(ret.extra), Object.prototype);
    assert.deepEqual(Object.keys(ret.extra), ['k', '__proto__', 'constructor', 'toString']);
    assert.deepEqual(Object.getOwnPropertyDescriptor(ret.extra, 'constructor'), { value: 2, writable: true, enumerable: true, configurable: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('retcode and failures', () => {
  const fn = (name: string, run: ModuleFunction['run']): ModuleFunction => ({ name, doc: 'x', params: [], run });
  const r = registryWith(
    fn('rc.plain', () => ({ ok: 1 })),
    fn('rc.result_false', () => ({ result: false, comment: 'no' })),
    fn('rc.success_false', () => ({ success: false })),
    fn('rc.explicit', () => withRetcode('out', 42)),
    fn('rc.explicit_zero', () => withRetcode({ result: false }, 0)),
    fn('rc.lookalike', () => ({ __retcode: 9, value: 'x' })),
    fn('rc.false', () => false),
    fn('rc.undef', () => undefined),
    fn('rc.throws', () => {
      throw new Error('disk on fire');
    }),
    fn('rc.rejects', async () => {
      await Promise.resolve();
      throw new BrineError('JOB_TIMEOUT', 'took too long');
    }),
    fn('rc.throws_string', () => {
      throw 'plain string'; // eslint-disable-line no-throw-literal
    }),
  );
  const ctx = makeCtx();
  const cases: [string, unknown, number][] = [
    ['rc.plain', { ok: 1 }, 0],
    ['rc.result_false', { result: false, comment: 'no' }, 1],
    ['rc.success_false', { success: false }, 1],
    ['rc.explicit', 'out', 42],
    ['rc.explicit_zero', { result: false }, 0],
    ['rc.lookalike', { __retcode: 9, value: 'x' }, 0],
    ['rc.false', false, 0],
    ['rc.undef', null, 0],
  ];
  for (const [name, ret, retcode] of cases) {
    it(`${name} → retcode ${retcode}`, async () => {
      const res = await r.call(name, [], {}, ctx);
      assert.deepEqual(res, { return: ret, retcode, success: retcode === 0 });
    });
  }

  it('a thrown Error becomes EXEC_FAILED with its message', async () => {
    const res = await r.call('rc.throws', [], {}, ctx);
    assert.deepEqual(res, { return: 'disk on fire', retcode: 1, success: false, error: { code: 'EXEC_FAILED', message: 'disk on fire' } });
  });

  it('a BrineError keeps its code', async () => {
    const res = await r.call('rc.rejects', [], {}, ctx);
    assert.deepEqual(res.error, { code: 'JOB_TIMEOUT', message: 'took too long' });
    assert.equal(res.retcode, 1);
  });

  it('a thrown non-Error is still EXEC_FAILED', async () => {
    const res = await r.call('rc.throws_string', [], {}, ctx);
    assert.deepEqual(res.error, { code: 'EXEC_FAILED', message: 'plain string' });
  });

  it('withRetcode refuses a non-integer retcode', () => {
    assert.throws(() => withRetcode('x', 1.5), TypeError);
  });
});
