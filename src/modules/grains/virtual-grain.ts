// Salt's virtual and virtual_subtype grains (salt/grains/core.py _virtual) on Linux, from files
// only. Salt first runs systemd-detect-virt / virt-what / dmidecode / lspci; brine reads what
// they read: the DMI strings dmidecode prints (/sys/class/dmi/id) and PID 1's `container=`
// variable systemd-detect-virt checks, then applies Salt's own /proc and /sys checks unchanged.

import { statSync } from 'node:fs';
import { readHostFile } from './read-host-file.js';

/** What the decision reads; each field undefined when the file is missing or unreadable. */
export interface VirtualFacts {
  /** /sys/class/dmi/id: sys_vendor, product_name, bios_vendor, product_version. */
  sysVendor?: string;
  productName?: string;
  biosVendor?: string;
  productVersion?: string;
  /** PID 1's environment (NUL-separated), /proc/1/cgroup, /proc/self/status, /proc/cpuinfo. */
  pid1Environ?: string;
  pid1Cgroup?: string;
  selfStatus?: string;
  cpuinfo?: string;
  /** / and /proc/1/root are different directories (Salt's chroot check). */
  chroot?: boolean;
  procVzVersion?: boolean;
  procVzVeinfo?: boolean;
  /** /proc/sys/xen, /sys/bus/xen or /proc/xen exists. */
  xen?: boolean;
  xenXsdKva?: boolean;
  xenCapabilities?: string;
  xenConsole?: boolean;
}

/** dmidecode's verdict in Salt's order, from the DMI strings. */
function fromDmi(f: VirtualFacts, g: { virtual: string; virtual_subtype?: string }): void {
  const vendor = f.sysVendor ?? '';
  const product = f.productName ?? '';
  const bios = f.biosVendor ?? '';
  // systemd-detect-virt's DMI answer 'amazon', which Salt reports as Nitro
  if (vendor === 'Amazon EC2') Object.assign(g, { virtual: 'Nitro', virtual_subtype: 'Amazon EC2' });
  if (bios === 'QEMU' || vendor === 'QEMU' || bios === 'Bochs' || vendor === 'Bochs') g.virtual = 'kvm';
  const all = `${vendor}\n${product}\n${bios}`;
  if (all.includes('BHYVE')) g.virtual = 'bhyve';
  else if (vendor.startsWith('oVirt')) Object.assign(g, { virtual: 'kvm', virtual_subtype: 'ovirt' });
  else if (product.startsWith('RHEV Hypervisor')) Object.assign(g, { virtual: 'kvm', virtual_subtype: 'rhev' });
  else if (all.includes('VirtualBox')) g.virtual = 'VirtualBox';
  else if (all.includes('VMware')) g.virtual = 'VMware';
  else if (vendor.startsWith('Microsoft') && product.includes('Virtual Machine')) g.virtual = 'VirtualPC';
  else if (all.includes('Parallels Software')) g.virtual = 'Parallels';
  else if (vendor.startsWith('Google')) g.virtual = 'kvm';
  else if (vendor.startsWith('Nutanix') && product.startsWith('AHV')) Object.assign(g, { virtual: 'kvm', virtual_subtype: 'Nutanix AHV' });
  else if (bios === 'SeaBIOS') g.virtual = 'kvm';
}

/** The container systemd-detect-virt names from PID 1's `container=` variable. */
function fromContainerEnv(f: VirtualFacts, g: { virtual: string; virtual_subtype?: string }): boolean {
  const m = /(?:^|\0)container=([^\0]*)/.exec(f.pid1Environ ?? '');
  if (m?.[1] === 'systemd-nspawn') g.virtual = 'systemd-nspawn';
  else if (m?.[1]?.includes('lxc')) Object.assign(g, { virtual: 'container', virtual_subtype: 'LXC' });
  else if (m?.[1] === 'podman') Object.assign(g, { virtual: 'container', virtual_subtype: 'Podman' });
  else return false;
  return true;
}

/** Salt's file checks after the commands (OpenVZ, Xen, QEMU CPU, DMI product name, cgroups). */
function fileChecks(f: VirtualFacts, g: { virtual: string; virtual_subtype?: string }): void {
  if (f.chroot) g.virtual_subtype = 'chroot';
  if (f.procVzVersion) g.virtual = 'openvzhn';
  else if (f.procVzVeinfo) g.virtual = 'openvzve';
  const env = /^envID:\s+(\d+)$/m.exec(f.selfStatus ?? '');
  if (env) g.virtual = Number(env[1]) !== 0 ? 'openvzve' : 'openvzhn';
  if (f.xen) {
    if (f.xenXsdKva) g.virtual_subtype = 'Xen Dom0';
    else if (f.productName === 'HVM domU') g.virtual_subtype = 'Xen HVM DomU';
    else if (f.xenCapabilities !== undefined) g.virtual_subtype = f.xenCapabilities.includes('control_d') ? 'Xen Dom0' : 'Xen PV DomU';
    else if (f.xenConsole) g.virtual_subtype = 'Xen PV DomU';
    if (g.virtual_subtype?.toLowerCase().includes('dom')) g.virtual = 'xen';
  }
  if (f.cpuinfo?.includes('QEMU Virtual CPU')) g.virtual = 'kvm';
  const product = f.productName ?? '';
  if (product.includes('VirtualBox')) g.virtual = 'VirtualBox';
  else if (product.includes('RHEV Hypervisor')) Object.assign(g, { virtual: 'kvm', virtual_subtype: 'rhev' });
  else if (product.includes('oVirt Node')) Object.assign(g, { virtual: 'kvm', virtual_subtype: 'ovirt' });
  else if (product.includes('Google')) g.virtual = 'gce';
  else if (product.includes('BHYVE')) g.virtual = 'bhyve';
  const cg = f.pid1Cgroup ?? '';
  if (cg.includes(':/lxc/')) Object.assign(g, { virtual: 'container', virtual_subtype: 'LXC' });
  else if (cg.includes(':/kubepods/')) g.virtual_subtype = 'kubernetes';
  else if (cg.includes(':/libpod_parent/')) g.virtual_subtype = 'libpod';
  else if ([':/system.slice/docker', ':/docker/', ':/docker-ce/'].some((x) => cg.includes(x))) Object.assign(g, { virtual: 'container', virtual_subtype: 'Docker' });
  if (g.virtual_subtype !== 'LXC' && f.pid1Environ?.includes('container=lxc')) Object.assign(g, { virtual: 'container', virtual_subtype: 'LXC' });
}

/** Pure: Salt's virtual grains for these facts. */
export function virtualGrains(f: VirtualFacts): { virtual: string; virtual_subtype?: string } {
  const g: { virtual: string; virtual_subtype?: string } = { virtual: 'physical' };
  if (!fromContainerEnv(f, g)) fromDmi(f, g);
  fileChecks(f, g);
  if (g.virtual_subtype && g.virtual === 'physical') g.virtual = 'virtual';
  if (['qemu', 'kvm', 'xen', 'amazon'].includes(g.virtual) && f.sysVendor === 'Amazon EC2') {
    if (g.virtual !== 'xen') g.virtual = 'Nitro';
    g.virtual_subtype = f.productName ? `Amazon EC2 (${f.productName})` : 'Amazon EC2';
  } else if (['qemu', 'kvm', 'xen', 'amazon'].includes(g.virtual) && /\.amazon/.test(f.productVersion ?? '')) g.virtual_subtype = 'Amazon EC2';
  return g;
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

function differentRoot(): boolean {
  try {
    const a = statSync('/');
    const b = statSync('/proc/1/root/.');
    return a.dev !== b.dev || a.ino !== b.ino;
  } catch {
    // /proc/1/root is readable only by root: Salt skips the check on that OSError too
    return false;
  }
}

/** The facts of this host. */
export function readVirtualFacts(): VirtualFacts {
  const dmi = (f: string) => readHostFile(`/sys/class/dmi/id/${f}`)?.trim();
  return {
    sysVendor: dmi('sys_vendor'),
    productName: dmi('product_name'),
    biosVendor: dmi('bios_vendor'),
    productVersion: dmi('product_version'),
    pid1Environ: readHostFile('/proc/1/environ'),
    pid1Cgroup: readHostFile('/proc/1/cgroup'),
    selfStatus: readHostFile('/proc/self/status'),
    cpuinfo: readHostFile('/proc/cpuinfo'),
    chroot: differentRoot(),
    procVzVersion: exists('/proc/vz/version'),
    procVzVeinfo: exists('/proc/vz/veinfo'),
    xen: exists('/proc/sys/xen') || exists('/sys/bus/xen') || exists('/proc/xen'),
    xenXsdKva: exists('/proc/xen/xsd_kva'),
    xenCapabilities: readHostFile('/proc/xen/capabilities'),
    xenConsole: exists('/sys/bus/xen/drivers/xenconsole'),
  };
}
