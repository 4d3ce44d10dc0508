// The network_info beacon (issue 25 point 6) on this host's real /proc/net/dev: psutil's
// net_io_counters fields (checked against status.netdev's reading of the same file), counters that
// grow with real loopback traffic, Salt's equal/greater thresholds and validate texts.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { NETIO_ATTRS, netIoCounters, networkInfoBeacon } from '../../../src/beacons/network-info.js';
import { parseNetdev } from '../../../src/modules/status-counters.js';
import { beaconProblem } from '../../../src/minion/beacons/beacon-store.js';
import { FakeClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { waitUntil } from '../../helpers/wait.js';

const beacon = () => networkInfoBeacon.create({ id: 'm1', clock: new FakeClock(), logger: silentLogger(), call: async () => undefined });

/** Sends `bytes` over a real loopback TCP connection. */
async function loopbackTraffic(bytes: number): Promise<void> {
  const server = net.createServer((s) => s.resume());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, '127.0.0.1');
  await new Promise<void>((r) => client.end(Buffer.alloc(bytes), r));
  await new Promise<void>((r) => server.close(() => r()));
}

describe('network_info beacon', () => {
  it("reads psutil's counters per interface: the same numbers status.netdev reads, under psutil's names", () => {
    const text = fs.readFileSync('/proc/net/dev', 'utf8');
    const psutil = netIoCounters(text);
    const salt = parseNetdev(text) as Record<string, Record<string, number>>;
    assert.ok(psutil.has('lo'), [...psutil.keys()].join(','));
    for (const [iface, c] of psutil) {
      const s = salt[iface]!;
      assert.deepEqual(
        [c.bytes_recv, c.packets_recv, c.errin, c.dropin, c.bytes_sent, c.packets_sent, c.errout, c.dropout],
        [s.rx_bytes, s.rx_packets, s.rx_errs, s.rx_drop, s.tx_bytes, s.tx_packets, s.tx_errs, s.tx_drop],
        iface,
      );
    }
  });

  it('loopback counters grow with real traffic', async () => {
    const before = netIoCounters().get('lo')!;
    await loopbackTraffic(64 * 1024);
    await waitUntil(() => netIoCounters().get('lo')!.bytes_sent >= before.bytes_sent + 64 * 1024, 10_000, 'lo bytes_sent to grow by the 64 KiB sent');
    assert.ok(netIoCounters().get('lo')!.packets_recv > before.packets_recv);
  });

  it("fires {interface, network_info} in Salt's field order when a counter is greater; stays silent otherwise", async () => {
    const inst = beacon();
    const events = await inst.poll({ interfaces: { lo: { type: 'greater', bytes_sent: 0 }, 'no-such-if0': { type: 'greater', bytes_sent: 0 } } });
    assert.equal(events.length, 1);
    const e = events[0] as { interface: string; network_info: Record<string, number> };
    assert.equal(e.interface, 'lo');
    assert.deepEqual(Object.keys(e.network_info), [...NETIO_ATTRS]);
    assert.ok(e.network_info.bytes_sent! > 0);
    assert.deepEqual(await inst.poll({ interfaces: { lo: { type: 'greater', bytes_sent: Number.MAX_SAFE_INTEGER } } }), []);
  });

  it('equal (the default type) fires only on the exact value', async () => {
    const inst = beacon();
    // errout on loopback is 0 and stays 0
    assert.equal(netIoCounters().get('lo')!.errout, 0);
    assert.equal((await inst.poll({ interfaces: { lo: { errout: 0 } } })).length, 1);
    assert.equal((await inst.poll({ interfaces: { lo: { type: 'equal', errout: '0' } } })).length, 1, "Salt's int('0')");
    assert.equal((await inst.poll({ interfaces: { lo: { type: 'equal', errout: 1 } } })).length, 0);
  });

  it("validate answers Salt's texts (and refuses a threshold Salt's int() would fail on)", async () => {
    assert.equal(networkInfoBeacon.validate({ interfaces: { eth0: { type: 'greater', bytes_recv: 100 } } }), undefined);
    assert.equal(networkInfoBeacon.validate({}), undefined);
    assert.equal(networkInfoBeacon.validate({ interfaces: { eth0: 5 } }), 'Configuration for network_info beacon must be a list of dictionaries.');
    assert.equal(networkInfoBeacon.validate({ interfaces: { eth0: { speed: 1 } } }), 'Invalid configuration item in Beacon configuration.');
    assert.match(String(networkInfoBeacon.validate({ interfaces: { eth0: { bytes_recv: 'lots' } } })), /eth0 bytes_recv must be a whole number, got "lots"/);
    // the older mapping form is read as the list form is
    assert.equal(await beaconProblem('network_info', { interfaces: { lo: { errin: 0 } } }), undefined);
    assert.match(String(await beaconProblem('network_info', 'eth0')), /must be a list of mappings/);
  });
});
