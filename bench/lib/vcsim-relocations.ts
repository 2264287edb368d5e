import type { VsphereClient } from '../../src/vsphere';
import { retrieveAll, traversalSpec } from '../../src/vsphere/property-collector';
import type { Use } from './handoffs';

/** vcsim keeps its last 200 tasks: sample them while the wave runs and keep every RelocateVm, by VM moid. */
export function sampleRelocations(client: VsphereClient): { stop(): Promise<Map<string, Use>> } {
  const seen = new Map<string, Use>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { objects } = await retrieveAll(client.session, [
        {
          propSet: [{ type: 'Task', pathSet: ['info.name', 'info.entity', 'info.startTime', 'info.completeTime'] }],
          objectSet: [
            {
              obj: { type: 'TaskManager', value: 'TaskManager' },
              skip: true,
              selectSet: [traversalSpec('recent', 'TaskManager', 'recentTask')],
            },
          ],
        },
      ]);
      for (const o of objects) {
        if (o.props.get('info.name')?.text.trim() !== 'RelocateVm') continue;
        const end = o.props.get('info.completeTime')?.text.trim();
        if (!end) continue;
        seen.set(o.props.get('info.entity')?.text.trim() ?? o.obj.value, {
          startMs: Date.parse(o.props.get('info.startTime')?.text.trim() ?? ''),
          endMs: Date.parse(end),
        });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return seen;
    },
  };
}
