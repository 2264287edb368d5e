import type { EndpointRef, EndpointVerdict, TlsStatus } from '../domain/doctor';

/** Times a check and turns a thrown error into a failed verdict with the error's message. */
export async function timedCheck(
  ref: EndpointRef,
  check: () => Promise<Omit<EndpointVerdict, keyof EndpointRef | 'latencyMs'>>,
  onError: (err: unknown) => { reachable: boolean; authenticated: boolean | null; tls: TlsStatus },
): Promise<EndpointVerdict> {
  const started = performance.now();
  try {
    const verdict = await check();
    return { ...ref, ...verdict, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      ...ref,
      ok: false,
      ...onError(err),
      detail: err instanceof Error ? err.message : String(err),
      latencyMs: Math.round(performance.now() - started),
    };
  }
}
