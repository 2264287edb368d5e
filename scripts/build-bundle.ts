/** Prebuilds the workflow bundle (dist/workflow-bundle.js); a worker that finds it skips bundling at start. */
import { PREBUILT_BUNDLE } from '../worker/create-workers';
import { writeWorkflowBundle } from '../worker/workflow-bundle';

async function main(): Promise<void> {
  const bytes = await writeWorkflowBundle(PREBUILT_BUNDLE);
  console.log(`wrote ${PREBUILT_BUNDLE} (${bytes} bytes)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
