import type { DevServer } from '../../lab/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __ferryDevServer?: DevServer }).__ferryDevServer?.stop();
}
