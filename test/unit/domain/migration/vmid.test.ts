import { PVE_VMID_MAX, vmidFromMoid, vmidOccupancy, vmWorkflowSummary } from '../../../../src/domain/migration';

describe('vmidFromMoid', () => {
  it('adds the numeric part of the moid to the base', () => {
    expect(vmidFromMoid('vm-42', 20000)).toEqual({ ok: true, vmid: 20042 });
    expect(vmidFromMoid('vm-0', 100)).toEqual({ ok: true, vmid: 100 });
  });

  it.each(['vm-', 'vm-12a', 'vm42', 'VirtualMachine-1', 'host-12', '', 'vm--3'])('refuses the moid %p', (moid) => {
    const result = vmidFromMoid(moid, 20000);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.refusal.code).toBe('vmid-invalid');
      expect(result.refusal.reason).toContain('not of the form vm-<number>');
    }
  });

  it('refuses results outside PVE’s VMID range', () => {
    const high = vmidFromMoid('vm-1', PVE_VMID_MAX);
    expect(high).toMatchObject({ ok: false, refusal: { code: 'vmid-invalid' } });
    if (!high.ok)
      expect(high.refusal.reason).toBe(
        `vmidBase ${PVE_VMID_MAX} + 1 = 1000000000 is outside Proxmox's VMID range 100–999999999`,
      );
    expect(vmidFromMoid('vm-5', 0)).toMatchObject({ ok: false });
    expect(vmidFromMoid('vm-99999999999999999999', 20000)).toMatchObject({ ok: false });
    expect(vmidFromMoid('vm-1', PVE_VMID_MAX - 1)).toEqual({ ok: true, vmid: PVE_VMID_MAX });
  });
});

describe('vmidOccupancy', () => {
  const existing = [
    { vmid: 20042, name: 'web01' },
    { vmid: 20043, name: 'other' },
    { vmid: 300, name: 'db01' },
    { vmid: 301, name: 'db01' },
  ];

  it('is free when neither the VMID nor the name is taken', () => {
    expect(vmidOccupancy(20050, 'new01', existing)).toEqual({ kind: 'free' });
  });

  it('adopts a VM with the same VMID and name (a rerun continues from it)', () => {
    expect(vmidOccupancy(20042, 'web01', existing)).toEqual({ kind: 'adopt' });
  });

  it('refuses a VMID that belongs to a VM with another name', () => {
    const result = vmidOccupancy(20043, 'web02', existing);
    expect(result).toMatchObject({ kind: 'clash', refusal: { code: 'vmid-clash', subject: 'web02' } });
    if (result.kind === 'clash') expect(result.refusal.reason).toContain('already belongs to Proxmox VM "other"');
  });

  it('refuses a name that exists on other VMIDs, listing them all', () => {
    const result = vmidOccupancy(20044, 'db01', existing);
    expect(result.kind).toBe('clash');
    if (result.kind === 'clash') expect(result.refusal.reason).toContain('already exists as VMID 300, 301, not 20044');
  });
});

describe('vmWorkflowSummary: what the Temporal UI shows for a VM migration', () => {
  it('names the VM, its VMID and the node', () => {
    expect(vmWorkflowSummary('mig-web01', 'vm-74', { node: 'pve1', rules: { vmidBase: 20000 } })).toBe(
      'mig-web01 → VM 20074 on pve1',
    );
  });

  it('says when the moid gives no VMID (the workflow then refuses the VM)', () => {
    expect(vmWorkflowSummary('odd', 'virtualmachine-7', { node: 'pve2', rules: { vmidBase: 20000 } })).toBe(
      'odd → no VMID on pve2',
    );
  });
});
