import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../free-port';
import { guestImage, type GuestVariant } from './paths';
import { makeGuestDisk } from './per-vm-config';
import { bootGuest, type Firmware, type RunningGuest } from './qemu-boot';

/**
 * Measures the lab guest's boot under TCG: boot-to-agent and boot-to-probe for N guests started at
 * once, with the load average; `--analyze` also prints `systemd-analyze` from inside the first guest
 * (through the agent's guest-exec). A measuring tool (prints figures), not a test.
 *
 *   node --import tsx lab/guest-image/measure-boot.ts --firmware seabios --count 3 [--analyze]
 *     [--ovmf-size 2m] [--no-option-roms]
 *
 * FERRY_GUEST_IMAGE_DIR picks another built image.
 */
const { values } = parseArgs({
  options: {
    firmware: { type: 'string', default: 'seabios' },
    count: { type: 'string', default: '1' },
    variant: { type: 'string', default: 'mac' },
    analyze: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // What OVMF boots cost (see docs/lab.md): the vars size, and the NICs' iPXE option ROMs.
    'ovmf-size': { type: 'string', default: '4m' },
    'no-option-roms': { type: 'boolean', default: false },
  },
});

function probeBanner(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const done = (v: string | undefined) => (socket.destroy(), resolve(v));
    socket.setTimeout(5000, () => done(undefined));
    socket.on('data', (c) => {
      data += c.toString();
      if (data.includes('\n')) done(data.split('\n')[0]);
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(data ? data : undefined));
  });
}

async function untilProbe(port: number, startedAt: number, timeoutMs: number): Promise<number> {
  while (Date.now() - startedAt < timeoutMs) {
    const banner = await probeBanner(port);
    if (banner?.startsWith('ferry-guest-probe')) return Date.now() - startedAt;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no probe answer within ${timeoutMs} ms`);
}

/** CPU seconds QEMU has used (user + system): what a boot costs, whatever else the machine runs. */
function cpuSeconds(guest: RunningGuest): number {
  const fields = readFileSync(`/proc/${guest.process.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

async function guestExec(guest: RunningGuest, argv: string[]): Promise<string> {
  const agent = await guest.agent();
  try {
    const { pid } = await agent.execute<{ pid: number }>('guest-exec', {
      path: argv[0],
      arg: argv.slice(1),
      'capture-output': true,
    });
    for (;;) {
      const status = await agent.execute<{ exited: boolean; 'out-data'?: string; 'err-data'?: string }>(
        'guest-exec-status',
        { pid },
      );
      if (status.exited) return Buffer.from(status['out-data'] ?? status['err-data'] ?? '', 'base64').toString();
      await new Promise((r) => setTimeout(r, 300));
    }
  } finally {
    agent.close();
  }
}

async function main(): Promise<void> {
  const image = guestImage();
  const firmware = values.firmware as Firmware;
  const count = Number(values.count);
  const work = mkdtempSync(path.join(os.tmpdir(), 'ferry-measure-boot-'));
  const guests: RunningGuest[] = [];
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  try {
    const results = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const dir = path.join(work, `g${i}`);
        mkdirSync(dir);
        const mac = `52:54:00:12:35:${String(10 + i).padStart(2, '0')}`;
        const config = {
          hostname: `m${i}`,
          dns: ['192.0.2.3'],
          nics: [{ mac, address: '192.0.2.10/24', gateway: '192.0.2.254' }],
        };
        const disk = await makeGuestDisk(values.variant as GuestVariant, path.join(dir, 'disk.raw'), config, image);
        const port = await freePort();
        const forwards = [{ hostPort: port, guestAddress: '192.0.2.10', guestPort: image.manifest.probe.port }];
        const guest = await bootGuest({
          disk,
          firmware,
          workDir: dir,
          nics: [{ mac, net: '192.0.2.0/24', host: '192.0.2.254', forwards }],
          ovmfSize: values['ovmf-size'] === '2m' ? '2m' : '4m',
          optionRoms: !values['no-option-roms'],
        });
        guests.push(guest);
        const agentMs = await guest.waitForAgent(300_000);
        const agentCpu = cpuSeconds(guest);
        const probeMs = await untilProbe(port, guest.startedAt, 300_000);
        return { agentMs, agentCpu, probeMs, probeCpu: cpuSeconds(guest), guest };
      }),
    );
    const f = (ms: number) => (ms / 1000).toFixed(1);
    const variant =
      firmware === 'ovmf'
        ? ` (vars ${values['ovmf-size']}${values['no-option-roms'] ? ', no option ROMs' : ''})`
        : values['no-option-roms']
          ? ' (no option ROMs)'
          : '';
    console.log(
      `image ${image.manifest.key}, ${firmware}${variant}, ${count} at once, load before ${load}, after ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    results.forEach((r, i) =>
      console.log(
        `  guest ${i}: agent ${f(r.agentMs)} s (QEMU CPU ${r.agentCpu.toFixed(1)} s), probe ${f(r.probeMs)} s (QEMU CPU ${r.probeCpu.toFixed(1)} s)`,
      ),
    );
    if (values.analyze) {
      const first = results[0]!.guest;
      console.log(await guestExec(first, ['/usr/bin/systemd-analyze']));
      console.log(await guestExec(first, ['/usr/bin/systemd-analyze', 'blame', '--no-pager']));
      console.log(
        await guestExec(first, [
          '/usr/bin/systemd-analyze',
          'critical-chain',
          '--no-pager',
          'qemu-guest-agent.service',
        ]),
      );
      console.log(
        await guestExec(first, [
          '/usr/bin/systemd-analyze',
          'critical-chain',
          '--no-pager',
          'systemd-networkd.service',
        ]),
      );
      console.log(await guestExec(first, ['/usr/bin/networkctl', '--no-pager', 'status']));
    }
    if (values.keep) console.log(`serial logs under ${work}`);
  } finally {
    await Promise.all(guests.map((g) => g.kill()));
    if (!values.keep) rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
