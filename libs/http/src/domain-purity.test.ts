import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * A service's domain/ code is pure: loading it loads no database driver nor HTTP framework, so it
 * runs under unit tests and in any process without them. Domain code takes what it needs from
 * libs/db and libs/http through their subpath exports (e.g. `@postbus/db/group-commit`), whose
 * modules import neither mongoose nor express; the packages' entry points load both.
 */
const ROOT = resolve(__dirname, '../../..');
const HEAVY = ['mongoose', 'express'] as const;

/** Every non-test TypeScript file under `dir`, at any depth. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const domainFiles = readdirSync(join(ROOT, 'services'), { withFileTypes: true })
  .filter((service) => service.isDirectory())
  .flatMap((service) => {
    const domain = join(ROOT, 'services', service.name, 'src', 'domain');
    try {
      return sources(domain);
    } catch {
      return []; // no domain/ in this service
    }
  })
  .map((file) => relative(ROOT, file));

/** The subpath exports of the database and HTTP libraries, as their package.json names them. */
const subpaths = ['db', 'http'].flatMap((lib) => {
  const dir = join(ROOT, 'libs', lib);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
  };
  return Object.entries(manifest.exports)
    .filter((entry): entry is [string, Record<string, string>] => entry[0] !== '.' && typeof entry[1] === 'object')
    .map(([subpath, conditions]) => ({ lib, dir, specifier: `@postbus/${lib}/${subpath.slice(2)}`, conditions }));
});

// Each heavy package, when anything loads it, records itself and refuses to load.
let loaded: string[] = [];
beforeAll(() => {
  for (const name of HEAVY) {
    jest.doMock(name, () => {
      loaded.push(name);
      throw new Error(`${name} was loaded`);
    });
  }
});
afterAll(() => {
  for (const name of HEAVY) jest.dontMock(name);
});

/** The heavy packages loading `file` (in a fresh module registry) reaches; the first stops the load. */
async function heavyLoadedBy(file: string): Promise<string[]> {
  loaded = [];
  await jest.isolateModulesAsync(async () => {
    try {
      await import(file);
    } catch (error) {
      if (loaded.length === 0) throw error;
    }
  });
  return loaded;
}

describe('domain purity', () => {
  it('finds the domain files', () => {
    expect(domainFiles.length).toBeGreaterThan(20);
    expect(domainFiles).toContain('services/mailer/src/domain/timeline.ts');
  });

  it('notices a module that loads mongoose or express', async () => {
    expect(await heavyLoadedBy(join(ROOT, 'libs/db/src/index.ts'))).toEqual(['mongoose']);
    expect(await heavyLoadedBy(join(ROOT, 'libs/http/src/health.ts'))).toEqual(['express']);
  });

  it.each(domainFiles)('%s loads neither mongoose nor express', async (file) => {
    expect(await heavyLoadedBy(join(ROOT, file))).toEqual([]);
  });
});

describe('the pure subpath exports of libs/db and libs/http', () => {
  it('exist', () => {
    expect(subpaths.map((s) => s.specifier)).toEqual(expect.arrayContaining(['@postbus/db/group-commit', '@postbus/http/every']));
  });

  it.each(subpaths)(
    '$specifier: source, types and compiled file name one module, which jest resolves to its source',
    ({ dir, specifier, conditions }) => {
      const source = conditions['source'];
      expect(source).toMatch(/^\.\/src\/[a-z/-]+\.ts$/);
      expect(conditions['types']).toBe(source!.replace('./src/', './dist/').replace(/\.ts$/, '.d.ts'));
      expect(conditions['default']).toBe(source!.replace('./src/', './dist/').replace(/\.ts$/, '.js'));
      expect(require.resolve(specifier)).toBe(join(dir, source!));
    },
  );

  it.each(subpaths)('$specifier loads neither mongoose nor express', async ({ dir, conditions }) => {
    expect(await heavyLoadedBy(join(dir, conditions['source']!))).toEqual([]);
  });
});
