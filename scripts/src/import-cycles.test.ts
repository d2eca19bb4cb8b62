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
async function importCycles(baseDir: string, folders: string[]): Promise<{ cycles: string[]; unresolved: string[] }> {
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
  };
}

describe('import cycles', () => {
  it('no file in services/*/src or libs/*/src imports itself through others, type-only imports included', async () => {
    const { cycles, unresolved } = await importCycles(repoRoot, sourceFolders);
    expect(unresolved).toEqual([]);
    expect(cycles).toEqual([]);
  });

  it('a cycle made only of type imports is reported with its files by name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    try {
      writeFileSync(join(dir, 'order.ts'), "import type { Customer } from './customer';\nexport interface Order { by: Customer }\n");
      writeFileSync(join(dir, 'customer.ts'), "import type { Order } from './order';\nexport interface Customer { orders: Order[] }\n");
      writeFileSync(join(dir, 'unrelated.ts'), "import type { Order } from './order';\nexport type Orders = Order[];\n");

      const { cycles } = await importCycles(dir, ['.']);

      expect(cycles).toEqual(['customer.ts → order.ts → customer.ts']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
