/**
 * Every signal, update and query ferry's workflows accept, shared by the workflows and by clients
 * (CLI, tests, other workflows), so a name is spelled in one place only.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PermitRequest, SemaphoreState } from '../src/domain/permits';

// --- semaphore (global limits) ---
export const acquirePermitSignal = defineSignal<[PermitRequest]>('acquirePermit');
export const releasePermitSignal = defineSignal<[{ requestId: string }]>('releasePermit');
export const renewPermitSignal = defineSignal<[{ requestId: string; leaseMs: number }]>('renewPermit');
/** Sent by the semaphore to the requesting workflow. */
export const permitGrantedSignal = defineSignal<[{ key: string; requestId: string }]>('permitGranted');
/** Change the number of permits at run time; returns the new state. */
export const setPermitsUpdate = defineUpdate<SemaphoreState, [number]>('setPermits');
export const semaphoreStateQuery = defineQuery<SemaphoreState>('semaphoreState');
