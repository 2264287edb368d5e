// Every workflow type ferry's worker registers. Only deterministic code lives under workflows/.
export { doctor } from './doctor';
export { semaphore } from './semaphore';
