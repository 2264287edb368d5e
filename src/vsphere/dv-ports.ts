import { element } from './envelope';
import { VsphereFault } from './faults';
import { portKey, type ObjectIndex, type PortIndex } from './inventory-mapping';
import { Fields } from './read';
import type { VimSession } from './session';
import { children } from './xml';

/**
 * The portgroups of distributed ports NICs are bound to by port key alone, asked of each switch
 * (FetchDVPorts with the port keys as criteria). A switch that is not in `index`, or refuses, leaves
 * its ports unresolved: those NICs are then reported as untranslatable, not guessed.
 */
export async function resolvePorts(
  session: VimSession,
  index: ObjectIndex,
  wanted: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<PortIndex> {
  const ports = new Map<string, string>();
  for (const [switchUuid, keys] of wanted) {
    const dvs = [...index.all()].find(
      (o) => /DistributedVirtualSwitch$/.test(o.obj.type) && o.props.get('uuid')?.text === switchUuid,
    );
    if (!dvs) continue;
    let response;
    try {
      // DistributedVirtualSwitchPortCriteria: only portKey (WSDL order puts it after portgroupKey/inside).
      response = await session.call('FetchDVPorts', dvs.obj, [
        element(
          'criteria',
          [...keys].map((k) => element('portKey', k)),
        ),
      ]);
    } catch (err) {
      if (err instanceof VsphereFault) continue;
      throw err;
    }
    const found = new Map<string, Set<string>>();
    children(response, 'returnval').forEach((e, i) => {
      const port = new Fields(e, `FetchDVPorts(${dvs.obj.value})[${i}]`);
      const key = port.string('key');
      const portgroupKey = port.string('portgroupKey');
      if (key === undefined || portgroupKey === undefined || !keys.has(key)) return;
      if (!found.has(key)) found.set(key, new Set());
      found.get(key)!.add(portgroupKey);
    });
    // Port keys are unique on a vCenter switch; one the switch reports in several portgroups (vcsim
    // numbers every portgroup's ports from 0) says nothing about the NIC's portgroup.
    for (const [key, portgroups] of found)
      if (portgroups.size === 1) ports.set(portKey(switchUuid, key), [...portgroups][0]!);
  }
  return ports;
}
