import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigError, loadConfig, RequiredInProduction } from '@postbus/config';

/**
 * Reads the environment docker-compose.yml and the rendered deploy/k8s give each Postbus service,
 * and checks it against the configuration schema that service loads at start (the one its
 * main.ts passes to runService): nothing the service does not know, nothing production requires
 * left out, and each secret wired alike to every service that shares it.
 */

/** How one variable reaches a service. */
export interface EnvSource {
  /** Where it comes from, comparable between services: `${POSTBUS_SECRETS_KEY}`, `Secret postbus-mongo/SECRETS_KEY`, `'info'`. */
  wiring: string;
  /** The value the files give (a literal, a ConfigMap's, a `${VAR:-default}`'s default); undefined when it is supplied at deploy time. */
  value?: string;
  /** Supplied at deploy time (a Secret, the operator's `${VAR}`), not written in the files. */
  external: boolean;
  /** May reach the service empty or unset (`${VAR:-}`, an optional secretKeyRef). */
  mayBeEmpty: boolean;
}

/** One container running a Postbus service, and its environment. */
export interface DeployedService {
  /** The service's folder under services/. */
  service: string;
  /** How the deployment names it: `users` (a Compose service), `Deployment/users`. */
  label: string;
  env: Map<string, EnvSource>;
}

/** What one deployment (docker-compose.yml, deploy/k8s) runs. */
export interface Rendering {
  target: string;
  services: DeployedService[];
  /** What could not be read as environment: a variable given twice, a reference to a ConfigMap key that does not exist. */
  problems: Finding[];
}

export interface Finding {
  target: string;
  /** The deployment's name of the service, or the services concerned. */
  where: string;
  variable: string;
  problem: string;
}

export const describeFinding = (f: Finding): string => `${f.target}: ${f.where}: ${f.variable} ${f.problem}`;

/**
 * Variables the services' processes read that are not settings of a schema: libs/config turns
 * RequiredInProduction on with NODE_ENV=production (the image sets it), NODE_OPTIONS is Node's
 * own, and the image's command picks the service by POSTBUS_SERVICE.
 */
export const RUNTIME_VARIABLES: ReadonlySet<string> = new Set(['NODE_ENV', 'NODE_OPTIONS', 'POSTBUS_SERVICE']);

/** Where a container's command names the service it runs. */
const SERVICE_ENTRY = /services\/([a-z0-9-]+)\/dist\/main\.js/;

// ---------------------------------------------------------------------------------------------
// The schemas

/**
 * Every service's configuration schema, by folder name: the object its src/main.ts hands to
 * runService (`runService('users', UsersConfig, start)`), imported from its src/config.ts. A folder
 * without src/main.ts (the admin panel: a static bundle the gateway serves) runs no process.
 */
export async function loadServiceSchemas(repoRoot: string): Promise<Map<string, TObject>> {
  const schemas = new Map<string, TObject>();
  for (const service of readdirSync(join(repoRoot, 'services')).sort()) {
    const main = join(repoRoot, 'services', service, 'src', 'main.ts');
    if (!existsSync(main)) continue;
    const source = readFileSync(main, 'utf8');
    const call = /runService\(\s*'[^']+',\s*(\w+)\s*,/.exec(source);
    const from = call && new RegExp(`import\\s*\\{[^}]*\\b${call[1]}\\b[^}]*\\}\\s*from\\s*'\\./config'`).exec(source);
    if (!call || !from)
      throw new Error(`services/${service}/src/main.ts: expected runService('<name>', <Schema>, start) with <Schema> from './config'`);
    const exported = ((await import(join(repoRoot, 'services', service, 'src', 'config.ts'))) as Record<string, unknown>)[call[1]!];
    if (!isObjectSchema(exported)) throw new Error(`services/${service}/src/config.ts: ${call[1]} is not a TypeBox object schema`);
    schemas.set(service, exported);
  }
  return schemas;
}

const isObjectSchema = (value: unknown): value is TObject =>
  typeof value === 'object' && value !== null && typeof (value as { properties?: unknown }).properties === 'object';

const requiredInProduction = (property: TSchema): boolean => (property as Record<string, unknown>)[RequiredInProduction] === true;

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

/** The Postbus services of a Compose file (those built with a SERVICE argument or running a service's main.js) and their environment. */
export function readCompose(source: string, target = 'docker-compose.yml'): Rendering {
  const document = parse(source, { merge: true }) as { services?: Record<string, ComposeService> };
  const services: DeployedService[] = [];
  const problems: Finding[] = [];
  for (const [label, definition] of Object.entries(document.services ?? {})) {
    const service = composeServiceName(definition);
    if (!service) continue;
    if (definition.env_file !== undefined) {
      problems.push({
        target,
        where: label,
        variable: 'env_file',
        problem: 'is not read by this check: give the variables under environment',
      });
    }
    const env = new Map<string, EnvSource>();
    for (const [name, value] of composeEnvironment(definition.environment)) {
      if (env.has(name)) problems.push({ target, where: label, variable: name, problem: 'is given twice' });
      env.set(name, value === null ? { wiring: '${' + name + '}', external: true, mayBeEmpty: true } : interpolation(value));
    }
    services.push({ service, label, env });
  }
  return { target, services, problems };
}

interface ComposeService {
  build?: { args?: Record<string, unknown> | string[] };
  command?: string | string[];
  environment?: Record<string, unknown> | string[];
  env_file?: unknown;
}

function composeServiceName(definition: ComposeService): string | undefined {
  const args = definition.build?.args;
  const fromArgs = Array.isArray(args)
    ? args.find((arg) => arg.startsWith('SERVICE='))?.slice('SERVICE='.length)
    : typeof args?.['SERVICE'] === 'string'
      ? args['SERVICE']
      : undefined;
  const command = Array.isArray(definition.command) ? definition.command.join(' ') : definition.command;
  return fromArgs ?? (command ? SERVICE_ENTRY.exec(command)?.[1] : undefined);
}

/** The environment as name → raw value (null: passed through from the host, `- NAME` or `NAME:` with nothing). */
function composeEnvironment(environment: ComposeService['environment']): [string, string | null][] {
  if (environment === undefined || environment === null) return [];
  if (Array.isArray(environment)) {
    return environment.map((entry) => {
      const at = entry.indexOf('=');
      return at < 0 ? [entry, null] : [entry.slice(0, at), entry.slice(at + 1)];
    });
  }
  return Object.entries(environment).map(([name, value]) => [name, value === null ? null : String(value as string | number | boolean)]);
}

/** A Compose value: a literal, or `${VAR}` with its modifiers (`:?message`, `:-default`, ...), as Compose interpolates it. */
function interpolation(raw: string): EnvSource {
  const whole = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])(.*))?\}$/s.exec(raw);
  if (whole) {
    const [, variable, modifier, operand = ''] = whole;
    if (modifier === ':?') return { wiring: `\${${variable}}`, external: true, mayBeEmpty: false };
    // ${VAR}, ${VAR?message}, ${VAR:+other}: unset or set empty, it reaches the service empty.
    if (modifier !== ':-' && modifier !== '-') return { wiring: `\${${variable}}`, external: true, mayBeEmpty: true };
    if (!operand.includes('$')) {
      return { wiring: `\${${variable}:-${operand}}`, value: operand, external: true, mayBeEmpty: operand === '' };
    }
  }
  // $$ is a literal dollar; any other $ interpolates part of the value.
  if (/(^|[^$])(\$\$)*\$(\{|[A-Za-z_])/.test(raw)) return { wiring: raw, external: true, mayBeEmpty: false };
  const value = raw.replaceAll('$$', '$');
  return { wiring: `'${value}'`, value, external: false, mayBeEmpty: value === '' };
}

// ---------------------------------------------------------------------------------------------
// deploy/k8s

interface K8sObject {
  kind?: string;
  metadata?: { name?: string };
  data?: Record<string, unknown>;
  stringData?: Record<string, unknown>;
  spec?: Record<string, unknown>;
}

interface Container {
  name?: string;
  command?: string[];
  args?: string[];
  envFrom?: { prefix?: string; configMapRef?: KeyedRef; secretRef?: KeyedRef }[];
  env?: {
    name: string;
    value?: string | number | boolean | null;
    valueFrom?: { configMapKeyRef?: KeyedRef; secretKeyRef?: KeyedRef; fieldRef?: { fieldPath?: string }; resourceFieldRef?: unknown };
  }[];
}

interface KeyedRef {
  name?: string;
  key?: string;
  optional?: boolean;
}

/**
 * The Postbus services of rendered manifests (`kustomize build deploy/k8s`) and their environment
 * as Kubernetes assembles it (envFrom in order, then env). `declaredSecrets` are the Secrets the
 * operator creates outside the kustomization (secret.example.yaml): their keys are what a
 * secretRef brings.
 */
export function readManifests(rendered: string, declaredSecrets: string, target = 'deploy/k8s'): Rendering {
  const objects = [...yamlObjects(rendered)];
  const configMaps = new Map<string, Map<string, string>>();
  const secrets = new Map<string, Set<string>>();
  for (const object of [...objects, ...yamlObjects(declaredSecrets)]) {
    const name = object.metadata?.name ?? '';
    if (object.kind === 'ConfigMap') {
      configMaps.set(name, new Map(Object.entries(object.data ?? {}).map(([key, value]) => [key, String(value as string)])));
    }
    if (object.kind === 'Secret') secrets.set(name, new Set([...Object.keys(object.data ?? {}), ...Object.keys(object.stringData ?? {})]));
  }

  const services: DeployedService[] = [];
  const problems: Finding[] = [];
  for (const object of objects) {
    for (const container of podContainers(object)) {
      const service = SERVICE_ENTRY.exec([...(container.command ?? []), ...(container.args ?? [])].join(' '))?.[1];
      if (!service) continue;
      const label =
        `${object.kind}/${object.metadata?.name}` +
        (container.name && container.name !== object.metadata?.name ? ` (${container.name})` : '');
      const env = new Map<string, EnvSource>();
      const problem = (variable: string, text: string) => problems.push({ target, where: label, variable, problem: text });
      const give = (name: string, source: EnvSource) => {
        const before = env.get(name);
        if (before) problem(name, `is given twice (${before.wiring} and ${source.wiring}): the second silently wins`);
        env.set(name, source);
      };

      for (const from of container.envFrom ?? []) {
        const prefix = from.prefix ?? '';
        if (from.configMapRef) {
          const data = configMaps.get(from.configMapRef.name ?? '');
          if (!data) {
            if (!from.configMapRef.optional)
              problem('envFrom', `names ConfigMap ${from.configMapRef.name}, which the kustomization does not make`);
            continue;
          }
          for (const [key, value] of data)
            give(prefix + key, { wiring: `ConfigMap ${from.configMapRef.name}/${key}`, value, external: false, mayBeEmpty: value === '' });
        }
        if (from.secretRef) {
          const keys = secrets.get(from.secretRef.name ?? '');
          if (!keys) {
            problem('envFrom', `names Secret ${from.secretRef.name}, which neither the kustomization nor secret.example.yaml declares`);
            continue;
          }
          for (const key of keys) {
            give(prefix + key, {
              wiring: `Secret ${from.secretRef.name}/${key}`,
              external: true,
              mayBeEmpty: from.secretRef.optional === true,
            });
          }
        }
      }

      for (const entry of container.env ?? []) {
        const ref = entry.valueFrom;
        if (ref?.configMapKeyRef) {
          const { name = '', key = '', optional = false } = ref.configMapKeyRef;
          const value = configMaps.get(name)?.get(key);
          if (value === undefined && !optional)
            problem(entry.name, `refers to ConfigMap ${name} key ${key}, which the kustomization does not make`);
          give(entry.name, { wiring: `ConfigMap ${name}/${key}`, value, external: false, mayBeEmpty: value === undefined || value === '' });
        } else if (ref?.secretKeyRef) {
          const { name = '', key = '', optional = false } = ref.secretKeyRef;
          const keys = secrets.get(name);
          if (!keys) problem(entry.name, `refers to Secret ${name}, which neither the kustomization nor secret.example.yaml declares`);
          else if (!keys.has(key) && !optional)
            problem(entry.name, `refers to key ${key} of Secret ${name}, which secret.example.yaml does not list`);
          give(entry.name, { wiring: `Secret ${name}/${key}`, external: true, mayBeEmpty: optional || !keys?.has(key) });
        } else if (ref) {
          give(entry.name, { wiring: `valueFrom ${JSON.stringify(ref)}`, external: true, mayBeEmpty: false });
        } else {
          const value = entry.value === undefined || entry.value === null ? '' : String(entry.value);
          give(entry.name, { wiring: `'${value}'`, value, external: false, mayBeEmpty: value === '' });
        }
      }
      services.push({ service, label, env });
    }
  }
  return { target, services, problems };
}

function* yamlObjects(source: string): Generator<K8sObject> {
  for (const document of parseAllDocuments(source)) {
    if (document.errors.length > 0) throw new Error(`YAML: ${document.errors[0]!.message}`);
    const object = document.toJS() as K8sObject | null;
    if (object && typeof object === 'object') yield object;
  }
}

/** The containers of a workload's pod template (Deployment, StatefulSet, DaemonSet, Job, CronJob). */
function podContainers(object: K8sObject): Container[] {
  const spec = object.spec as
    | {
        template?: { spec?: { containers?: Container[] } };
        jobTemplate?: { spec?: { template?: { spec?: { containers?: Container[] } } } };
      }
    | undefined;
  return spec?.template?.spec?.containers ?? spec?.jobTemplate?.spec?.template?.spec?.containers ?? [];
}

// ---------------------------------------------------------------------------------------------
// The check

/** Why the service's schema refuses `value` for `name`, as loadConfig would say it at start, or undefined. */
function refusal(name: string, property: TSchema, value: string): string | undefined {
  try {
    loadConfig(Type.Object({ [name]: property }), { [name]: value });
    return undefined;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // "NAME: must be integer (its description)": the reason only.
    const description = typeof property.description === 'string' ? ` (${property.description})` : '';
    return error.problems.map((p) => p.replace(`${name}: `, '').replace(description, '')).join('; ');
  }
}

/**
 * Every mismatch between what a deployment gives its Postbus services and their schemas:
 * - a variable the service does not know (a typo, a setting of another service, one that was removed);
 * - a setting marked RequiredInProduction (the image runs with NODE_ENV=production: the service
 *   refuses to start without it) that is not given, may be empty, or is written into the file;
 * - a value the schema refuses;
 * - a secret wired differently to the services that share it: the RequiredInProduction settings,
 *   and what any service gets from a Kubernetes Secret, must come from the same place for every
 *   service whose schema has them;
 * plus what could not be read (a variable given twice, a ConfigMap or Secret key that does not exist).
 */
export function checkRendering(rendering: Rendering, schemas: ReadonlyMap<string, TObject>): Finding[] {
  const { target } = rendering;
  const findings: Finding[] = [...rendering.problems];
  const add = (where: string, variable: string, problem: string) => findings.push({ target, where, variable, problem });

  for (const { service, label, env } of rendering.services) {
    const schema = schemas.get(service);
    if (!schema) {
      add(label, '*', `runs services/${service}, which has no configuration schema (src/main.ts → runService)`);
      continue;
    }
    const properties = schema.properties as Record<string, TSchema>;
    for (const [name, source] of env) {
      const property = properties[name];
      if (!property) {
        if (!RUNTIME_VARIABLES.has(name)) add(label, name, `is not a setting of ${service} (services/${service}/src/config.ts)`);
        else if (name === 'NODE_ENV' && source.value !== 'production')
          add(label, name, `is ${source.wiring}: the services run with NODE_ENV=production`);
        continue;
      }
      if (source.value !== undefined && source.value !== '') {
        const why = refusal(name, property, source.value);
        if (why) add(label, name, `is ${source.wiring}, which ${service}'s schema refuses: ${why}`);
      }
    }
    for (const [name, property] of Object.entries(properties)) {
      if (!requiredInProduction(property)) continue;
      const source = env.get(name);
      if (!source) add(label, name, `is required in production (RequiredInProduction) but not given`);
      else if (source.mayBeEmpty) add(label, name, `is required in production (RequiredInProduction) but may be empty: ${source.wiring}`);
      else if (!source.external)
        add(label, name, `is a secret but written into the file (${source.wiring}): take it from a Secret or \${VAR:?}`);
    }
  }

  // The secrets of this deployment: every RequiredInProduction setting of the services it runs,
  // and whatever it takes from a Kubernetes Secret.
  const secretNames = new Set<string>();
  for (const { service, env } of rendering.services) {
    for (const [name, property] of Object.entries((schemas.get(service)?.properties ?? {}) as Record<string, TSchema>)) {
      if (requiredInProduction(property)) secretNames.add(name);
    }
    for (const [name, source] of env) if (source.wiring.startsWith('Secret ')) secretNames.add(name);
  }
  for (const name of [...secretNames].sort()) {
    const sharing = rendering.services.filter(({ service }) => schemas.get(service)?.properties[name] !== undefined);
    const wirings = sharing.map(({ label, env }) => `${label} ← ${env.get(name)?.wiring ?? '(not given)'}`);
    const distinct = new Set(sharing.map(({ env }) => env.get(name)?.wiring));
    if (distinct.size > 1) add(sharing.map((s) => s.label).join(', '), name, `is a secret wired differently: ${wirings.join('; ')}`);
  }
  return findings;
}

/** Services one deployment runs and another does not (each deployment should run all of Postbus). */
export function checkSameServices(renderings: readonly Rendering[]): Finding[] {
  const all = new Set(renderings.flatMap((r) => r.services.map((s) => s.service)));
  return renderings.flatMap((r) =>
    [...all]
      .filter((service) => !r.services.some((s) => s.service === service))
      .map((service) => ({
        target: r.target,
        where: service,
        variable: '*',
        problem: `is not deployed here, but is in ${renderings
          .filter((o) => o.services.some((s) => s.service === service))
          .map((o) => o.target)
          .join(', ')}`,
      })),
  );
}
