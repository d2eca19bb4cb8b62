import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import madge from 'madge';

const repoRoot = join(__dirname, '..', '..');

/** Every package's source folder, relative to the repository root. */
const sourceFolders = ['services', 'libs'].flatMap((parent) =>
  readdirSync(join(repoRoot, parent))
    .map((name) => `${parent}/${name}/src`)
    .filter((folder) => existsSync(join(repoRoot, folder))),
);

/**
 * The import cycles among the TypeScript files under `folders`, each as `a.ts → b.ts → a.ts`.
 *
 * Type-only imports count: they are erased at run time, so they cannot break module loading, but
 * two files that name each other's types still cannot be read, changed or moved one without the
 * other, which is what a cycle costs. Imports of another package are left out (they resolve to its
 * build output, and TypeScript's project references already refuse a cycle between packages).
 */
async function importGraph(
  baseDir: string,
  folders: string[],
): Promise<{ cycles: string[]; unresolved: string[]; imports: Record<string, string[]> }> {
  // madge's TypeScript reader still reads a field of `import('…')` types that the parser it shares
  // with eslint has deprecated: the dependency is found all the same, the warning is only noise.
  const noDeprecation = process.noDeprecation;
  process.noDeprecation = true;
  const graph = await madge(
    folders.map((folder) => join(baseDir, folder)),
    {
      baseDir,
      fileExtensions: ['ts', 'tsx'],
      excludeRegExp: [/\.d\.ts$/, /(^|\/)dist\//, /(^|\/)node_modules\//],
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    },
  ).finally(() => (process.noDeprecation = noDeprecation));
  return {
    cycles: graph.circular().map((files) => [...files, files[0]].join(' → ')),
    // A relative import madge could not follow would hide any cycle through it.
    unresolved: graph.warnings().skipped.filter((specifier) => specifier.startsWith('.')),
    imports: graph.obj(),
  };
}

/**
 * The layers of a service (docs/architecture.md, "Anatomy of a service") and the folders each may
 * not import from. The domain is the centre: it declares the ports it needs (the stores, the
 * clients it calls) and imports no layer of its service; `model/` implements those ports, so it
 * may name the domain's port and record types and use its pure rules, but never the layers that
 * drive the service. `start/` and `app.ts` wire them all; handlers, http and clients sit at the edge.
 */
const FORBIDDEN_IMPORTS: Record<string, string[]> = {
  domain: ['model', 'handlers', 'http', 'clients', 'smtp', 'parse', 'start', 'app.ts'],
  model: ['handlers', 'http', 'clients', 'smtp', 'start', 'app.ts'],
};

/** Every import in `imports` (file → files, relative to the repository) that crosses a service's layers the wrong way, as `from → to`. */
function layerViolations(imports: Record<string, string[]>): string[] {
  const layerOf = (file: string) => /^services\/([^/]+)\/src\/([^/]+)/.exec(file)?.slice(1) as [string, string] | undefined;
  return Object.entries(imports).flatMap(([from, targets]) => {
    const source = layerOf(from);
    const forbidden = source && FORBIDDEN_IMPORTS[source[1]];
    if (!source || !forbidden) return [];
    return targets
      .filter((to) => {
        const target = layerOf(to);
        return target !== undefined && target[0] === source[0] && forbidden.includes(target[1]);
      })
      .map((to) => `${from} → ${to}`);
  });
}

describe('import cycles', () => {
  it('no file in services/*/src or libs/*/src imports itself through others, type-only imports included', async () => {
    const { cycles, unresolved } = await importGraph(repoRoot, sourceFolders);
    expect(unresolved).toEqual([]);
    expect(cycles).toEqual([]);
  });

  it("no service's domain/ imports its model/ (or any outer layer), and no model/ imports the layers that drive it", async () => {
    const { imports } = await importGraph(repoRoot, sourceFolders);
    expect(Object.keys(imports).some((file) => file.startsWith('services/mailer/src/model/'))).toBe(true);
    expect(layerViolations(imports)).toEqual([]);
  });

  it('names each import that crosses the layers the wrong way', () => {
    const imports = {
      'services/mailer/src/domain/timeline.ts': ['services/mailer/src/model/message.repository.ts', 'services/mailer/src/domain/ports.ts'],
      'services/mailer/src/model/message.repository.ts': [
        'services/mailer/src/domain/ports.ts',
        'services/mailer/src/http/internal-api.ts',
      ],
      'services/users/src/domain/user-commands.ts': ['services/mailer/src/model/message.repository.ts'],
      'services/users/src/app.ts': ['services/users/src/model/user.repository.ts'],
    };

    expect(layerViolations(imports)).toEqual([
      'services/mailer/src/domain/timeline.ts → services/mailer/src/model/message.repository.ts',
      'services/mailer/src/model/message.repository.ts → services/mailer/src/http/internal-api.ts',
    ]);
  });

  it('a cycle made only of type imports is reported with its files by name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    try {
      writeFileSync(join(dir, 'order.ts'), "import type { Customer } from './customer';\nexport interface Order { by: Customer }\n");
      writeFileSync(join(dir, 'customer.ts'), "import type { Order } from './order';\nexport interface Customer { orders: Order[] }\n");
      writeFileSync(join(dir, 'unrelated.ts'), "import type { Order } from './order';\nexport type Orders = Order[];\n");

      const { cycles } = await importGraph(dir, ['.']);

      expect(cycles).toEqual(['customer.ts → order.ts → customer.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
