import { ed25519 } from '@noble/curves/ed25519';
import {
  approvalStatement,
  cutoverPlanDigest,
  planDigest,
  signedApprovalProblem,
  stableJson,
  teardownPlanDigest,
  toBase64,
  type ApprovalPolicy,
  type ApprovalSignature,
  type SignedAction,
} from '../../../../src/domain/approvals';
import type { CutoverPlan } from '../../../../src/domain/migration';

const plan: CutoverPlan = {
  vm: 'web01',
  vmid: 20042,
  mode: 'import',
  targetStorage: 'local-lvm',
  disks: [{ slot: 'scsi0', disk: 'Hard disk 1', sizeBytes: 20 * 2 ** 30 }],
  totalBytes: 20 * 2 ** 30,
  nics: [{ slot: 'net0', mac: '00:50:56:aa:bb:cc', vnet: 'v100', source: 'PG-100' }],
  expectedDowntimeSeconds: 265,
  throughput: { bytesPerSecond: 100 * 2 ** 20, measured: false },
  warnings: [],
};

describe('plan digests', () => {
  it('are the same whatever the order of keys, and change with what the cutover does', () => {
    const reordered = Object.fromEntries(Object.entries(plan).reverse()) as unknown as CutoverPlan;
    expect(stableJson(reordered)).toBe(stableJson(plan));
    expect(cutoverPlanDigest(reordered)).toBe(cutoverPlanDigest(plan));
    expect(cutoverPlanDigest(plan)).toMatch(/^sha256:[0-9a-f]{64}$/);
    // Fixed: a change to the digest breaks every signature made before it.
    expect(planDigest({ b: [1, { d: undefined, c: 'é' }], a: null })).toBe(
      planDigest(JSON.parse('{"a":null,"b":[1,{"c":"é"}]}')),
    );
    expect(stableJson({ b: [1, { d: undefined, c: 'é' }], a: null })).toBe('{"a":null,"b":[1,{"c":"é"}]}');
    expect(cutoverPlanDigest({ ...plan, disks: [{ ...plan.disks[0]!, sizeBytes: 21 * 2 ** 30 }] })).not.toBe(
      cutoverPlanDigest(plan),
    );
    expect(cutoverPlanDigest({ ...plan, mode: 'live-import' })).not.toBe(cutoverPlanDigest(plan));
  });

  it('leave out the downtime estimate, which moves with the measured throughput', () => {
    const measured = {
      ...plan,
      expectedDowntimeSeconds: 90,
      throughput: { bytesPerSecond: 900 * 2 ** 20, measured: true },
    };
    expect(cutoverPlanDigest(measured)).toBe(cutoverPlanDigest(plan));
  });

  it('cover a teardown target', () => {
    const target = { vmid: 9100, name: 'app1', node: 'pve1', addresses: [], interfaces: [] };
    expect(teardownPlanDigest(target)).not.toBe(teardownPlanDigest({ ...target, node: 'pve2' }));
  });
});

describe('signedApprovalProblem', () => {
  const secrets = { alice: ed25519.utils.randomPrivateKey(), mallory: ed25519.utils.randomPrivateKey() };
  const policy: ApprovalPolicy = {
    mode: 'signed',
    keys: [{ name: 'alice', key: toBase64(ed25519.getPublicKey(secrets.alice)) }],
  };
  const digest = cutoverPlanDigest(plan);
  function sign(
    who: keyof typeof secrets,
    statement: Omit<ApprovalSignature, 'signature'>,
    action: SignedAction = 'approve-cutover',
    reason = 'window 7',
  ) {
    const text = approvalStatement(action, 'alice', reason, statement);
    return {
      by: 'alice',
      reason,
      signed: { ...statement, signature: toBase64(ed25519.sign(new TextEncoder().encode(text), secrets[who])) },
    };
  }
  const vm = { kind: 'workflow' as const, workflowId: 'migrate-vc-vm-42', plan: digest };

  it('accepts a signature of the listed key over this workflow and its plan', () => {
    expect(
      signedApprovalProblem('approve-cutover', sign('alice', { workflowId: vm.workflowId, plan: digest }), policy, vm),
    ).toBeUndefined();
  });

  it('refuses an unsigned approval under signed, and takes it under unsigned or without a policy (older runs)', () => {
    expect(signedApprovalProblem('approve-cutover', { by: 'alice', reason: 'x' }, policy, vm)).toMatch(
      /approvals are signed here: alice's approval has no signature/,
    );
    expect(
      signedApprovalProblem('approve-cutover', { by: 'alice', reason: 'x' }, { ...policy, mode: 'unsigned' }, vm),
    ).toBeUndefined();
    expect(signedApprovalProblem('approve-cutover', { by: 'alice', reason: 'x' }, undefined, vm)).toBeUndefined();
  });

  it('refuses another key, a changed reason, another action, another workflow and a changed plan', () => {
    const ok = { workflowId: vm.workflowId, plan: digest };
    expect(signedApprovalProblem('approve-cutover', sign('mallory', ok), policy, vm)).toBe(
      "the signature is not alice's: the signature does not match",
    );
    expect(signedApprovalProblem('approve-cutover', { ...sign('alice', ok), reason: 'window 8' }, policy, vm)).toMatch(
      /not alice's/,
    );
    expect(signedApprovalProblem('approve-cutover', sign('alice', ok, 'approve-teardown'), policy, vm)).toMatch(
      /not alice's/,
    );
    expect(
      signedApprovalProblem('approve-cutover', sign('alice', { ...ok, workflowId: 'migrate-vc-vm-43' }), policy, vm),
    ).toBe('signed for migrate-vc-vm-43, not for this workflow (migrate-vc-vm-42)');
    const changed = { ...vm, plan: cutoverPlanDigest({ ...plan, targetStorage: 'ceph' }) };
    expect(signedApprovalProblem('approve-cutover', sign('alice', ok), policy, changed)).toMatch(
      /^the plan changed since it was signed \(signed sha256:/,
    );
    expect(signedApprovalProblem('approve-cutover', { ...sign('alice', ok), by: 'bob' }, policy, vm)).toMatch(
      /bob has no public key/,
    );
  });

  it('a wave approval: the wave checks its id and its VMs; each VM checks its wave, itself and its plan', () => {
    const covers = [{ workflowId: 'migrate-vc-vm-42', plan: digest }];
    const approval = sign('alice', { workflowId: 'wave-7', covers });
    expect(
      signedApprovalProblem('approve-cutover', approval, policy, {
        kind: 'wave',
        workflowId: 'wave-7',
        vms: ['migrate-vc-vm-42', 'migrate-vc-vm-43'],
      }),
    ).toBeUndefined();
    expect(
      signedApprovalProblem('approve-cutover', approval, policy, {
        kind: 'wave',
        workflowId: 'wave-7',
        vms: ['migrate-vc-vm-43'],
      }),
    ).toBe('not VMs of this wave: migrate-vc-vm-42');
    expect(
      signedApprovalProblem('approve-cutover', approval, policy, { kind: 'wave', workflowId: 'wave-8', vms: [] }),
    ).toMatch(/signed for wave-7, not for this workflow/);
    const forwarded = { kind: 'forwarded' as const, wave: 'wave-7', workflowId: 'migrate-vc-vm-42', plan: digest };
    expect(signedApprovalProblem('approve-cutover', approval, policy, forwarded)).toBeUndefined();
    expect(
      signedApprovalProblem('approve-cutover', approval, policy, { ...forwarded, workflowId: 'migrate-vc-vm-43' }),
    ).toMatch(/does not cover this VM/);
    expect(signedApprovalProblem('approve-cutover', approval, policy, { ...forwarded, wave: 'wave-8' })).toMatch(
      /not for this VM's wave \(wave-8\)/,
    );
    expect(signedApprovalProblem('approve-cutover', approval, policy, { ...forwarded, plan: 'sha256:00' })).toMatch(
      /plan changed/,
    );
    // Whatever a signal carries, the check answers (a throw would fail the workflow task).
    for (const covers of [{}, [null], [{ workflowId: 1 }], 'x']) {
      const odd = sign('alice', { workflowId: 'wave-7', covers: covers as never });
      expect(signedApprovalProblem('approve-cutover', odd, policy, forwarded)).toMatch(/malformed signed approval/);
    }
    expect(
      signedApprovalProblem('approve-cutover', { by: 'alice', reason: 'x', signed: 'x' as never }, policy, vm),
    ).toMatch(/malformed/);
  });
});
