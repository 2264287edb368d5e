import {
  changed,
  describeStep,
  newProvisionStatus,
  plannedCounts,
  provisionPlannedWorkflowId,
  provisionWorkflowId,
} from '../../../../src/domain/provisioning';

describe('provisioning ids and status', () => {
  it('names workflows by NetBox id (with NetBox’s configured name), or by spec name', () => {
    expect(provisionWorkflowId({ netboxId: 42 })).toBe('provision-42');
    expect(provisionWorkflowId({ netboxId: 42, name: 'web1' }, 'nb1')).toBe('provision-nb1-42');
    expect(provisionWorkflowId({ name: 'web1' }, 'nb1')).toBe('provision-spec-web1');
    expect(() => provisionWorkflowId({})).toThrow('a provision needs a NetBox id or a spec with a name');
    expect(provisionPlannedWorkflowId({})).toBe('provision-planned');
    expect(provisionPlannedWorkflowId({ cluster: 'pve-lab', tag: 'web' })).toBe('provision-planned-pve-lab-web');
  });

  it('tells steps that wrote from those that found things in place', () => {
    expect(
      ['created', 'updated', 'unchanged', 'adopted', 'skipped'].map((outcome) =>
        changed({ step: 'disk', subject: 'scsi0', outcome: outcome as never }),
      ),
    ).toEqual([true, true, false, false, false]);
    expect(describeStep({ step: 'disk', subject: 'scsi0', outcome: 'created', detail: '20 GiB on local-lvm' })).toBe(
      'disk          scsi0: created (20 GiB on local-lvm)',
    );
    expect(describeStep({ step: 'acl', subject: '/vms/9001', outcome: 'unchanged' })).toBe(
      'acl           /vms/9001: unchanged',
    );
  });

  it('starts a status and counts a batch', () => {
    expect(newProvisionStatus(4)).toEqual({
      kind: 'provision',
      netboxId: 4,
      stage: 'resolve',
      timings: [],
      steps: [],
      waits: [],
      macs: {},
    });
    expect(newProvisionStatus()).not.toHaveProperty('netboxId');
    const vm = { netboxId: 1, name: 'a', workflowId: 'w' };
    expect(
      plannedCounts([
        { ...vm, state: 'pending' },
        { ...vm, state: 'running' },
        { ...vm, state: 'finished' },
        { ...vm, state: 'finished' },
      ]),
    ).toEqual({ pending: 1, running: 1, finished: 2 });
  });
});
