// A stand-in apt for state tests: shell scripts named apt-get, apt-cache, dpkg and dpkg-query
// in a temp directory put first on PATH. They keep the installed and available packages in
// two text files ("name version" lines) and log every apt-get call, so a test can check what
// ran — the real package manager cannot install and remove packages on every test run.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const APT_GET = `#!/bin/sh
d="$FAKE_APT_DIR"
echo "$*" >> "$d/calls"
verb=""; pkgs=""; seen=""; sim=""; only=""
for a in "$@"; do
  if [ -n "$seen" ]; then pkgs="$pkgs $a"; continue; fi
  case "$a" in
    --) seen=1 ;;
    --just-print) sim=1 ;;
    --only-upgrade) only=1 ;;
    install|remove|purge|update|upgrade|dist-upgrade) verb="$a" ;;
  esac
done
# upgrade and dist-upgrade: every installed package whose newest available version is newer
# ("name old new" lines); --just-print prints apt's Inst/Conf lines for them, else they are installed.
newer() {
  awk '$3 != "rc" {print $1, $2}' "$d/installed" | while read -r n v; do
    best=$(awk -v n="$n" '$1==n {print $2}' "$d/available" | sort -V | tail -n 1)
    [ -n "$best" ] && [ "$best" != "$v" ] && [ "$(printf '%s\\n%s\\n' "$v" "$best" | sort -V | tail -n 1)" = "$best" ] && echo "$n $v $best"
  done
}
case "$verb" in
  update) exit 0 ;;
  upgrade|dist-upgrade)
    newer > "$d/upgrades"
    if [ -n "$sim" ]; then
      while read -r n v b; do echo "Inst $n [$v] ($b Debian:12/stable [amd64])"; done < "$d/upgrades"
      while read -r n v b; do echo "Conf $n ($b Debian:12/stable [amd64])"; done < "$d/upgrades"
      exit 0
    fi
    while read -r n v b; do awk -v n="$n" '$1!=n' "$d/installed" > "$d/tmp"; echo "$n $b" >> "$d/tmp"; mv "$d/tmp" "$d/installed"; done < "$d/upgrades" ;;
  install)
    for p in $pkgs; do
      n="\${p%%=*}"; v=""; [ "$n" != "$p" ] && v="\${p#*=}"
      if [ -n "$only" ] && ! awk -v n="$n" '$1==n && $3!="rc" {f=1} END {exit !f}' "$d/installed"; then continue; fi
      avail=$(awk -v n="$n" '$1==n {print $2}' "$d/available" | tail -n 1)
      if [ -z "$avail" ]; then echo "E: Unable to locate package $n" >&2; exit 100; fi
      if [ -n "$v" ] && ! awk -v n="$n" -v v="$v" '$1==n && $2==v {f=1} END {exit !f}' "$d/available"; then echo "E: Version '$v' for '$n' was not found" >&2; exit 100; fi
      [ -z "$v" ] && v="$avail"
      awk -v n="$n" '$1!=n' "$d/installed" > "$d/tmp"; echo "$n $v" >> "$d/tmp"; mv "$d/tmp" "$d/installed"
    done ;;
  remove)
    # dpkg keeps a removed package's configuration files: status config-files ("rc").
    for n in $pkgs; do awk -v n="$n" '$1==n {print $1, $2, "rc"; next} {print}' "$d/installed" > "$d/tmp"; mv "$d/tmp" "$d/installed"; done ;;
  purge)
    for n in $pkgs; do awk -v n="$n" '$1!=n' "$d/installed" > "$d/tmp"; mv "$d/tmp" "$d/installed"; done ;;
esac
exit 0
`;

const DPKG_QUERY = `#!/bin/sh
echo "$*" >> "$FAKE_APT_DIR/queries"
awk '{st = ($3 == "rc") ? "deinstall ok config-files" : "install ok installed"; printf "%s\\t%s\\t%s\\tamd64\\n", st, $1, $2}' "$FAKE_APT_DIR/installed"
`;

const DPKG = `#!/bin/sh
# selections: held packages are the names listed in $FAKE_APT_DIR/held
d="$FAKE_APT_DIR"; touch "$d/held"
case "$1" in
  --print-architecture) echo amd64 ;;
  --get-selections)
    awk '$3 != "rc" {print $1}' "$d/installed" | while read -r n; do
      [ -n "$2" ] && [ "$n" != "$2" ] && continue
      if grep -qx "$n" "$d/held"; then printf '%s\\t\\t\\thold\\n' "$n"; else printf '%s\\t\\t\\tinstall\\n' "$n"; fi
    done ;;
  --set-selections)
    while read -r n s; do
      grep -vx "$n" "$d/held" > "$d/held.tmp"; mv "$d/held.tmp" "$d/held"
      if [ "$s" = hold ]; then echo "$n" >> "$d/held"; fi
    done ;;
  --compare-versions)
    [ "$2" = "$4" ] && exit 1
    low=$(printf '%s\\n%s\\n' "$2" "$4" | sort -V | head -n 1)
    [ "$low" = "$2" ] && exit 0 || exit 1 ;;
esac
`;

const APT_CACHE = `#!/bin/sh
for last; do :; done
n="$last"
inst=$(awk -v n="$n" '$1==n && $3!="rc" {print $2}' "$FAKE_APT_DIR/installed")
cand=$(awk -v n="$n" '$1==n {print $2}' "$FAKE_APT_DIR/available" | sort -V | tail -n 1)
echo "$n:"
echo "  Installed: \${inst:-(none)}"
echo "  Candidate: \${cand:-(none)}"
`;

export interface FakeApt {
  dir: string;
  /** Sets the installed packages, and those removed with their configuration files left (residual). */
  setInstalled(pkgs: Record<string, string>, residual?: Record<string, string>): void;
  setAvailable(pkgs: Record<string, string[]>): void;
  /** Installed packages (not those only left as configuration files). */
  installed(): Record<string, string>;
  /** Removed packages whose configuration files remain (dpkg's config-files). */
  residual(): string[];
  /** The apt-get command lines run so far. */
  calls(): string[];
  /** How many times dpkg-query listed the packages so far. */
  queries(): number;
  /** Packages whose dpkg selection is hold. */
  held(): string[];
  dispose(): void;
}

export function installFakeApt(): FakeApt {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-fakeapt-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  for (const [name, text] of Object.entries({ 'apt-get': APT_GET, 'dpkg-query': DPKG_QUERY, dpkg: DPKG, 'apt-cache': APT_CACHE })) {
    fs.writeFileSync(path.join(bin, name), text, { mode: 0o755 });
  }
  for (const f of ['installed', 'available', 'calls', 'queries']) fs.writeFileSync(path.join(dir, f), '');
  const savedPath = process.env.PATH;
  process.env.PATH = `${bin}:${savedPath ?? ''}`;
  process.env.FAKE_APT_DIR = dir;
  const lines = () =>
    fs
      .readFileSync(path.join(dir, 'installed'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(' '));
  const write = (file: string, lines: string[]) => fs.writeFileSync(path.join(dir, file), lines.map((l) => `${l}\n`).join(''));
  return {
    dir,
    setInstalled: (pkgs, residual = {}) => {
      write('installed', [...Object.entries(pkgs).map(([n, v]) => `${n} ${v}`), ...Object.entries(residual).map(([n, v]) => `${n} ${v} rc`)]);
      write('held', []);
    },
    setAvailable: (pkgs) =>
      write(
        'available',
        Object.entries(pkgs).flatMap(([n, vs]) => vs.map((v) => `${n} ${v}`)),
      ),
    installed: () =>
      Object.fromEntries(
        lines()
          .filter((f) => f[2] !== 'rc')
          .map((f) => [f[0], f[1]]),
      ),
    residual: () =>
      lines()
        .filter((f) => f[2] === 'rc')
        .map((f) => f[0]!),
    held: () =>
      fs.existsSync(path.join(dir, 'held'))
        ? fs
            .readFileSync(path.join(dir, 'held'), 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [],
    calls: () =>
      fs
        .readFileSync(path.join(dir, 'calls'), 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    // one line per call starts with -W (the format argument itself holds a newline)
    queries: () =>
      fs
        .readFileSync(path.join(dir, 'queries'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('-W')).length,
    dispose: () => {
      process.env.PATH = savedPath;
      delete process.env.FAKE_APT_DIR;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
