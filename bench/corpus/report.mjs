// The corpus report: Markdown tables (paste into docs/states.md) and the summary object the
// runner prints as its last JSON line.

const pct = (n, d) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);

function table(head, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Per cause: files it blocks, files it alone blocks, repositories. */
function blockers(trees, pick) {
  const by = new Map();
  for (const t of trees) {
    for (const f of t.files) {
      const causes = pick(f);
      if (!causes) continue;
      for (const c of causes) {
        const e = by.get(c.cause) ?? { cause: c.cause, owner: c.owner, files: 0, only: 0, repos: new Set() };
        e.files++;
        if (causes.length === 1) e.only++;
        e.repos.add(t.repo);
        by.set(c.cause, e);
      }
    }
  }
  return [...by.values()].sort((a, b) => b.files - a.files || b.repos.size - a.repos.size || a.cause.localeCompare(b.cause));
}

/** Before -> after per tree and in total, against an earlier run's --json (the lead's "after" numbers). */
function printBaseline(trees, baseline, apply, out) {
  // only the trees of this run (--only), so that the totals compare like with like
  const measured = new Set(trees.map((t) => t.repo));
  baseline = { trees: baseline.trees.filter((t) => measured.has(t.repo)) };
  const old = new Map(baseline.trees.map((t) => [t.repo, t]));
  const count = (t, k) => (t ? t.files.filter((x) => x[k]).length : 0);
  const total = (list, k) => list.reduce((n, t) => n + count(t, k), 0);
  const oldFiles = baseline.trees.reduce((n, t) => n + t.files.length, 0);
  const newFiles = trees.reduce((n, t) => n + t.files.length, 0);
  out(`### Against the baseline (${baseline.trees.length} trees)`);
  out();
  out(
    `- compile: ${total(baseline.trees, 'compiled')}/${oldFiles} = ${pct(total(baseline.trees, 'compiled'), oldFiles)} -> ${total(trees, 'compiled')}/${newFiles} = ${pct(total(trees, 'compiled'), newFiles)}`,
  );
  if (apply)
    out(
      `- apply test=True: ${total(baseline.trees, 'applied')}/${oldFiles} = ${pct(total(baseline.trees, 'applied'), oldFiles)} -> ${total(trees, 'applied')}/${newFiles} = ${pct(total(trees, 'applied'), newFiles)}`,
    );
  const rows = [];
  for (const t of trees) {
    const b = old.get(t.repo);
    const [c0, c1, a0, a1] = [count(b, 'compiled'), count(t, 'compiled'), count(b, 'applied'), count(t, 'applied')];
    if (c0 !== c1 || (apply && a0 !== a1)) rows.push([t.repo, `${c0} -> ${c1}`, ...(apply ? [`${a0} -> ${a1}`] : [])]);
  }
  if (rows.length > 0) {
    out();
    out(table(['tree', 'compile', ...(apply ? ['apply test=True'] : [])], rows));
  }
  out();
}

/** Where the test=True runs spent their time: the state functions' own durations, summed over all files. */
function printApplyTime(trees, o, out) {
  const by = new Map();
  let wall = 0;
  for (const t of trees) {
    for (const f of t.files) {
      wall += f.applyMs ?? 0;
      for (const [fun, ms] of Object.entries(f.stateMs ?? {})) {
        const e = by.get(fun) ?? { fun, ms: 0, files: 0 };
        e.ms += ms;
        e.files++;
        by.set(fun, e);
      }
    }
  }
  const rows = [...by.values()].sort((a, b) => b.ms - a.ms).slice(0, 12);
  const inStates = [...by.values()].reduce((n, e) => n + e.ms, 0);
  out();
  out(`### test=True time: ${(wall / 1000).toFixed(1)} s of state.sls calls, ${(inStates / 1000).toFixed(1)} s inside state functions`);
  out();
  const n = trees.reduce((k, t) => k + t.files.filter((x) => x.applyMs !== undefined).length, 0);
  if (o.floor && n > 0) {
    const per = wall / 1000 / n;
    const raw = o.floor.update + o.floor.listing;
    out(
      `- per file: ${per.toFixed(2)} s; raw floor of one run here (apt-get update ${o.floor.update.toFixed(2)} s + dpkg-query ${o.floor.listing.toFixed(2)} s): ${raw.toFixed(2)} s; ratio ${(per / raw).toFixed(2)} (${o.jobs} calls in flight)`,
    );
    out();
  }
  out(
    table(
      ['state function', 'seconds', 'files', 'ms per file'],
      rows.map((e) => [e.fun, (e.ms / 1000).toFixed(1), String(e.files), String(Math.round(e.ms / e.files))]),
    ),
  );
}

// Causes Salt 3007 fails on too, given the same pillar: the tree's own pillar or variables are
// missing, a requisite or extend names a state of another file (Salt's requisite graph and
// reconcile_extend refuse it), the requisites form a cycle Salt 3007's graph reports too, or the
// tree's own #!py code asserts that pillar data it needs is there.
const SALT_FAILS_TOO = new Set([
  'undefined pillar/variable (data the tree expects)',
  'requisite names a state not in the run',
  'extend of an ID not in the high data',
  'requisite cycle (Salt 3007 refuses it too: saltstack/salt#65966)',
  'Python 2 dict method (Salt 3007 on Python 3 fails too)',
  "the tree's #!py code asserts on data it expects (pillar)",
]);

/** Files Salt 3007 itself would compile with the same pillar: all but those failing only for SALT_FAILS_TOO causes. */
export function saltComparable(files) {
  return files.filter((x) => x.compiled || !(x.cause ?? []).every((c) => SALT_FAILS_TOO.has(c.cause)));
}

export function printTables(trees, o) {
  const out = (s = '') => process.stdout.write(`${s}\n`);
  const laid = trees.filter((t) => !t.missing);
  const files = laid.flatMap((t) => t.files);
  const compiled = files.filter((x) => x.compiled).length;
  const applied = files.filter((x) => x.applied).length;
  const fullTrees = laid.filter((t) => t.files.length > 0 && t.files.every((x) => x.compiled)).length;

  out(`## Corpus: ${laid.length} trees, ${files.length} state files (${o.os}, ${o.seconds.toFixed(0)} s)`);
  out();
  out(`- compile (state.show_low_sls, includes and imports counted): **${compiled}/${files.length} = ${pct(compiled, files.length)}**`);
  if (o.apply) out(`- apply with test=True without a failed state: **${applied}/${files.length} = ${pct(applied, files.length)}**`);
  const comparable = saltComparable(files);
  out(
    `- of the ${comparable.length} files Salt 3007 itself would compile with the same pillar (all but those failing only for a missing pillar key/variable or a requisite on another file's state): **${compiled}/${comparable.length} = ${pct(compiled, comparable.length)}**`,
  );
  out(`- trees whose every state file compiles: ${fullTrees}/${laid.length}`);
  const missing = trees.filter((t) => t.missing).map((t) => t.repo);
  if (missing.length > 0) out(`- not laid out (skipped): ${missing.join(', ')}`);
  out();
  if (o.baseline) printBaseline(laid, o.baseline, o.apply, out);
  const rows = laid.map((t) => {
    const c = t.files.filter((x) => x.compiled).length;
    const a = t.files.filter((x) => x.applied).length;
    return [t.repo, t.kind, String(t.files.length), `${c} (${pct(c, t.files.length)})`, ...(o.apply ? [`${a} (${pct(a, t.files.length)})`] : []), t.pillarErrors.length > 0 ? 'pillar errors' : ''];
  });
  out(table(['tree', 'kind', 'state files', 'compile', ...(o.apply ? ['apply test=True'] : []), 'note'], rows));
  out();
  out('### Compile blockers (a file counts under every cause its errors name; "alone": the only cause)');
  out();
  const comp = blockers(laid, (f) => (f.compiled ? undefined : f.cause));
  out(
    table(
      ['cause', 'owner', 'files', 'alone', 'trees'],
      comp.slice(0, 40).map((e) => [e.cause, e.owner, String(e.files), String(e.only), String(e.repos.size)]),
    ),
  );
  if (comp.length > 40) out(`\n(${comp.length - 40} more causes in --json)`);
  let app = [];
  if (o.apply) {
    out();
    out('### test=True blockers (files that compile; first failed state or run error)');
    out();
    app = blockers(laid, (f) => (f.compiled && !f.applied ? f.applyCause : undefined));
    out(
      table(
        ['cause', 'owner', 'files', 'trees'],
        app.slice(0, 25).map((e) => [e.cause, e.owner, String(e.files), String(e.repos.size)]),
      ),
    );
  }
  if (o.apply) printApplyTime(laid, o, out);
  out();
  return {
    trees: laid.length,
    files: files.length,
    compiled,
    compiledPct: Number(((100 * compiled) / Math.max(1, files.length)).toFixed(1)),
    saltComparable: comparable.length,
    compiledOfSaltComparablePct: Number(((100 * compiled) / Math.max(1, comparable.length)).toFixed(1)),
    ...(o.apply ? { applied, appliedPct: Number(((100 * applied) / Math.max(1, files.length)).toFixed(1)) } : {}),
    seconds: Number(o.seconds.toFixed(1)),
    topBlockers: comp.slice(0, 10).map((e) => ({ cause: e.cause, files: e.files, trees: e.repos.size })),
  };
}
