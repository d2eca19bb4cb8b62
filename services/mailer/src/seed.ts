import { seedCommand } from '@postbus/db';
import { MessageLists } from './model/message-list.repository';
import { MessageStore } from './model/message.repository';
import { StatusRollups } from './model/rollup.repository';
import { seedMessages } from './seed-data';

/**
 * `node services/mailer/dist/seed.js --project <id> --count <n> [--recipients <n>] [--days <n>]
 * [--person <email> --person-count <n> [--person-user-id <id>]]`, with MONGO_URL and
 * MAILER_DB_NAME: sent messages with their timelines, list entries and rollups, written as the
 * mailer writes them (for `npm run bench:data`). Progress on stderr, one JSON line on stdout.
 */
seedCommand(module, {
  service: 'mailer',
  database: 'MAILER_DB_NAME',
  defaultCount: 1000,
  options: {
    recipients: { type: 'string' },
    days: { type: 'string', default: '30' },
    person: { type: 'string' },
    'person-count': { type: 'string', default: '40000' },
    'person-user-id': { type: 'string' },
  },
  usage: '[--recipients <n>] [--days <n>] [--person <email> --person-count <n> [--person-user-id <id>]]',
  parse: ({ projectId, count, values, wholeNumber }) => ({
    projectId,
    count,
    recipients: Math.max(1, wholeNumber('recipients') ?? Math.ceil(count / 20)),
    days: Math.max(1, wholeNumber('days')!),
    ...(values.person
      ? { person: { email: values.person.toLowerCase(), count: wholeNumber('person-count')!, userId: values['person-user-id'] ?? null } }
      : {}),
  }),
  async seed(db, options, { progress }) {
    const store = new MessageStore(db);
    const lists = new MessageLists(db);
    const rollups = new StatusRollups(db, `seed-${process.pid}-${Date.now()}`);
    await Promise.all([store.init(), lists.init(), rollups.init()]);
    return seedMessages({ store, lists, rollups }, { ...options, progress });
  },
});
