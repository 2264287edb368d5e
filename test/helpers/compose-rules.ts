/**
 * Rules docker-compose.yml must keep (no Docker engine runs here, so the file is checked by reading it).
 */
const SECRET_NAME = /(PASSWORD|PASSWD|_PWD$|SECRET|TOKEN|API_KEY|PRIVATE_KEY)/i;
const REQUIRED_SERVICES = ['postgresql', 'temporal', 'temporal-ui', 'ferry-worker'];

/** The services each secret-bearing env file may reach: its secrets go only where they are used. */
export const ENV_FILE_USERS: Record<string, readonly string[]> = {
  'deploy/temporal.env': ['postgresql', 'temporal-schema', 'temporal'],
  'deploy/ferry.env': ['ferry-worker'],
};

type Service = {
  image?: string;
  build?: unknown;
  environment?: Record<string, unknown> | string[];
  healthcheck?: { test?: unknown };
  depends_on?: string[] | Record<string, { condition?: string }>;
  env_file?: string | Array<string | { path: string }>;
  restart?: string;
  entrypoint?: unknown;
};

function environmentPairs(env: Service['environment']): Array<[string, string]> {
  if (!env) return [];
  if (Array.isArray(env))
    return env.map((e) => {
      const [k, ...v] = e.split('=');
      return [k!, v.join('=')];
    });
  return Object.entries(env).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]);
}

function envFiles(value: Service['env_file']): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((f) => (typeof f === 'string' ? f : f.path).replace(/^\.\//, ''));
}

/** A tag that names one release: not `latest`, not a variable, and with a version number in it. */
export function isPinnedImage(image: string): boolean {
  if (image.includes('$')) return false;
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  if (colon <= slash) return false;
  const tag = image.slice(colon + 1);
  return tag !== 'latest' && /\d/.test(tag) && !/^(stable|lts|edge|main|master)$/.test(tag);
}

export function composeProblems(doc: unknown): string[] {
  const problems: string[] = [];
  const services = (doc as { services?: Record<string, Service> })?.services;
  if (!services || typeof services !== 'object') return ['no services'];

  for (const name of REQUIRED_SERVICES) if (!services[name]) problems.push(`service ${name} is missing`);

  for (const [name, svc] of Object.entries(services)) {
    if (svc.image === undefined && svc.build === undefined) problems.push(`${name}: neither image nor build`);
    if (svc.image !== undefined && svc.build === undefined && !isPinnedImage(svc.image)) {
      problems.push(`${name}: image ${svc.image} is not pinned to a release tag`);
    }
    for (const [key, value] of environmentPairs(svc.environment)) {
      if (SECRET_NAME.test(key) && value !== '') {
        problems.push(`${name}: secret ${key} is set inline; put it in the env_file`);
      }
    }
    for (const file of envFiles(svc.env_file)) {
      const users = ENV_FILE_USERS[file];
      if (!users) problems.push(`${name}: env_file ${file} is not one of ${Object.keys(ENV_FILE_USERS).join(', ')}`);
      else if (!users.includes(name))
        problems.push(`${name}: gets ${file}, whose secrets only ${users.join(', ')} use`);
    }
    const oneShot = typeof svc.restart === 'string' && svc.restart.startsWith('on-failure');
    if (!oneShot && !svc.healthcheck?.test) problems.push(`${name}: long-running service without a healthcheck`);
    if (Array.isArray(svc.depends_on)) {
      problems.push(`${name}: depends_on without conditions (use service_healthy / service_completed_successfully)`);
    } else if (svc.depends_on) {
      for (const [dep, spec] of Object.entries(svc.depends_on)) {
        if (!spec?.condition) problems.push(`${name}: depends_on ${dep} has no condition`);
        if (!services[dep]) problems.push(`${name}: depends_on unknown service ${dep}`);
      }
    }
  }
  return problems;
}
