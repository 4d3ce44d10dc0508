// bench/salt-oracle.mjs's brine side and report: each file's brine outcome in the same shape as
// Salt's (salt-oracle.py), then per tree and in total how the two compare, for compile and for
// compile+apply, and the brine-only failures grouped by cause (bench/corpus/classify.mjs).

import { classify } from './classify.mjs';

const errorText = (r) => (r.error ? `${r.error.code}: ${r.error.message}` : typeof r.return === 'string' ? r.return : JSON.stringify(r.return));

/** The states of a run with result False, as Salt's side records them. */
function failedStates(ret) {
  if (!ret || typeof ret !== 'object' || Array.isArray(ret)) return [];
  return Object.entries(ret)
    .filter(([, r]) => r && typeof r === 'object' && r.result === false)
    .map(([tag, r]) => {
      const p = tag.split('_|-');
      const comment = typeof r.comment === 'string' ? r.comment : JSON.stringify(r.comment);
      return { id: r.__id__ ?? p[1] ?? tag, function: p.length === 4 ? `${p[0]}.${p[3]}` : tag, comment: comment.slice(0, 300) };
    });
}

/** brine's `state.show_sls` then `state.sls test=True` of one file, as `brine call --local` runs them: no force=True, since Salt's calls have none either (both refuse a run on a pillar that failed to render). */
export async function brineFile(ctx, sls) {
  const low = await ctx.call(ctx.executor, 'state.show_sls', [sls], {}, ctx.o);
  if (!low.success) {
    const error = errorText(low);
    return { compile: { ok: false, error, cause: classify(error, 'compile', ctx) }, apply: null };
  }
  const run = await ctx.call(ctx.executor, 'state.sls', [sls], { test: true }, ctx.o);
  const returned = run.success || run.retcode === 2;
  const failed = returned ? failedStates(run.return) : [];
  if (returned && failed.length === 0) return { compile: { ok: true }, apply: { ok: true } };
  const error = failed.length > 0 ? `${failed[0].function} ${failed[0].id}: ${failed[0].comment}` : errorText(run);
  const cause = classify(failed.length > 0 ? failed[0].comment : error, failed.length > 0 ? 'state' : 'run', ctx);
  return { compile: { ok: true }, apply: { ok: false, error, failed, cause } };
}

const KINDS = ['both ok', 'brine-only fail', 'Salt-only fail', 'both fail'];
const kindOf = (salt, brine) => (salt && brine ? KINDS[0] : salt ? KINDS[1] : brine ? KINDS[2] : KINDS[3]);
const applied = (r) => r.compile.ok && r.apply?.ok === true;

/** Each file's compile and compile+apply comparison. */
export function compare(file) {
  return { compile: kindOf(file.salt.compile.ok, file.brine.compile.ok), run: kindOf(applied(file.salt), applied(file.brine)) };
}

const pct = (n, d) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);

function counts(files) {
  const c = { files: files.length, compile: Object.fromEntries(KINDS.map((k) => [k, 0])), run: Object.fromEntries(KINDS.map((k) => [k, 0])) };
  for (const x of files) {
    const k = compare(x);
    c.compile[k.compile]++;
    c.run[k.run]++;
  }
  c.saltRun = c.run['both ok'] + c.run['brine-only fail'];
  c.brineRun = c.run['both ok'] + c.run['Salt-only fail'];
  c.saltCompile = c.compile['both ok'] + c.compile['brine-only fail'];
  c.brineCompile = c.compile['both ok'] + c.compile['Salt-only fail'];
  return c;
}

const row = (name, c) =>
  `| ${name.padEnd(40)} | ${String(c.files).padStart(5)} | ${KINDS.map((k) => String(c.compile[k]).padStart(4)).join(' | ')} | ${KINDS.map((k) => String(c.run[k]).padStart(4)).join(' | ')} | ${pct(c.run['both ok'], c.saltRun).padStart(6)} |`;

/** The brine-only failures (compile, else apply) grouped by their first cause, most files first. */
function brineOnlyCauses(files) {
  const by = new Map();
  for (const x of files) {
    const k = compare(x);
    const side = k.compile === 'brine-only fail' ? x.brine.compile : k.run === 'brine-only fail' ? x.brine.apply : undefined;
    if (!side) continue;
    // brine's show_sls applies extend and compiles requisites as a run does; Salt's only renders,
    // so a file whose Salt run then fails on the same requisite is a stricter check, not a gap
    const stricter = k.compile === 'brine-only fail' && !applied(x.salt) ? " (Salt's run fails too)" : '';
    const cause = `${side.cause?.[0]?.cause ?? 'unclassified'}${stricter}`;
    const e = by.get(cause) ?? { cause, owner: side.cause?.[0]?.owner ?? '?', stage: k.compile === 'brine-only fail' ? 'compile' : 'apply', files: [] };
    e.files.push(`${x.repo}:${x.sls}`);
    by.set(cause, e);
  }
  return [...by.values()].sort((a, b) => b.files.length - a.files.length);
}

export function printReport({ saltVersion, trees, notMeasured, verbose }) {
  const out = [`Salt ${saltVersion ?? '?'} against brine, per state file (compile = state.show_sls; run = compile and state.sls test=True with no failed state)`, ''];
  out.push(
    `| tree                                     | files | ${KINDS.map((k) => `compile ${k}`).join(' | ')} | ${KINDS.map((k) => `run ${k}`).join(' | ')} | brine/Salt run |`,
    `|${'-'.repeat(42)}|------:|${KINDS.map((k) => `${'-'.repeat(k.length + 9)}:`).join('|')}|${KINDS.map((k) => `${'-'.repeat(k.length + 5)}:`).join('|')}|---------------:|`,
  );
  const all = trees.flatMap((t) => t.files.map((x) => ({ ...x, repo: t.repo, kind: t.kind })));
  for (const t of trees) out.push(row(t.files.length < t.of ? `${t.repo} (${t.files.length}/${t.of})` : t.repo, counts(t.files)));
  const groups = [
    ['saltstack-formulas', all.filter((x) => x.kind === 'formula')],
    ["operators' trees", all.filter((x) => x.kind === 'tree')],
    ['total', all],
  ];
  for (const [name, files] of groups) out.push(row(`**${name}**`, counts(files)));
  out.push('');
  for (const [name, files] of groups) {
    const c = counts(files);
    out.push(
      `${name}: ${c.files} files. brine compiles and applies ${c.run['both ok']} of the ${c.saltRun} Salt compiles and applies (${pct(c.run['both ok'], c.saltRun)}); compiles ${c.compile['both ok']} of Salt's ${c.saltCompile} (${pct(c.compile['both ok'], c.saltCompile)}). Raw: brine compile ${pct(c.brineCompile, c.files)}, run ${pct(c.brineRun, c.files)}; Salt compile ${pct(c.saltCompile, c.files)}, run ${pct(c.saltRun, c.files)}.`,
    );
  }
  const causes = brineOnlyCauses(all);
  out.push('', `brine-only failures by cause (${causes.reduce((n, e) => n + e.files.length, 0)} files):`);
  for (const e of causes) out.push(`  ${String(e.files.length).padStart(4)}  ${e.stage}: ${e.cause} [${e.owner}]${verbose ? `\n        ${e.files.join(' ')}` : `  e.g. ${e.files[0]}`}`);
  if (notMeasured.length > 0) out.push('', 'not measured completely (Salt unfinished or excluded):', ...notMeasured.map((n) => `  ${n.repo}: ${n.why.split('\n')[0].slice(0, 600)}`));
  const c = counts(all);
  process.stdout.write(
    `${out.join('\n')}\n${JSON.stringify({ saltVersion, files: c.files, saltRun: c.saltRun, brineAmongSaltRun: c.run['both ok'], saltCompile: c.saltCompile, brineAmongSaltCompile: c.compile['both ok'], brineCompile: c.brineCompile, brineRun: c.brineRun })}\n`,
  );
}
