import { parseUpid } from '../../../src/proxmox/upid';
import { AccessConfig } from '../access/user-config';
import type { RouteTable } from './types';

/**
 * pve-manager's API2/Cluster.pm reads beside the resources: `options` (datacenter.cfg as the installer
 * leaves it, its keyboard; the tags a caller may use, from the guests it may see) and `tasks` (pmxcfs's
 * task list of every node: running and recently ended tasks, the caller's own unless it has Sys.Audit
 * on /; a token's tasks with `user` and `tokenid` apart).
 */
const split = (v?: string) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);

export const clusterInfoRoutes: RouteTable = {
  'GET /cluster/options': (req) => {
    const datacenter: Record<string, unknown> = { keyboard: 'en-us' };
    const res: Record<string, unknown> = req.perm.has('/', ['Sys.Audit']) ? { ...datacenter } : {};
    const privileged = req.perm.has('/', ['Sys.Modify']);
    const tags = new Set<string>();
    for (const vm of req.cluster.vms.values()) {
      if (!privileged && !req.perm.has(`/vms/${vm.vmid}`, ['VM.Audit'])) continue;
      for (const tag of split(vm.config.tags)) tags.add(tag);
    }
    res['allowed-tags'] = [...tags].sort();
    return res;
  },

  'GET /cluster/tasks': (req) => {
    const all = req.perm.has('/', ['Sys.Audit']);
    return req.cluster.tasks.history
      .slice()
      .reverse()
      .map((t) => {
        const u = parseUpid(t.upid);
        const token = AccessConfig.splitTokenId(u.user);
        return {
          upid: t.upid,
          node: u.node,
          pid: u.pid,
          pstart: u.pstart,
          starttime: u.starttime,
          type: u.type,
          id: u.id,
          user: token?.userid ?? u.user,
          ...(token ? { tokenid: token.tokenid } : {}),
          // read_active_workers: `saved` is the file's 0/1 as text, `endtime` a number, `status` the exit status.
          saved: t.endMs === undefined ? '0' : '1',
          ...(t.endMs !== undefined ? { endtime: Math.floor(t.endMs / 1000), status: t.exitstatus } : {}),
        };
      })
      .filter((t) => all || t.user === req.user);
  },
};
