import { expectPhpunitPassed, listPhpunitTests, runPhpunit, type PhpunitRun } from './phpunit';

// The PHP SDK's unit suite (fake transport, webhook vectors, curl against `php -S`); no stack needed.
// Each PHPUnit test is one jest test, so that "N passed, N failed" counts them.
const listing = listPhpunitTests('unit');

describe('PHP SDK unit suite (PHPUnit)', () => {
  let run: PhpunitRun | undefined;

  beforeAll(async () => {
    if (listing.ok) run = await runPhpunit('unit');
  }, 300_000);

  if (!listing.ok) {
    test('PHP and PHPUnit are installed and list the suite', () => {
      throw new Error(listing.error);
    });
    return;
  }

  test.each(listing.names.map((name) => [name]))('%s', (name) => expectPhpunitPassed(run, name));
});
