import type { ChangeOperation } from './change';
import { RULES, refused, type PlanContext, type Verdict } from './context';
import { nearestDimmSizes, onDimmGrid, STATIC_MEMORY_MIB } from './hotplug';
import { vcpusOf, type VmConfigView } from './vm-config';

/**
 * vCPUs and memory of a built VM. NetBox's vCPUs become `cores` (sockets kept) as provisioning builds
 * them; on a running VM with `cpu` hotplug, `vcpus` up to sockets × cores is the live way.
 */

const STOPPED = 'the VM is stopped: the write applies at once (vmconfig_apply_pending)';

/** The config that gives `n` vCPUs on the VM's sockets: cores rounded up, `vcpus` when that overshoots. */
export function topologyFor(n: number, view: VmConfigView): Extract<ChangeOperation, { op: 'set-cpu' }> {
  const cores = Math.ceil(n / view.sockets);
  if (cores * view.sockets !== n) return { op: 'set-cpu', cores, vcpus: n };
  return { op: 'set-cpu', cores, ...(view.vcpus !== undefined ? { deleteVcpus: true as const } : {}) };
}

export function vcpusVerdict(n: number, ctx: PlanContext): Verdict {
  const now = ctx.views.current;
  const write = topologyFor(n, now);
  if (!ctx.running) return { class: 'live', why: STOPPED, rule: RULES.applyPending, operation: write };
  const max = now.sockets * now.cores;
  const hot = now.hotplug.has('cpu');
  if (hot && n <= max && n > vcpusOf(now))
    return {
      class: 'live',
      why: `cpu hotplug is on and ${n} is within sockets × cores (${max}): the vCPUs are hot-plugged`,
      rule: RULES.cpuHotplug,
      operation: { op: 'set-cpu', vcpus: n },
    };
  if (hot && n <= max)
    return {
      class: 'needs-stop',
      why: 'fewer vCPUs on a running VM are hot-unplugged one by one, and the write fails part way when the guest keeps one',
      rule: RULES.cpuHotplug,
      operation: { op: 'set-cpu', vcpus: n },
    };
  if (hot && (write.vcpus !== undefined || write.deleteVcpus))
    return {
      class: 'needs-stop',
      why: `${n} vCPUs need more cores than sockets × cores (${max}); with cpu hotplug on, writing vcpus would hot-plug up to the old maximum (or fail) before cores change`,
      rule: RULES.cpuHotplug,
      operation: write,
    };
  return {
    class: 'at-restart',
    why: hot
      ? `${n} vCPUs need more cores than sockets × cores (${max}): cores change only at the next start`
      : 'cpu is not in the VM’s hotplug: cores and vcpus change only at the next start',
    rule: RULES.hotplugPending,
    operation: write,
  };
}

export function memoryVerdict(mib: number, ctx: PlanContext): Verdict {
  const { current: now, effective: next } = ctx.views;
  const operation: ChangeOperation = { op: 'set-memory', memoryMiB: mib };
  // The DIMM grid binds the next start's config, and also a hot-add now (it stops at a grid size).
  const invalid = memoryRefusal(mib, next, next.hotplug.has('memory') || (ctx.running && now.hotplug.has('memory')));
  if (invalid) return invalid;
  if (!ctx.running) return { class: 'live', why: STOPPED, rule: RULES.applyPending, operation };
  const hot = now.hotplug.has('memory');
  if (hot && now.numa && mib > now.memoryMiB)
    return {
      class: 'live',
      why: 'memory hotplug is on (with NUMA): DIMMs are hot-added',
      rule: RULES.memoryHotplug,
      operation,
    };
  if (hot && now.numa)
    return {
      class: 'needs-stop',
      why: 'less memory on a running VM is hot-unplugged DIMM by DIMM, and stops part way when the guest keeps one in use',
      rule: RULES.memoryHotplug,
      operation,
    };
  return {
    class: 'at-restart',
    why: hot
      ? 'memory hotplug needs NUMA (numa: 1), which this VM runs without: memory changes at the next start'
      : 'memory is not in the VM’s hotplug: it changes at the next start',
    rule: hot ? RULES.memoryConfig : RULES.hotplugPending,
    operation,
  };
}

/** Sizes Proxmox would refuse: below the balloon target, or off the DIMM grid with memory hotplug. */
function memoryRefusal(mib: number, next: VmConfigView, dimms: boolean): Verdict | undefined {
  if (next.balloonMiB && next.balloonMiB > mib)
    return refused(
      `the balloon target (${next.balloonMiB} MiB) is above ${mib} MiB ("balloon value too large"): lower balloon first`,
      RULES.updateVm,
    );
  if (!dimms) return undefined;
  if (mib < STATIC_MEMORY_MIB)
    return refused(`with memory hotplug, memory cannot be below ${STATIC_MEMORY_MIB} MiB`, RULES.memoryHotplug);
  if (onDimmGrid(mib)) return undefined;
  const { below, above } = nearestDimmSizes(mib);
  return refused(
    `with memory hotplug, memory is 1024 MiB plus whole DIMMs; ${mib} MiB is not (nearest: ${below} or ${above} MiB)`,
    RULES.dimms,
  );
}
