import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TObject } from '@sinclair/typebox';
import { parse, parseAllDocuments, stringify } from 'yaml';
import {
  checkRendering,
  checkSameServices,
  describeFinding,
  loadServiceSchemas,
  readCompose,
  readManifests,
  type Rendering,
} from './config-drift';

const repoRoot = join(__dirname, '..', '..');
const composeSource = readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8');
const declaredSecrets = readFileSync(join(repoRoot, 'deploy', 'k8s', 'secret.example.yaml'), 'utf8');

/** The pinned kustomize, built into ~/.cache/postbus on first use by the same script .ci/run calls. */
function kustomize(): string {
  try {
    return execFileSync('bash', [join(repoRoot, 'deploy', 'tools', 'kustomize.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    const output = ((error as { stderr?: string }).stderr ?? '').trim();
    throw new Error(
      `kustomize could not be obtained (bash deploy/tools/kustomize.sh builds it with Go from the Go module proxy):\n${output || String(error)}`,
      { cause: error },
    );
  }
}

const findings = (rendering: Rendering, schemas: ReadonlyMap<string, TObject>) => checkRendering(rendering, schemas).map(describeFinding);

let schemas: Map<string, TObject>;
let renderedOrError: string | Error;
/** `kustomize build deploy/k8s`; without kustomize the tests that need it fail with the reason (never skip). */
const rendered = (): string => {
  if (renderedOrError instanceof Error) throw renderedOrError;
  return renderedOrError;
};

beforeAll(async () => {
  schemas = await loadServiceSchemas(repoRoot);
  try {
    // A cold build of kustomize takes about half a minute.
    renderedOrError = execFileSync(kustomize(), ['build', join(repoRoot, 'deploy', 'k8s')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    renderedOrError = error as Error;
  }
}, 600_000);

/** The services both deployments run (the SMTP sink is development's; Mailpit stands in for it). */
const DEPLOYED_SERVICES = ['erasure', 'gateway', 'inbound', 'mailer', 'payments', 'status', 'submission', 'users', 'webhook-dispatcher'];

describe('the deployment files give every service exactly the configuration its schema asks for', () => {
  it('every service that runs a process has a schema to check against', () => {
    expect([...schemas.keys()]).toEqual(expect.arrayContaining(DEPLOYED_SERVICES));
  });

  it('docker-compose.yml: no unknown variable, every one required in production given from outside the file, shared secrets wired alike', () => {
    const compose = readCompose(composeSource);
    expect(compose.services.map((s) => s.service).sort()).toEqual(DEPLOYED_SERVICES);
    expect(findings(compose, schemas)).toEqual([]);
  });

  it('deploy/k8s rendered by kustomize: no unknown variable, every one required in production from a Secret, shared secrets wired alike', () => {
    const k8s = readManifests(rendered(), declaredSecrets);
    expect(k8s.services.map((s) => s.service).sort()).toEqual(DEPLOYED_SERVICES);
    expect(findings(k8s, schemas)).toEqual([]);
  });

  it('both run the same services', () => {
    expect(checkSameServices([readCompose(composeSource), readManifests(rendered(), declaredSecrets)]).map(describeFinding)).toEqual([]);
  });
});

describe('SMTP submission is reached on 587 and 465 with its certificate mounted, and the status service watches it', () => {
  it('docker-compose.yml publishes 587 and 465 on the ports it listens on, and mounts the folder of its key and certificate', () => {
    type Service = { environment: Record<string, string>; ports: string[]; volumes: string[] };
    const file = parse(composeSource, { merge: true }) as { services: Record<string, Service> };
    const { environment: env, ports, volumes } = file.services['submission']!;
    expect(ports).toEqual([
      `\${POSTBUS_SUBMISSION_PORT:-587}:${env['SUBMISSION_PORT']}`,
      `\${POSTBUS_SUBMISSION_TLS_PORT:-465}:${env['SUBMISSION_TLS_PORT']}`,
    ]);
    // `<host folder>:<container folder>:ro`; the host folder is the operator's (POSTBUS_SUBMISSION_TLS_DIR).
    const mounted = volumes.map((volume) => /^\$\{POSTBUS_SUBMISSION_TLS_DIR:\?[^}]+\}:(\/[^:]+):ro$/.exec(volume)?.[1]);
    expect(mounted).toEqual([expect.any(String)]);
    for (const name of ['SUBMISSION_TLS_KEY_FILE', 'SUBMISSION_TLS_CERT_FILE'])
      expect(env[name]).toMatch(new RegExp(`^${mounted[0]}/[^/]+$`));
    expect(file.services['status']!.environment).toMatchObject({
      SUBMISSION_URL: `http://submission:${env['PORT']}`,
      SUBMISSION_SMTP_URL: `smtp://submission:${env['SUBMISSION_PORT']}`,
    });
  });

  it('deploy/k8s: a LoadBalancer Service maps 587 and 465 to the ports it listens on, its certificate is a TLS Secret mounted whole, the status service probes it', () => {
    type Port = { name?: string; port?: number; containerPort?: number; targetPort?: string | number };
    type Container = {
      env: { name: string; value?: string }[];
      ports: Port[];
      volumeMounts: { name: string; mountPath: string; subPath?: string }[];
    };
    type Manifest = {
      kind: string;
      metadata: { name: string };
      type?: string;
      stringData?: Record<string, string>;
      spec: {
        type?: string;
        selector?: Record<string, string>;
        ports?: Port[];
        template?: { spec: { containers: Container[]; volumes: { name: string; secret?: { secretName: string } }[] } };
      };
    };
    const objects = parseAllDocuments(rendered()).map((d) => d.toJS() as Manifest);
    const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'submission')!;
    const container = deployment.spec.template!.spec.containers[0]!;
    const env = (c: Container, name: string) => c.env.find((e) => e.name === name)?.value;
    /** The container port a Service port reaches. */
    const target = (port: Port) =>
      container.ports.find((p) => p.name === port.targetPort || p.containerPort === port.targetPort)?.containerPort;
    const services = objects.filter((o) => o.kind === 'Service' && o.spec.selector?.['app.kubernetes.io/name'] === 'submission');

    const [loadBalancer] = services.filter((o) => o.spec.type === 'LoadBalancer');
    const byPort = new Map(loadBalancer!.spec.ports!.map((p) => [p.port, target(p)]));
    expect(Object.fromEntries(byPort)).toEqual({
      587: Number(env(container, 'SUBMISSION_PORT')),
      465: Number(env(container, 'SUBMISSION_TLS_PORT')),
    });

    const keyFile = env(container, 'SUBMISSION_TLS_KEY_FILE')!;
    const certFile = env(container, 'SUBMISSION_TLS_CERT_FILE')!;
    const mount = container.volumeMounts.find((m) => keyFile.startsWith(`${m.mountPath}/`));
    expect(mount).toBeDefined();
    // A subPath mount would never see a renewed Secret.
    expect(mount!.subPath).toBeUndefined();
    expect(certFile.startsWith(`${mount!.mountPath}/`)).toBe(true);
    const secretName = deployment.spec.template!.spec.volumes.find((v) => v.name === mount!.name)?.secret?.secretName;
    const declared = parseAllDocuments(declaredSecrets)
      .map((d) => d.toJS() as Manifest)
      .find((o) => o.kind === 'Secret' && o.metadata.name === secretName);
    expect(declared?.type).toBe('kubernetes.io/tls');
    expect(Object.keys(declared!.stringData!).sort()).toEqual(
      [keyFile, certFile].map((file) => file.slice(mount!.mountPath.length + 1)).sort(),
    );

    const status = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'status')!.spec.template!.spec.containers[0]!;
    expect(env(status, 'SUBMISSION_SMTP_URL')).toBe(`smtp://${loadBalancer!.metadata.name}:587`);
    const internal = services.find((o) => o.spec.ports!.some((p) => target(p) === Number(env(container, 'PORT'))))!;
    const internalPort = internal.spec.ports!.find((p) => target(p) === Number(env(container, 'PORT')))!.port;
    expect(env(status, 'SUBMISSION_URL')).toBe(`http://${internal.metadata.name}:${internalPort}`);
  });
});

// Each mutation is checked for what it adds to the findings of the files as they are, so these
// tests prove the check works whether or not the files themselves are clean.
describe('the check reports drift (mutated copies of the files)', () => {
  const added = (found: string[], baseline: string[]) => found.filter((f) => !baseline.includes(f));

  type ComposeFile = { services: Record<string, { environment: Record<string, unknown> }> };
  const mutatedCompose = (mutate: (file: ComposeFile) => void) => {
    const file = parse(composeSource, { merge: true }) as ComposeFile;
    mutate(file);
    return added(findings(readCompose(stringify(file)), schemas), findings(readCompose(composeSource), schemas));
  };

  type Env = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  const mutatedManifests = (mutate: (deployments: Map<string, { env: Env }>) => void) => {
    const documents = parseAllDocuments(rendered()).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: any });
    const deployments = new Map(
      documents.filter((d) => d.kind === 'Deployment').map((d) => [d.metadata.name, d.spec.template.spec.containers[0] as { env: Env }]),
    );
    mutate(deployments);
    return added(
      findings(readManifests(documents.map((d) => stringify(d)).join('---\n'), declaredSecrets), schemas),
      findings(readManifests(rendered(), declaredSecrets), schemas),
    );
  };

  it('when a service is given a variable it does not know (a typo), it is named', () => {
    expect(
      mutatedCompose((file) => {
        file.services['users']!.environment['USERS_DB'] = 'postbus_users';
      }),
    ).toEqual(['docker-compose.yml: users: USERS_DB is not a setting of users (services/users/src/config.ts)']);
  });

  it('when a setting of another service is handed to every service, each that does not know it is named', () => {
    const found = mutatedManifests((deployments) => {
      for (const container of deployments.values()) container.env.push({ name: 'SMTP_POOL_CONNECTIONS', value: '8' });
    });
    expect(found).toContain('deploy/k8s: Deployment/users: SMTP_POOL_CONNECTIONS is not a setting of users (services/users/src/config.ts)');
    expect(found.filter((f) => f.includes('Deployment/mailer'))).toEqual([
      expect.stringContaining("SMTP_POOL_CONNECTIONS is given twice ('8' and '8')"),
    ]);
  });

  it('when a secret required in production is left out, the service and the variable are named', () => {
    expect(
      mutatedCompose((file) => {
        delete file.services['erasure']!.environment['ERASURE_AUDIT_KEY'];
      }),
    ).toEqual([
      'docker-compose.yml: erasure: ERASURE_AUDIT_KEY is required in production (RequiredInProduction) but not given',
      // The mailer holds the same key (the suppressions an erased address keeps): the two now differ.
      expect.stringMatching(/: erasure, mailer: ERASURE_AUDIT_KEY is a secret wired differently: erasure ← \(not given\)/),
    ]);
    const found = mutatedManifests((deployments) => {
      const container = deployments.get('payments')!;
      container.env = container.env.filter((e) => e.name !== 'INTERNAL_API_SECRET');
    });
    expect(found).toEqual([
      'deploy/k8s: Deployment/payments: INTERNAL_API_SECRET is required in production (RequiredInProduction) but not given',
      expect.stringMatching(/: INTERNAL_API_SECRET is a secret wired differently: .*Deployment\/payments ← \(not given\)/),
    ]);
  });

  it('when a secret required in production may be empty or is written into the file, it is named', () => {
    expect(
      mutatedCompose((file) => {
        file.services['gateway']!.environment['SESSION_SECRET'] = '${POSTBUS_SESSION_SECRET:-}';
        file.services['status']!.environment['STATUS_OPERATOR_TOKEN'] = 'a-token-committed-to-git';
      }),
    ).toEqual([
      'docker-compose.yml: gateway: SESSION_SECRET is required in production (RequiredInProduction) but may be empty: ${POSTBUS_SESSION_SECRET:-}',
      "docker-compose.yml: status: STATUS_OPERATOR_TOKEN is a secret but written into the file ('a-token-committed-to-git'): take it from a Secret or ${VAR:?}",
    ]);
  });

  it('when one service gets a shared secret from elsewhere than the others, every wiring is listed', () => {
    expect(
      mutatedCompose((file) => {
        file.services['mailer']!.environment['TRACKING_SECRET'] = '${POSTBUS_MAILER_TRACKING_SECRET:?set it}';
      }),
    ).toEqual([
      'docker-compose.yml: mailer, inbound, gateway: TRACKING_SECRET is a secret wired differently: mailer ← ${POSTBUS_MAILER_TRACKING_SECRET}; inbound ← ${POSTBUS_TRACKING_SECRET}; gateway ← ${POSTBUS_TRACKING_SECRET}',
    ]);
    expect(
      mutatedManifests((deployments) => {
        const entry = deployments.get('webhook-dispatcher')!.env.find((e) => e.name === 'SECRETS_KEY')!;
        entry.valueFrom = { secretKeyRef: { name: 'postbus-mongo', key: 'TRACKING_SECRET' } };
      }),
    ).toEqual([
      expect.stringMatching(
        /^deploy\/k8s: .*: SECRETS_KEY is a secret wired differently: .*Deployment\/webhook-dispatcher ← Secret postbus-mongo\/TRACKING_SECRET/,
      ),
    ]);
  });

  it('when a value breaks the schema, the value and the reason are named', () => {
    expect(
      mutatedCompose((file) => {
        file.services['users']!.environment['KAFKA_REPLICATION_FACTOR'] = 'three';
      }),
    ).toEqual(["docker-compose.yml: users: KAFKA_REPLICATION_FACTOR is 'three', which users's schema refuses: must be integer"]);
  });
});
