import { NotFoundError, UnprocessableError } from '@postbus/errors';
import { EMAIL_NOT_FOUND, TriggerCatalog, type TriggerCatalogDeps } from './trigger-catalog';

interface World {
  project: { sender_domain_id: string | null } | null;
  email: { id: string; key: string; template_id: string } | null;
  domain: { _id: string; domain: string; status: string } | null;
  template: { id: string; version: number; updatedAt: Date } | null;
}

function setup(ttlMs = 60_000) {
  const world: World = {
    project: { sender_domain_id: 'dom_1' },
    email: { id: 'em_1', key: 'welcome', template_id: 'tpl_1' },
    domain: { _id: 'dom_1', domain: 'mail.example.com', status: 'verified' },
    template: { id: 'tpl_1', version: 3, updatedAt: new Date(1) },
  };
  let reads = 0;
  const deps = {
    ttlMs,
    projects: { get: () => (reads++, Promise.resolve(world.project)) },
    emails: { get: () => Promise.resolve(world.email) },
    domains: { get: () => Promise.resolve(world.domain) },
    templates: { published: () => Promise.resolve(world.template) },
  } as unknown as TriggerCatalogDeps;
  return { catalog: new TriggerCatalog(deps), world, reads: () => reads };
}

const problemOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return error instanceof UnprocessableError ? error.slug : error instanceof NotFoundError ? `404 ${error.message}` : error;
};

describe('TriggerCatalog', () => {
  it("resolves a trigger to the email and its template's published version and revision", async () => {
    const { catalog } = setup();
    expect(await catalog.resolve('cl_1', 'p1', 'welcome')).toEqual({
      emailId: 'em_1',
      emailKey: 'welcome',
      templateId: 'tpl_1',
      templateVersion: 3,
      templateRevision: 1,
    });
  });

  it('says which prerequisite is missing', async () => {
    const { catalog, world } = setup(0);
    world.template = null;
    expect(await problemOf(catalog.resolve('cl_1', 'p1', 'welcome'))).toBe('template-missing');
    world.domain!.status = 'pending';
    expect(await problemOf(catalog.resolve('cl_1', 'p1', 'welcome'))).toBe('sender-domain-unverified');
    world.project = { sender_domain_id: null };
    expect(await problemOf(catalog.resolve('cl_1', 'p1', 'welcome'))).toBe('sender-domain-missing');
    world.email = null;
    expect(await problemOf(catalog.resolve('cl_1', 'p1', 'welcome'))).toBe(`404 ${EMAIL_NOT_FOUND}`);
    world.project = null;
    expect(await problemOf(catalog.resolve('cl_1', 'p1', 'welcome'))).toBe('404 No such project for this client.');
  });

  it('reuses a resolution until a local catalog change, and never caches a failure', async () => {
    const { catalog, world, reads } = setup();
    world.template = null;
    await expect(catalog.resolve('cl_1', 'p1', 'welcome')).rejects.toThrow();
    world.template = { id: 'tpl_1', version: 3, updatedAt: new Date(1) };
    await catalog.resolve('cl_1', 'p1', 'welcome'); // the failure was not kept
    await catalog.resolve('cl_1', 'p1', 'welcome');
    expect(reads()).toBe(2);
    world.template = { id: 'tpl_1', version: 4, updatedAt: new Date(2) };
    expect((await catalog.resolve('cl_1', 'p1', 'welcome')).templateVersion).toBe(3); // cached
    catalog.forget();
    expect((await catalog.resolve('cl_1', 'p1', 'welcome')).templateVersion).toBe(4);
    await catalog.resolve('cl_2', 'p1', 'welcome'); // another client's trigger is its own entry
    expect(reads()).toBe(4);
  });

  it('with no time to live, reads the catalog on every trigger', async () => {
    const { catalog, reads } = setup(0);
    await catalog.resolve('cl_1', 'p1', 'welcome');
    await catalog.resolve('cl_1', 'p1', 'welcome');
    expect(reads()).toBe(2);
  });
});
