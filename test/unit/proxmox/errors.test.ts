import {
  ProxmoxAgentNotConfiguredError,
  ProxmoxAgentNotRunningError,
  classifyMessage,
  errorFromResponse,
  ProxmoxAuthError,
  ProxmoxDigestMismatchError,
  ProxmoxLockedError,
  ProxmoxNotFoundError,
  ProxmoxParameterError,
  ProxmoxPermissionError,
  ProxmoxRequestError,
  ProxmoxTaskError,
  ProxmoxTransientError,
  ProxmoxVmRunningError,
} from '../../../src/proxmox/errors';
import { toActivityFailure } from '../../../activities/failures';
import { type ApplicationFailure } from '@temporalio/common';

const ctx = { method: 'PUT', path: '/nodes/pve1/qemu/100/config' };

describe('Proxmox error classification', () => {
  it.each([
    [
      400,
      'Parameter verification failed.',
      { cores: "type check ('integer') failed - got 'x'" },
      ProxmoxParameterError,
      'invalid',
    ],
    [401, 'No ticket', undefined, ProxmoxAuthError, 'permission'],
    [403, 'Permission check failed (/vms/100, VM.Config.Options)', undefined, ProxmoxPermissionError, 'permission'],
    [
      500,
      "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist",
      undefined,
      ProxmoxNotFoundError,
      'not-found',
    ],
    [500, 'VM 100 is locked (backup)', undefined, ProxmoxLockedError, 'locked'],
    [
      500,
      "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout",
      undefined,
      ProxmoxLockedError,
      'locked',
    ],
    [500, 'checksum mismatch (file change by other user?)', undefined, ProxmoxDigestMismatchError, 'conflict'],
    [500, 'VM 100 is running - destroy failed', undefined, ProxmoxVmRunningError, 'invalid'],
    [500, "unable to create VM 100 - VM 100 already exists on node 'pve1'", undefined, ProxmoxRequestError, 'invalid'],
    [
      500,
      'detected modified configuration - file changed by other user? Try again.',
      undefined,
      ProxmoxDigestMismatchError,
      'conflict',
    ],
    [500, "can't parse digest of 'x' (a message that merely says digest)", undefined, ProxmoxRequestError, 'invalid'],
    [500, 'unexpected digest answer from storage', undefined, ProxmoxTransientError, 'transient'],
    [500, "checksum mismatch: got 'abc' != expect 'def', aborting", undefined, ProxmoxTransientError, 'transient'],
    [
      500,
      "cannot use volume local:import/x.vmdk - content type needs to be 'images' or 'iso'",
      undefined,
      ProxmoxRequestError,
      'invalid',
    ],
    [
      500,
      "local:iso/x.iso has wrong type 'iso' - needs to be 'images' or 'import'",
      undefined,
      ProxmoxRequestError,
      'invalid',
    ],
    [500, 'online resize of a disk on this storage is not possible', undefined, ProxmoxRequestError, 'invalid'],
    // move_disk of a disk attached by absolute path: PVE cannot do it, retrying changes nothing.
    [
      500,
      "unable to parse volume ID '/mnt/pve/nfs-migration/web01/web01.vmdk'",
      undefined,
      ProxmoxRequestError,
      'invalid',
    ],
    // The guest agent (qemu-server's PVE::QemuServer::Agent): not running yet is worth asking again; not configured is not.
    [500, 'QEMU guest agent is not running', undefined, ProxmoxAgentNotRunningError, 'transient'],
    [500, 'No QEMU guest agent configured', undefined, ProxmoxAgentNotConfiguredError, 'invalid'],
    [500, 'got unexpected error', undefined, ProxmoxTransientError, 'transient'],
    [503, 'Service Unavailable', undefined, ProxmoxTransientError, 'transient'],
    [596, 'Connection timed out', undefined, ProxmoxTransientError, 'transient'],
  ] as const)('HTTP %i "%s" → %p', (status, message, errors, type, category) => {
    const err = errorFromResponse(status, message, errors as Record<string, string> | undefined, ctx);
    expect(err).toBeInstanceOf(type);
    expect(err.category).toBe(category);
    expect(err.message).toContain('PUT /nodes/pve1/qemu/100/config');
  });

  it('a parameter error lists each parameter and keeps the map', () => {
    const err = errorFromResponse(
      400,
      'Parameter verification failed.',
      { net0: 'invalid format - format error\nnet0.tag: value must have a maximum value of 4094' },
      ctx,
    ) as ProxmoxParameterError;
    expect(err.errors.net0).toMatch(/net0\.tag/);
    expect(err.message).toBe(
      'PUT /nodes/pve1/qemu/100/config: parameter verification failed: net0: invalid format - format error; net0.tag: value must have a maximum value of 4094',
    );
  });

  it('a failed task is classified by its exit status and keeps its log tail', () => {
    const timeout = new ProxmoxTaskError(
      'UPID:pve1:00000001:00000001:00000001:qmshutdown:100:root@pam:',
      'VM quit/powerdown failed - got timeout',
      ['TASK ERROR: VM quit/powerdown failed - got timeout'],
    );
    expect(timeout.retryable).toBe(true);
    expect(timeout.message).toMatch(/last log lines:\n {4}TASK ERROR/);
    expect(
      new ProxmoxTaskError(
        'UPID:pve1:00000001:00000001:00000001:resize:100:root@pam:',
        'shrinking disks is not supported',
        [],
      ).retryable,
    ).toBe(false);
    expect(classifyMessage("zone 'x' doesn't exist")?.category).toBe('not-found');
    // A worker that died of a parameter exception: not worth retrying; an unknown failure still is.
    const upid = 'UPID:pve1:00000001:00000001:00000001:qmcreate:100:root@pam:';
    expect(
      new ProxmoxTaskError(upid, '400 Parameter verification failed.', ['efidisk0: invalid format - missing efitype'])
        .category,
    ).toBe('invalid');
    expect(new ProxmoxTaskError(upid, 'unable to create image: qemu-img: error while writing', []).retryable).toBe(
      true,
    );
  });

  it('goes through the one activity failure mapping: retryable or not by category', () => {
    const locked = toActivityFailure(new ProxmoxLockedError('VM 100 is locked (backup)', ctx)) as ApplicationFailure;
    expect([locked.type, locked.nonRetryable]).toEqual(['ProxmoxLockedError', false]);
    const invalid = toActivityFailure(
      errorFromResponse(400, 'Parameter verification failed.', { x: 'y' }, ctx),
    ) as ApplicationFailure;
    expect([invalid.type, invalid.nonRetryable]).toEqual(['ProxmoxParameterError', true]);
  });
});
