/**
 * Reference servers for the gateway benchmark, each run in a process of its own:
 *   node bench/dist/baselines.js express|http PORT
 * `express`: the gateway's JSON parsing and schema validation of CreateUserRequest, no auth, no Kafka write.
 * `http`: bare node:http that reads the body and JSON.parses it.
 * Both answer POST /v1/projects/:projectId/users with the gateway's 200 body.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import express from 'express';
import addFormats from 'ajv-formats';
import { CreateUserRequest } from '@postbus/contracts';

export const BASELINES = ['express', 'http'] as const;
export type Baseline = (typeof BASELINES)[number];

const USERS_PATH = /^\/v1\/projects\/[^/]+\/users$/;
// The gateway's answer, with a request id as its requestId middleware makes them.
const accepted = () => ({ status: 'accepted', request_id: `req_${randomUUID().replace(/-/g, '')}` });

type Ajv = Parameters<typeof addFormats>[0];
type AjvConstructor = new (options: { allErrors: boolean; strict: boolean }) => Ajv;

/**
 * Ajv 8 as ajv-formats resolves it: the `ajv` hoisted to the root node_modules is eslint's v6,
 * which ajv-formats cannot extend. The gateway gets the same 8.x from its own node_modules.
 */
function loadAjv(): AjvConstructor {
  const fromFormats = createRequire(require.resolve('ajv-formats'));
  return (fromFormats('ajv') as { default: AjvConstructor }).default;
}

function expressBaseline(): Server {
  const Ajv = loadAjv();
  const validate = addFormats(new Ajv({ allErrors: true, strict: false })).compile(CreateUserRequest);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The options of the gateway's jsonBody().
  app.use(express.json({ limit: '1mb', strict: true, type: ['application/json', 'application/*+json'] }));
  app.post('/v1/projects/:projectId/users', (req, res) => {
    if (!validate(req.body)) {
      res.status(400).json({ errors: validate.errors });
      return;
    }
    res.status(200).json(accepted());
  });
  return createServer(app);
}

function httpBaseline(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let status = 200;
      let body = JSON.stringify(accepted());
      if (req.method !== 'POST' || !USERS_PATH.test(req.url ?? '')) {
        status = 404;
        body = '{"title":"Not Found"}';
      } else {
        try {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          status = 400;
          body = '{"title":"Malformed JSON"}';
        }
      }
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
}

function main(argv: string[]): void {
  const [kind, portText] = argv;
  const port = Number(portText);
  if (!BASELINES.includes(kind as Baseline) || !Number.isInteger(port) || port <= 0 || port > 65535) {
    console.error(`usage: node bench/dist/baselines.js ${BASELINES.join('|')} PORT`);
    process.exit(2);
  }
  const server = kind === 'express' ? expressBaseline() : httpBaseline();
  server.keepAliveTimeout = 65_000; // as the gateway's listen()
  server.listen(port, '127.0.0.1', () => console.log(`${kind} baseline listening on 127.0.0.1:${port}`));
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (require.main === module) main(process.argv.slice(2));
