// Functions whose arguments name another function that is then run (CVE-2013-4435,
// threats.md #21): the ACL checks each named function as well as the outer one.

export interface Call {
  fun: string;
  args: readonly unknown[];
  kwargs: Record<string, unknown>;
}

export type NestedRef = { client: 'local' | 'runner' | 'wheel'; fun: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Functions whose arguments name another function that is then run. Each returns the nested
 *  calls so the ACL is checked for them as well (CVE-2013-4435). */
export const NESTED = new Map<string, (call: Call) => Array<NestedRef | { invalid: string }>>([
  ['mine.send', (c) => [local(str(c.kwargs.mine_function) ?? str(c.kwargs.name) ?? str(c.args[0]))]],
  ['schedule.add', (c) => [local(str(c.kwargs.function))]],
  ['schedule.modify', (c) => [local(str(c.kwargs.function))]],
  ['publish.publish', (c) => [local(str(c.kwargs.fun) ?? str(c.args[1]))]],
  ['publish.full_data', (c) => [local(str(c.kwargs.fun) ?? str(c.args[1]))]],
  ['publish.runner', (c) => [ref('runner', str(c.kwargs.fun) ?? str(c.args[0]))]],
  ['saltutil.cmd', (c) => [local(str(c.kwargs.fun) ?? str(c.args[1]))]],
  ['saltutil.cmd_iter', (c) => [local(str(c.kwargs.fun) ?? str(c.args[1]))]],
  ['saltutil.runner', (c) => [ref('runner', str(c.kwargs.name) ?? str(c.args[0]))]],
  ['saltutil.wheel', (c) => [ref('wheel', str(c.kwargs.name) ?? str(c.args[0]))]],
  ['module.run', (c) => moduleRunRefs(c)],
]);

function ref(client: NestedRef['client'], fun: string | undefined): NestedRef | { invalid: string } {
  return fun === undefined || fun === '' ? { invalid: 'a function name argument is missing or not a string' } : { client, fun };
}

function local(fun: string | undefined): NestedRef | { invalid: string } {
  return ref('local', fun);
}

/** module.run: the old form names the function in `name`/arg 0; the new form has one kwarg per
 *  function ('test.echo': [...]). */
function moduleRunRefs(c: Call): Array<NestedRef | { invalid: string }> {
  const named = str(c.kwargs.name) ?? str(c.args[0]);
  const out: Array<NestedRef | { invalid: string }> = [];
  if (named !== undefined) out.push(local(named));
  for (const k of Object.keys(c.kwargs)) if (k.includes('.')) out.push(local(k));
  if (out.length === 0) out.push({ invalid: 'module.run names no function' });
  return out;
}
