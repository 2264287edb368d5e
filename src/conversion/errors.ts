import { FerryError } from '../errors';

/**
 * A conversion that failed. `invalid`: the guest or the converter refused (virt-v2v's error, a guest
 * edit that failed): retrying the same step cannot help, so the cutover waits for a person's retry or
 * rollback. `transient`: the appliance did not start or a process was lost: retried with backoff.
 */
export class ConversionError extends FerryError {}
