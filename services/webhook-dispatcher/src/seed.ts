/**
 * Seeds the webhook dispatcher's database for `npm run bench:data`: deliveries of one endpoint
 * with 1 to 3 attempts each, written through the service's own store (DeliveryStore.add and
 * recordAttempt: the same documents and lists as the event handler and the worker write), in
 * chunks of 1,000.
 *
 *   node services/webhook-dispatcher/dist/seed.js --project <id> --count <n>
 *     [--client <clientId>]      the project's owner (default: from the dispatcher's project projection)
 *     [--endpoint <webhookId>]   add to this endpoint (default: a new, disabled one of the client)
 *     [--person <email>]         --person-count of the deliveries (spread among them) name this address (and --person-user-id)
 *     [--person-count <n>]       default: min(count, 40000)
 *     [--days <n>]               spread creation times over the last n days (default 7)
 *
 * Environment: MONGO_URL, WEBHOOKS_DB_NAME (as the service), SECRETS_KEY (seals the new endpoint's secret).
 * Progress goes to stderr; the last line on stdout is `{"seeded": {...}, "ids": {...}}`.
 */
import { SecretBox } from '@postbus/crypto';
import { seedCommand } from '@postbus/db';
import { DeliveryStore } from './model/delivery.repository';
import { EndpointStore } from './model/endpoint.repository';
import { ProjectOwners } from './model/project.repository';
import { seedDeliveries } from './seed-data';

seedCommand(module, {
  service: 'webhook-dispatcher',
  database: 'WEBHOOKS_DB_NAME',
  options: {
    client: { type: 'string' },
    endpoint: { type: 'string' },
    person: { type: 'string' },
    'person-count': { type: 'string' },
    'person-user-id': { type: 'string' },
    days: { type: 'string', default: '7' },
  },
  usage: '[--client <clientId>] [--endpoint <webhookId>] [--person <email> [--person-count <n>] [--person-user-id <id>]] [--days <n>]',
  parse({ projectId, count, values, wholeNumber, fail }) {
    const personCount = values.person ? (wholeNumber('person-count') ?? Math.min(count, 40_000)) : 0;
    if (personCount > count) fail('--person-count must be between 0 and --count');
    const days = Number(values.days);
    if (!(days > 0)) fail('--days must be positive');
    const person = values.person ? { email: values.person, userId: values['person-user-id'] ?? null, count: personCount } : undefined;
    return { projectId, count, days, person, client: values.client, endpoint: values.endpoint };
  },
  async seed(db, { projectId, count, days, person, ...given }, { progress, fail }) {
    const endpoints = new EndpointStore(db, new SecretBox(process.env['SECRETS_KEY'] || undefined));
    const deliveries = new DeliveryStore(db);
    const projects = new ProjectOwners(db);
    await Promise.all([endpoints.init(), deliveries.init(), projects.init()]);

    const owner = await projects.ownerOf(projectId);
    const clientId =
      given.client ??
      (owner && owner !== 'deleted'
        ? owner.clientId
        : fail('the project is not in the dispatcher\u2019s projection yet: pass --client <clientId>'));
    let endpointId = given.endpoint;
    if (endpointId) {
      if (!(await endpoints.get(clientId, endpointId))) fail('--endpoint names no webhook of that client');
    } else {
      // Disabled: live events never go to it, and nothing is sent to its address.
      const { endpoint } = await endpoints.create(clientId, {
        url: 'https://bench.invalid/webhooks',
        events: ['*'],
        projectId,
        description: 'bench:data seed',
        enabled: false,
        format: 'standard',
      });
      endpointId = endpoint._id;
    }

    const { seeded, sampleDelivery, sampleFailed } = await seedDeliveries(deliveries, {
      endpointId,
      clientId,
      projectId,
      count,
      since: new Date(Date.now() - days * 86_400_000),
      until: new Date(),
      ...(person ? { person } : {}),
      onProgress: (done) => progress(`${done.deliveries}/${count} deliveries, ${done.attempts} attempts`),
    });
    return {
      seeded,
      ids: {
        clientId,
        projectId,
        webhookId: endpointId,
        deliveryId: sampleDelivery ?? null,
        failedDeliveryId: sampleFailed ?? null,
        ...(person ? { personEmail: person.email, personUserId: person.userId } : {}),
      },
    };
  },
});
