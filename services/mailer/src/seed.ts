import { parseArgs } from 'node:util';
import { connectDb } from '@postbus/db';
import { MessageLists } from './model/message-lists';
import { MessageStore } from './model/messages';
import { StatusRollups } from './model/rollups';
import { seedMessages } from './seed-data';

/**
 * `node services/mailer/dist/seed.js --project <id> --count <n> [--recipients <n>] [--days <n>]
 * [--person <email> --person-count <n> [--person-user-id <id>]]`, with MONGO_URL and
 * MAILER_DB_NAME: sent messages with their timelines, list entries and rollups, written as the
 * mailer writes them (for `npm run bench:data`). Progress on stderr, one JSON line on stdout.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      project: { type: 'string' },
      count: { type: 'string', default: '1000' },
      recipients: { type: 'string' },
      days: { type: 'string', default: '30' },
      person: { type: 'string' },
      'person-count': { type: 'string', default: '40000' },
      'person-user-id': { type: 'string' },
    },
  });
  const number = (name: string, text: string | undefined): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number`);
    return n;
  };
  if (!values.project) throw new Error('--project <id> is required');
  const count = number('count', values.count);
  const db = await connectDb({
    url: process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017',
    dbName: process.env['MAILER_DB_NAME'] ?? 'postbus_mailer',
  });
  try {
    const store = new MessageStore(db);
    const lists = new MessageLists(db);
    const rollups = new StatusRollups(db, `seed-${process.pid}-${Date.now()}`);
    await Promise.all([store.init(), lists.init(), rollups.init()]);
    const started = Date.now();
    const result = await seedMessages(
      { store, lists, rollups },
      {
        projectId: values.project,
        count,
        recipients: Math.max(1, values.recipients !== undefined ? number('recipients', values.recipients) : Math.ceil(count / 20)),
        days: Math.max(1, number('days', values.days)),
        ...(values.person
          ? {
              person: {
                email: values.person.toLowerCase(),
                count: number('person-count', values['person-count']),
                userId: values['person-user-id'] ?? null,
              },
            }
          : {}),
        progress: (line) => process.stderr.write(`mailer seed: ${line} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`),
      },
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`mailer seed failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
