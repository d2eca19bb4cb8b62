import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface Lanes {
  QUIET: Record<string, string>;
  laneIgnorePatterns(lane: string | undefined): string[];
  tierOf(file: string): string;
}
const repoRoot = join(__dirname, '..', '..');
const lanes = createRequire(__filename)('../test-lanes.cjs') as Lanes;

const ignoredIn = (lane: string, file: string) => lanes.laneIgnorePatterns(lane).some((pattern) => new RegExp(pattern).test(file));

describe("npm test's lanes", () => {
  it('names only test files that exist, each with the reason it needs a quiet machine', () => {
    for (const [file, reason] of Object.entries(lanes.QUIET)) {
      expect(existsSync(join(repoRoot, file))).toBe(true);
      expect(file).toMatch(/\.test\.tsx?$/);
      expect(reason.length).toBeGreaterThan(10);
    }
  });

  it('runs every file in exactly one lane: the quiet ones in the quiet lane, the rest in the concurrent one', () => {
    const quiet = join(repoRoot, 'e2e/burst-drain.e2e.test.ts');
    const other = join(repoRoot, 'e2e/copies.e2e.test.ts');
    expect([ignoredIn('concurrent', quiet), ignoredIn('quiet', quiet)]).toEqual([true, false]);
    expect([ignoredIn('concurrent', other), ignoredIn('quiet', other)]).toEqual([false, true]);
    // A file whose name only begins like a quiet one's is no quiet file.
    expect(ignoredIn('concurrent', `${quiet}.bak`)).toBe(false);
    expect(lanes.laneIgnorePatterns(undefined)).toEqual([]);
    expect(() => lanes.laneIgnorePatterns('fast')).toThrow(/concurrent', 'quiet' or unset/);
  });

  it('tells the tier of a file from where it lives', () => {
    expect(lanes.tierOf(join(repoRoot, 'e2e/copies.e2e.test.ts'))).toBe('e2e');
    expect(lanes.tierOf(join(repoRoot, 'services/mailer/test/retention.test.ts'))).toBe('integration');
    expect(lanes.tierOf(join(repoRoot, 'libs/db/test/due-queue.test.ts'))).toBe('integration');
    expect(lanes.tierOf(join(repoRoot, 'services/mailer/src/domain/retry.test.ts'))).toBe('unit');
    expect(lanes.tierOf(join(repoRoot, 'services/admin/src/screens/messages.test.tsx'))).toBe('panel');
    expect(lanes.tierOf(join(repoRoot, 'deploy/test/config-drift.test.ts'))).toBe('deploy');
  });
});
