// The host's user and group databases in their /etc/passwd and /etc/group text form. Parsing
// only: modules/user-db.ts reads them through getent, util/local-account.ts from the files.

export interface PasswdEntry {
  name: string;
  passwd: string;
  uid: number;
  gid: number;
  gecos: string;
  home: string;
  shell: string;
}

export interface GroupEntry {
  name: string;
  passwd: string;
  gid: number;
  members: string[];
}

export function parsePasswd(text: string): PasswdEntry[] {
  const out: PasswdEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const f = line.split(':');
    if (f.length < 7) continue;
    out.push({ name: f[0]!, passwd: f[1]!, uid: Number(f[2]), gid: Number(f[3]), gecos: f[4]!, home: f[5]!, shell: f.slice(6).join(':') });
  }
  return out;
}

export function parseGroup(text: string): GroupEntry[] {
  const out: GroupEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const f = line.split(':');
    if (f.length < 4) continue;
    out.push({ name: f[0]!, passwd: f[1]!, gid: Number(f[2]), members: f[3]!.split(',').filter((m) => m !== '') });
  }
  return out;
}
