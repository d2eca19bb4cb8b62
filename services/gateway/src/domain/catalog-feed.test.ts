import type { Publisher } from '@postbus/bus';
import { catalogKey } from '@postbus/contracts';
import { createLogger } from '@postbus/logger';
import { deletion, type CatalogChange, type CatalogSource } from './ports/catalog';
import { CatalogFeed } from './catalog-feed';

const logger = createLogger({ service: 'catalog-feed-test', level: 'error' });

function setup(sources: CatalogSource[], failures = 0) {
  const published: { topic: string; type: string; key: string }[] = [];
  let failing = failures;
  const publisher = {
    publish: (topic: string, type: string, key: string) => {
      if (failing > 0) {
        failing--;
        return Promise.reject(new Error('broker down'));
      }
      published.push({ topic, type, key });
      return Promise.resolve('id');
    },
  } as unknown as Publisher;
  const feed = new CatalogFeed({ publisher, sources, logger, resyncIntervalMs: 3_600_000, retryAfterFailureMs: 20 });
  return { feed, published };
}

const source = (changes: CatalogChange[]): CatalogSource => ({ catalogSnapshot: () => Promise.resolve(changes) });

describe('CatalogFeed', () => {
  it('publishes each change to the catalog topic keyed by kind and id', async () => {
    const { feed, published } = setup([]);
    await feed.changed(deletion('email', 'em_1', 'cl_1'));
    expect(published).toEqual([{ topic: 'postbus.catalog.v1', type: 'catalog.deleted', key: catalogKey('email', 'em_1') }]);
  });

  it('a failed publish does not fail the change: a full republish from the sources follows', async () => {
    const { feed, published } = setup([source([deletion('project', 'p1', 'cl_1')]), source([deletion('domain', 'd1', 'cl_1')])], 1);
    await feed.changed(deletion('project', 'p1', 'cl_1'));
    expect(published).toEqual([]);
    for (let i = 0; i < 100 && published.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    feed.stop();
    expect(published.map((p) => p.key).sort()).toEqual([catalogKey('domain', 'd1'), catalogKey('project', 'p1')].sort());
  });

  it('concurrent republishes share one run', async () => {
    let snapshots = 0;
    const { feed } = setup([{ catalogSnapshot: () => (snapshots++, Promise.resolve([])) }]);
    await Promise.all([feed.resync(), feed.resync()]);
    expect(snapshots).toBe(1);
  });
});
