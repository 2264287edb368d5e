import type { Cluster } from './cluster';

/**
 * Each node's pve-ssl.pem fingerprint (PVE::Cluster::get_node_fingerprint: SHA-256, upper-case hex pairs
 * joined by colons), as `GET /nodes` gives it. Every simulated node is this host, serving the
 * simulator's certificate, so all share its fingerprint.
 */
const fingerprints = new WeakMap<Cluster, string>();

export const setNodeFingerprint = (cluster: Cluster, fingerprint: string) => fingerprints.set(cluster, fingerprint);

export const nodeFingerprint = (cluster: Cluster): string | undefined => fingerprints.get(cluster);
