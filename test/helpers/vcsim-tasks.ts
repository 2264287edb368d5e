import type { VsphereClient } from '../../src/vsphere';
import { retrieveAll, traversalSpec } from '../../src/vsphere/property-collector';

export interface VcsimTask {
  moid: string;
  name: string;
  entity?: string;
  startMs: number;
  endMs?: number;
  state?: string;
}

/**
 * The tasks vcsim remembers (TaskManager.recentTask) with their start and completion times: the
 * simulator's own record of what ran when, e.g. to count concurrent storage vMotions.
 */
export async function vcsimTasks(client: VsphereClient, name?: string): Promise<VcsimTask[]> {
  await client.login();
  const { objects } = await retrieveAll(client.session, [
    {
      propSet: [
        { type: 'Task', pathSet: ['info.name', 'info.startTime', 'info.completeTime', 'info.entity', 'info.state'] },
      ],
      // vcsim's TaskManager has this fixed moid.
      objectSet: [
        {
          obj: { type: 'TaskManager', value: 'TaskManager' },
          skip: true,
          selectSet: [traversalSpec('recent', 'TaskManager', 'recentTask')],
        },
      ],
    },
  ]);
  const text = (o: (typeof objects)[number], p: string) => o.props.get(p)?.text.trim();
  return objects
    .map((o) => ({
      moid: o.obj.value,
      name: text(o, 'info.name') ?? '',
      entity: text(o, 'info.entity'),
      startMs: Date.parse(text(o, 'info.startTime') ?? ''),
      endMs: text(o, 'info.completeTime') ? Date.parse(text(o, 'info.completeTime')!) : undefined,
      state: text(o, 'info.state'),
    }))
    .filter((t) => !name || t.name === name);
}
