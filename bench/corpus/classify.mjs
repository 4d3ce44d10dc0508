// Failure causes: an error text -> the causes it names, each a short label and the issue-22
// owner of the fix, so that files failing for one reason are counted together. A compile error
// lists one problem per "- " line (Salt's list of messages); each line is classified.

// Salt's core grains (salt/grains/core.py) a tree may read; any other grain is the tree's own.
const CORE_GRAINS = new Set(
  'os os_family osarch oscodename osfinger osfullname osmajorrelease osrelease osrelease_info lsb_distrib_id lsb_distrib_codename lsb_distrib_release lsb_distrib_description init path shell virtual virtual_subtype ip4_interfaces ip6_interfaces ip_interfaces fqdn_ip4 fqdn_ip6 ipv4 ipv6 cpu_model cpu_flags kernel kernelrelease kernelversion saltversion saltversioninfo pythonversion num_cpus mem_total swap_total host fqdn domain nodename localhost id machine_id cpuarch biosversion manufacturer productname serialnumber uuid systemd selinux locale_info dns gpus hwaddr_interfaces ip4_gw ip6_gw ip_gw username groupname pid uid gid timezone'.split(
    ' ',
  ),
);

// Who owns a missing state function in issue 22 (the task split); anything else is unowned.
const STATE_OWNER = [
  [/^(git\.(latest|config_set)|pip\.installed|virtualenv\.managed|file\.(comment|uncomment|keyvalue|serialize|accumulated)|ssh_auth\.|ssh_known_hosts\.)/, 'states-a'],
  [/^(sysctl\.present|mount\.|pkg\.uptodate|debconf\.set|grains\.(present|list_present)|alternatives\.|timezone\.system|locale\.|cron\.env_|apache_module\.)/, 'states-b'],
  [/^(docker_|selinux\.|firewalld\.|iptables\.|network\.|postgres_|mysql_|x509\.)/, 'states-c'],
];

function stateOwner(fn) {
  for (const [re, owner] of STATE_OWNER) if (re.test(fn)) return owner;
  return 'unowned';
}

const RULES = [
  [/State '([\w.]+)' was not found in SLS/, (m) => ({ cause: `state function ${m[1]} missing`, owner: stateOwner(m[1]) })],
  [/: ([\w.]+): unexpected keyword argument '(\w+)'/, (m) => ({ cause: `argument ${m[1]}: ${m[2]} refused`, owner: 'paths (leniency) / states-b' })],
  [/: ([\w.]+): argument '(\w+)' must be/, (m) => ({ cause: `argument ${m[1]}: ${m[2]} of another type refused`, owner: 'paths (leniency)' })],
  [/uses the requisite '(\w+)', which brine does not support/, (m) => ({ cause: `requisite ${m[1]} refused`, owner: 'corpus' })],
  [/'retry' must be true or a mapping/, () => ({ cause: 'retry: <number> refused (Salt warns, uses defaults)', owner: 'corpus' })],
  [/Multiple dictionaries defined in argument/, () => ({ cause: 'multi-key dict in a non-requisite argument', owner: 'paths' })],
  [/there is no \S+ on this host: install it/, () => ({ cause: 'no python3 for #!py/#!pyobjects (RENDERER_NEEDS_PYTHON)', owner: 'environment' })],
  [/renderer: ModuleNotFoundError: No module named 'salt'/, () => ({ cause: "the tree's Python imports Salt's own modules (salt.utils...)", owner: 'tree' })],
  [/Python error in the '#!py\w*' renderer: AssertionError/, () => ({ cause: "the tree's #!py code asserts on data it expects (pillar)", owner: 'environment' })],
  [/Python error in the '#!py\w*' renderer: (\w+)/, (m) => ({ cause: `the tree's Python (#!py...) raised ${m[1]}`, owner: 'environment / pyrender' })],
  [/the renderer pipeline '(#![^']*)' is not supported/, (m) => ({ cause: `renderer ${m[1].split(/\s/)[0]}`, owner: 'corpus' })],
  [/the filter '?(\w+)'? is not supported/, (m) => ({ cause: `Jinja filter ${m[1]}`, owner: 'jinja' })],
  [/Jinja syntax error: unexpected token: \)/, () => ({ cause: 'Jinja: trailing comma before )', owner: 'jinja' })],
  [/Jinja syntax error: unexpected token: \*\*?/, () => ({ cause: 'Jinja: *args/**kwargs in a call', owner: 'jinja' })],
  [/Jinja syntax error: ([^|\n]*)/, (m) => ({ cause: `Jinja syntax: ${m[1].trim().replace(/\s+/g, ' ').slice(0, 60)}`, owner: 'jinja' })],
  [/only string dict keys are supported/, () => ({ cause: 'Jinja: int/bool dict keys', owner: 'jinja' })],
  [/UNKNOWN_FUNCTION: '([\w.]+)' is not available/, (m) => ({ cause: `execution function ${m[1]} missing`, owner: 'execmods' })],
  [
    /'grains\["(\w+)"\]' is undefined/,
    (m) => (CORE_GRAINS.has(m[1]) ? { cause: `core grain ${m[1]} missing`, owner: 'corpus' } : { cause: 'a grain of the tree (custom grains module)', owner: 'environment' }),
  ],
  [/has no attribute '(iteritems|itervalues|iterkeys|has_key)'/, () => ({ cause: 'Python 2 dict method (Salt 3007 on Python 3 fails too)', owner: 'salt' })],
  [/'None' has no attribute/, () => ({ cause: 'a value the tree expects is None (pillar data, or a lookup that failed here)', owner: 'environment' })],
  [/has no attribute '[^']+' \('[^']*' is undefined\)/, () => ({ cause: 'undefined pillar/variable (data the tree expects)', owner: 'environment' })],
  [/'pillar\["\w+"\]' is undefined|'\w+\.\w+' is undefined|Jinja error: '\w+' is undefined/, () => ({ cause: 'undefined pillar/variable (data the tree expects)', owner: 'environment' })],
  [/an undefined value was used/, () => ({ cause: 'undefined value (Jinja names no variable)', owner: 'jinja (message) / environment' })],
  [/template not found: (\S+)/, () => ({ cause: 'Jinja import/include of a file not in file_roots', owner: 'environment' })],
  [/duplicate key in a mapping/, () => ({ cause: "YAML duplicate key (Salt's loader refuses it too)", owner: 'tree' })],
  [/YAML error/, () => ({ cause: 'YAML error', owner: 'corpus' })],
  [/Specified SLS '[^']+' in saltenv '\w+' is not available/, () => ({ cause: 'included SLS not in the tree', owner: 'environment' })],
  [/Recursive requisites were found/, () => ({ cause: 'requisite cycle (Salt 3007 refuses it too: saltstack/salt#65966)', owner: 'salt' })],
  [/Cannot extend ID/, () => ({ cause: 'extend of an ID not in the high data', owner: 'follows' })],
  [/Referenced state does not exist for requisite/, () => ({ cause: 'requisite names a state not in the run', owner: 'follows' })],
  [/not supported between instances/, () => ({ cause: 'Jinja: comparison of mismatched types', owner: 'jinja' })],
  [/timeout|interrupted/, () => ({ cause: 'timed out', owner: 'corpus' })],
];

/** A shebang naming a renderer the tree ships itself (layout.mjs treeRenderers). */
function ownRenderer(line, renderers) {
  const m = /the renderer pipeline '#!\s*([\w]+)/.exec(line);
  if (!m || !renderers.has(m[1])) return undefined;
  return { cause: "the tree's own Python renderer (_renderers/extmods, Salt extension code brine does not run)", owner: 'tree' };
}

/** Failed states of named formulas that fail the same way in Salt 3007 on this machine, and why. */
const SALT_FAILS_TOO_STATE = [
  [
    /salt:\/\/nginx\/files\/default\/nginx\.conf:\S+ Jinja error: 'config' is undefined/,
    "nginx-formula's pillar.example sets server.config.source_path to a file not in the tree, so config.sls passes no context and the fallback template reads an undefined config (Salt 3007 fails too)",
  ],
  [/Jinja error: EXEC_FAILED: .*python2: command not found/, 'the template runs python2, which this host lacks (Salt 3007 fails too)'],
  [/^The following group\(s\) are not present/, "user.present with groups the run's own group.present would create: Salt 3007's user.present checks them even with test=True (fails too)"],
];

function classifyLine(line, renderers = new Set()) {
  const own = ownRenderer(line, renderers);
  if (own) return own;
  for (const [re, fn] of RULES) {
    const m = re.exec(line);
    if (m) return fn(m);
  }
  const text = line
    .replace(/^- /, '')
    .replace(/salt:\/\/\S+/g, 'FILE')
    .replace(/'[^']*'/g, "'…'")
    .slice(0, 70);
  return { cause: `other: ${text}`, owner: '?' };
}

/**
 * The causes of one failure. `stage` is compile (a show_low_sls error), run (state.sls itself
 * failed) or state (a state returned result False: its comment). "follows" causes (a requisite
 * on a state another error removed) are dropped when anything else is named. `tree.pillarFailed`:
 * the tree's pillar did not render completely; `tree.renderers`: the names of the renderers the
 * tree ships (a shebang naming one is the tree's own code).
 */
export function classify(text, stage, tree = {}) {
  const renderers = tree.renderers ?? new Set();
  const s = String(text);
  // Salt refuses every state run of a minion whose pillar failed to render ("Pillar failed to
  // render with the following messages"); brine's bench applies with what rendered, so a
  // template missing that pillar data fails in Salt too (collectd's pillar.example reads
  // ip4_interfaces:eth1[0], which fails on a host without eth1, in Python as here)
  if (stage === 'state' && tree.pillarFailed && /Jinja error: .*is undefined/.test(s)) {
    return [{ cause: 'test=True: template data from a pillar.example that does not render here (Salt 3007 refuses the run: Pillar failed to render)', owner: 'salt' }];
  }
  for (const [re, cause] of SALT_FAILS_TOO_STATE) if (re.test(s)) return [{ cause: `test=True: ${cause}`, owner: 'salt' }];
  if (stage === 'state') return [{ cause: `test=True: ${classifyState(s)}`, owner: 'state' }];
  const lines = s.split('\n').filter((l) => l.startsWith('- '));
  const all = (lines.length > 0 ? lines : [s.split('\n')[0]]).map((l) => classifyLine(l, renderers));
  const seen = new Map();
  for (const c of all) if (!seen.has(c.cause)) seen.set(c.cause, c);
  const list = [...seen.values()];
  const real = list.filter((c) => c.owner !== 'follows');
  return real.length > 0 ? real : list;
}

/** A failed state's comment reduced to its kind (the first clause, names and paths elided). */
function classifyState(comment) {
  return comment
    .split('\n')[0]
    .replace(/'[^']*'|"[^"]*"/g, '…')
    .replace(/\/\S+/g, 'PATH')
    .replace(/\d+/g, 'N')
    .slice(0, 90);
}
