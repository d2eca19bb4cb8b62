import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TObject } from '@sinclair/typebox';
import { MessageTopics, Topics } from '@postbus/contracts';

/**
 * The design documents state facts the code also states: which topic carries which message type,
 * which environment variables each service reads, what each service's folders hold. These tests
 * read both and fail when the documents fall behind the code (or name what is not there).
 */
const repoRoot = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** The lines of a markdown document from the heading `## title` to the next heading of that level. */
function section(markdown: string, title: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${title}`);
  if (start === -1) throw new Error(`no section "## ${title}"`);
  const end = lines.findIndex((line, i) => i > start && line.startsWith('## '));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

/** A table row's cells, without the outer pipes. */
const cells = (line: string): string[] =>
  line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());

/** The rows of every table whose first header cell is `header`, each as its cells. */
function tableRows(lines: string[], header: string): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines) {
    if (!line.startsWith('|')) inTable = false;
    else if (cells(line)[0] === header) inTable = true;
    else if (inTable && !/^\|\s*-/.test(line)) rows.push(cells(line));
  }
  return rows;
}

const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe("docs/architecture.md's topics table", () => {
  const rows = tableRows(section(read('docs/architecture.md'), 'Topics and messages'), 'Topic');
  /** Each topic's message types as the table lists them (`message.scheduled`, `.queued`: the prefix carries over). */
  const documented = new Map(
    rows.map(([topicCell, , typesCell]) => {
      let prefix = '';
      const types = codeSpans(typesCell ?? '').flatMap((span) => {
        const full = /^([a-z]+)\.[a-z_]+$/.exec(span);
        if (full) prefix = full[1]!;
        if (full) return [span];
        return /^\.[a-z_]+$/.test(span) && prefix ? [`${prefix}${span}`] : [];
      });
      return [codeSpans(topicCell ?? '')[0] ?? topicCell, types.sort()] as const;
    }),
  );

  it('has a row for every topic, and none for a topic that does not exist', () => {
    expect([...documented.keys()].sort()).toEqual(Object.values(Topics).sort());
  });

  it('lists exactly the message types that travel on each topic (MessageTopics)', () => {
    const inCode = new Map<string, string[]>();
    for (const [type, topic] of Object.entries(MessageTopics)) inCode.set(topic, [...(inCode.get(topic) ?? []), type].sort());
    for (const topic of Object.values(Topics))
      expect({ topic, types: documented.get(topic) }).toEqual({ topic, types: inCode.get(topic) ?? [] });
  });
});

describe('the configuration tables', () => {
  /** Every variable of every service's configuration schema, with the services that read it. */
  const schemas = readdirSync(join(repoRoot, 'services')).flatMap((service) => {
    const file = join(repoRoot, 'services', service, 'src', 'config.ts');
    if (!existsSync(file)) return [];
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- each service's config module, found by walking the folders
    const exported = require(file) as Record<string, unknown>;
    return Object.values(exported)
      .filter(
        (value): value is TObject =>
          typeof value === 'object' && value !== null && 'properties' in value && (value as TObject).type === 'object',
      )
      .map((schema) => ({ service, schema }));
  });
  const variables = new Set(schemas.flatMap(({ schema }) => Object.keys(schema.properties)));
  /** The variables the tables name (docs/operations.md's, and the SMTP sink's README, which operations.md points to). */
  const documentedRows = [read('docs/operations.md'), read('services/smtp-sink/README.md')].flatMap((doc) =>
    tableRows(doc.split('\n'), 'Variable'),
  );
  const documented = new Set(documentedRows.flatMap(([name]) => codeSpans(name ?? '').filter((span) => /^[A-Z][A-Z0-9_]+$/.test(span))));
  /** Read by the runtime itself, not by a service's schema. */
  const outsideSchemas = new Set(['NODE_ENV']);

  it('name every variable a service reads', () => {
    expect([...variables].filter((name) => !documented.has(name)).sort()).toEqual([]);
  });

  it('name no variable that no service reads', () => {
    expect([...documented].filter((name) => !variables.has(name) && !outsideSchemas.has(name)).sort()).toEqual([]);
  });

  it("give every service's default PORT", () => {
    // operations.md's row (the SMTP sink's README has one of its own).
    const portRow = documentedRows.find(([name, defaults]) => name === '`PORT`' && defaults?.includes('gateway'));
    const defaults = schemas.flatMap(({ service, schema }) => {
      const port = schema.properties['PORT'] as { default?: number } | undefined;
      return port?.default !== undefined && service !== 'smtp-sink' ? [{ service, port: port.default }] : [];
    });
    expect(defaults.length).toBeGreaterThan(5);
    for (const { service, port } of defaults)
      expect({ service, listed: portRow?.[1]?.includes(String(port)) }).toEqual({ service, listed: true });
  });
});

describe("docs/architecture.md's anatomy of a service", () => {
  /** Every file and folder under the services', libraries' and scripts' sources, as paths relative to the repository. */
  const sources: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(repoRoot, dir))) {
      if (name === 'node_modules' || name === 'dist') continue;
      const path = `${dir}/${name}`;
      const folder = statSync(join(repoRoot, path)).isDirectory();
      sources.push(folder ? `${path}/` : path);
      if (folder) walk(path);
    }
  };
  for (const parent of ['services', 'libs', 'scripts']) walk(parent);

  const anatomy = section(read('docs/architecture.md'), 'Anatomy of a service');

  it('names only files and folders that exist', () => {
    const named = anatomy
      .flatMap((line) => codeSpans(line))
      .flatMap((span) => span.split(/[\s,]+/))
      .filter((span) => /^[\w.<>*/-]+(\.tsx?|\/)$/.test(span) && !/[<>*]/.test(span));
    expect(named.length).toBeGreaterThan(40);
    const missing = named.filter((path) => !sources.some((source) => source === path || source.endsWith(`/${path}`)));
    expect([...new Set(missing)]).toEqual([]);
  });

  // The services whose handlers it names one by one (the mailer's and the inbound service's are
  // named by their rule: one file per consumed message type, listed in handlers/index.ts).
  it.each(['users', 'payments', 'erasure', 'webhook-dispatcher', 'gateway'])('names every handler of the %s service', (service) => {
    const spans = new Set(anatomy.flatMap((line) => codeSpans(line)));
    const handlers = readdirSync(join(repoRoot, 'services', service, 'src', 'handlers'))
      .filter((file) => file.endsWith('.handler.ts'))
      .map((file) => file.replace(/\.handler\.ts$/, ''));
    const unnamed = handlers.filter((name) => ![name, `${name}.handler.ts`, `handlers/${name}.handler.ts`].some((form) => spans.has(form)));
    expect(unnamed).toEqual([]);
  });
});

describe('the README', () => {
  it('keeps every table line within 120 characters', () => {
    const long = read('README.md')
      .split('\n')
      .map((line, i) => ({ line: i + 1, length: line.length, table: line.startsWith('|') }))
      .filter(({ table, length }) => table && length > 120);
    expect(long).toEqual([]);
  });
});
