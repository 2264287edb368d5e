import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { govcFor } from '../../lab/vcsim/govc';
import { labWorkers, useMigrationLab } from '../helpers/migration-lab';
import { spawnFerry } from '../helpers/processes';
import { ferryOnTerminal } from '../helpers/terminal';

interface Plan {
  vms: Array<{ name: string; moid: string }>;
}

/**
 * Naming VMs on the command line as a person does, through the real `ferry` binary against the
 * migration lab and a worker: a folder is the same inventory path for `discover` and `plan`, and a name
 * two VMs share (vCenter keeps names unique only within a folder) is refused, never guessed.
 */
describe('selecting VMs from the command line', () => {
  jest.setTimeout(300_000);
  const suite = useMigrationLab();

  it('takes one folder path in discover and plan, refuses an ambiguous name with its candidates, and picks one by moid or path', async () => {
    const { vcsim, stateDir } = suite.lab;
    const { host, port, user, caFile } = vcsim.config;
    const govc = govcFor({ host, port, user, caFile, password: vcsim.password });
    // A second scale-0003, in the db folder.
    await govc(
      ...['vm.clone', '-vm', 'scale-0003', '-folder', '/DC0/vm/db', '-ds', 'nfs-migration'],
      ...['-pool', '/DC0/host/DC0_C0/Resources', '-on=false', 'scale-0003'],
    );
    const twins = (await suite.lab.deps.vsphere!.discover()).inventory.vms.filter((v) => v.name === 'scale-0003');
    expect(twins.map((v) => v.folder).sort()).toEqual(['/DC0/vm/db', '/DC0/vm/scale']);
    const inDb = twins.find((v) => v.folder === '/DC0/vm/db')!;

    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const configFile = path.join(stateDir, 'cli.yaml');
    writeFileSync(configFile, stringify({ ...suite.lab.document, worker: { taskQueue: workers.taskQueue } }));
    const ferry = async (...args: string[]) => {
      const run = spawnFerry(['-c', configFile, ...args], suite.lab.env);
      return { code: await run.exited, output: run.output() };
    };

    await workers.run(async () => {
      // One path form: the inventory path, in discover (no --datacenter needed) and plan alike.
      const discovered = await ferry('discover', '--json', '--folder', '/DC0/vm/db');
      expect(discovered.code).toBe(0);
      const discoveredNames = (
        JSON.parse(discovered.output) as { inventory: { vms: Array<{ name: string }> } }
      ).inventory.vms
        .map((v) => v.name)
        .sort();
      expect(discoveredNames).toEqual(['mig-db01', 'mig-rdm01', 'scale-0003']);
      const onScreen = await ferryOnTerminal(stateDir, suite.lab.env, [
        '-c',
        configFile,
        'discover',
        '--folder',
        '/DC0/vm/db',
      ]);
      expect(onScreen.code).toBe(0);
      for (const name of discoveredNames) expect(onScreen.screen).toContain(name);
      expect(onScreen.screen).not.toContain('/DC0/vm/DC0/vm');
      const planned = await ferry('plan', '--json', '--no-inspect', '--folder', '/DC0/vm/db');
      expect(planned.code).toBe(0);
      expect((JSON.parse(planned.output) as Plan).vms.map((v) => v.name).sort()).toEqual(discoveredNames);

      // An ambiguous name: refused, each candidate with its folder and moid, and how to pick one.
      const candidates = [...twins]
        .sort((a, b) => a.moid.localeCompare(b.moid, 'en', { numeric: true }))
        .map((v) => `${v.moid} in ${v.folder}`);
      // On a terminal, as a person meets it.
      const onTerminal = await ferryOnTerminal(stateDir, suite.lab.env, [
        '-c',
        configFile,
        'migrate',
        '--vm',
        'scale-0003',
      ]);
      const ambiguous = { code: onTerminal.code, output: onTerminal.screen };
      expect(ambiguous.output).toContain('wave wave-vm-scale-0003 started nothing: ambiguous in vCenter');
      expect(ambiguous.output).toContain(`"scale-0003" names 2 VMs: `);
      for (const c of candidates) expect(ambiguous.output).toContain(c);
      expect(ambiguous.output).toMatch(/name the one to migrate by moid \(vm-\d+\) or by inventory path \(\/DC0\/vm\//);
      expect(ambiguous.code).toBe(1);
      const wave = await suite.temporal.client.workflow.getHandle('wave-vm-scale-0003').describe();
      expect(wave.status.name).toBe('FAILED');
      expect(await suite.lab.deps.proxmox!.vms.findByName('scale-0003')).toEqual([]);
      const planAmbiguous = await ferry('plan', '--no-inspect', '--names', 'scale-0003');
      expect(planAmbiguous.output).toContain(`"scale-0003" names 2 VMs: `);
      expect(planAmbiguous.code).toBe(1);

      // One of them, by moid or by inventory path.
      for (const pick of [inDb.moid, '/DC0/vm/db/scale-0003']) {
        const one = await ferry('plan', '--json', '--no-inspect', '--names', pick);
        expect(one.code).toBe(0);
        expect((JSON.parse(one.output) as Plan).vms.map((v) => v.moid)).toEqual([inDb.moid]);
      }

      // migrate says what the wave took once it has discovered it (here: nothing to migrate, one refused).
      const template = await ferry('migrate', '--vm', '/DC0/vm/templates/mig-tmpl01');
      expect(template.output).toContain(
        'wave vm-DC0-vm-templates-mig-tmpl01: workflow wave-vm-DC0-vm-templates-mig-tmpl01',
      );
      expect(template.output).toContain(
        '  selected: 0 VM(s) to migrate, 1 refused (ferry status wave-vm-DC0-vm-templates-mig-tmpl01 --full says why)',
      );
      expect(template.code).toBe(0);
    });
  });
});
