/**
 * Placement: which Proxmox node each VM of a wave goes to and which storage each disk is imported
 * onto, or why not, with numbers. Pure and deterministic, so `plan` and the wave agree.
 *
 * - Nodes: `settings.nodes`, or every online node. A rule (first match; folder, tag or name glob)
 *   pins a VM to one node or a group; a pin to no usable node refuses the VM.
 * - Memory: committed + VM ≤ physical × maxMemoryCommit (default 1.0), counting the VMs already
 *   there and those this wave placed before.
 * - Anti-affinity: the wave's VMs a group selects get a node each while there are enough nodes,
 *   else at most ⌈members / nodes⌉ per node (noted). Hard: a VM is refused rather than doubled up.
 * - Storage: per disk, the first storageMap entry (datastore and/or label glob), else targetStorage;
 *   the node must reach it; room is counted per node for local storage, once for shared storage.
 * - Migration datastore: every disk not there yet must fit in free − headroom × capacity.
 * - Not partial: one misfit refuses the whole wave; partial: only the misfits.
 * - `recheckAtCutover`: one VM against capacity read at cutover.
 *
 * `placeWave` (place.ts) is the sequence: the wave's usable nodes, pins and anti-affinity groups
 * (choose.ts), then each VM in `placementOrder` weighed by `fitOnNode` (fit.ts) against the
 * `PlacementLedger` (ledger.ts: memory, storage rooms, group members, migration datastore bytes so
 * far), placed by `chooseNode` and booked, or refused; the words are in explain.ts, the totals in totals.ts.
 */
export * from './types';
export * from './match';
export * from './units';
export * from './capacity';
export * from './place';
export { storageFor } from './choose';
export { migrationDatastoreNeed } from './ledger';
export * from './recheck';
export * from './from-record';
export * from './vm-settings';
export * from './move';
export * from './provision';
