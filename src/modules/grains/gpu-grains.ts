// Salt's gpus/num_gpus grains. Salt parses `lspci -vmm`; brine reads the same PCI data from
// /sys/bus/pci/devices (class, vendor, device) without starting lspci, and names the model from
// the pci.ids database lspci itself uses, when it is installed.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readHostFile } from './read-host-file.js';

// The display-controller classes Salt keeps (VGA compatible, 3D, display controller).
const GPU_CLASSES = new Set(['0300', '0302', '0380']);

// PCI vendor id -> the vendor word Salt finds in lspci's vendor name ('cirrus logic' is two words
// and never matches Salt's one-word split, so Cirrus cards are 'unknown' there too).
const VENDORS: Readonly<Record<string, string>> = {
  '10de': 'nvidia',
  '1002': 'amd',
  '8086': 'intel',
  '15ad': 'vmware',
  '102b': 'matrox',
  '1a03': 'aspeed',
};

export interface PciDevice {
  cls: string;
  vendor: string;
  device: string;
}

function hex4(text: string | undefined): string {
  return (text ?? '').trim().replace(/^0x/, '').toLowerCase().padStart(4, '0');
}

/** The PCI devices of the host (class as 6 hex digits, vendor and device as 4). */
export function pciDevices(dir = '/sys/bus/pci/devices'): PciDevice[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: PciDevice[] = [];
  for (const n of names) {
    try {
      const read = (f: string) => readFileSync(path.join(dir, n, f), 'utf8');
      out.push({ cls: read('class').trim().replace(/^0x/, '').toLowerCase(), vendor: hex4(read('vendor')), device: hex4(read('device')) });
    } catch {
      // a device that vanished while listing
    }
  }
  return out;
}

/** Pure: the device's name in pci.ids text, undefined when the database does not list it. */
export function pciDeviceName(pciIds: string, vendor: string, device: string): string | undefined {
  const start = pciIds.search(new RegExp(`^${vendor}\\s`, 'm'));
  if (start < 0) return undefined;
  for (const line of pciIds.slice(start).split('\n').slice(1)) {
    if (!line.startsWith('\t')) return undefined;
    const m = /^\t([0-9a-f]{4})\s+(.*)$/.exec(line);
    if (m?.[1] === device) return m[2]?.trim();
  }
  return undefined;
}

function readPciIds(files: readonly string[]): string {
  // the first of the places distributions keep it
  for (const f of files) {
    const text = readHostFile(f);
    if (text !== undefined) return text;
  }
  return '';
}

/** Pure but for the pci.ids read, done only when there is a GPU to name. */
export function gpuGrains(devices: readonly PciDevice[], pciIdsFiles = ['/usr/share/misc/pci.ids', '/usr/share/hwdata/pci.ids']): { num_gpus: number; gpus: { vendor: string; model: string }[] } {
  const gpus = devices.filter((d) => GPU_CLASSES.has(d.cls.slice(0, 4)));
  if (gpus.length === 0) return { num_gpus: 0, gpus: [] };
  const ids = readPciIds(pciIdsFiles);
  const list = gpus.map((d) => ({ vendor: VENDORS[d.vendor] ?? 'unknown', model: pciDeviceName(ids, d.vendor, d.device) ?? `Device ${d.device}` }));
  return { num_gpus: list.length, gpus: list };
}
