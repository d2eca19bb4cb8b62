import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPI } from 'openapi-types';
import type { Message, SendBatchResult } from '@postbus/contracts';
import { AppError } from '@postbus/errors';
import { answerResendError } from '../../domain/compat/resend';
import type { AuthenticatedClient } from '../auth';
import { compatibleApiDocument } from '../openapi';
import type { RouteSpec } from '../route';
import { resendApi, type ResendApiDeps } from './resend.routes';

const PROJECT = '0000000000000000000000aa';
const ID = 'msg_0000000000000000000000000000000a';
const client: AuthenticatedClient = { clientId: 'cl_1', scope: 'full', keyId: 'key_1', via: 'key', project: PROJECT };
const good = (to: string) => ({ from: 'Acme <hello@acme.example>', to, subject: 'Hi', text: 'Hi' });

/** The core's batch: an item to `refused@…` is rejected (as a send rule the adapter cannot see would), the others accepted. */
const batch = jest.fn(
  (_caller: unknown, _projectId: string, items: unknown[], _options?: { allOrNothing?: boolean }): Promise<SendBatchResult[]> =>
    Promise.resolve(
      items.map((item, index) =>
        (item as { to: string[] }).to[0] === 'refused@example.com'
          ? {
              index,
              status: 'rejected',
              error: { type: '/problems/reserved-header', title: 't', status: 422, detail: 'A send may not set From' },
            }
          : { index, status: 'accepted', message_id: `msg_${String(index).padStart(32, '0')}` },
      ),
    ),
);

function api(over: Partial<ResendApiDeps> = {}) {
  const deps: ResendApiDeps = {
    sends: { content: jest.fn(), template: jest.fn(), batch },
    reads: { read: jest.fn(), recorded: jest.fn(), content: jest.fn(), cancel: jest.fn() },
    reschedule: jest.fn(),
    recordWaitMs: 300,
    ...over,
  };
  const routes = resendApi(deps).routes;
  const route = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;
  /** Runs a route's handler as the route machinery would, with the request's headers; a thrown error as Resend answers it. */
  const run = async (r: RouteSpec, input: { body?: unknown; params?: Record<string, string>; headers?: Record<string, string> }) => {
    try {
      return await r.handle({
        body: input.body,
        params: input.params ?? {},
        query: {},
        requestId: 'req_1',
        secure: false,
        client,
        source: 'api',
        header: (name: string) => input.headers?.[name],
      } as never);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return answerResendError(error);
    }
  };
  return { deps, route, run };
}

const message = (status: Message['status']) => ({ id: ID, status }) as Message;

describe("the Resend API's batch", () => {
  beforeEach(() => batch.mockClear());

  it('refuses a strict batch (the default) whole for one bad email, naming its index, and sends none', async () => {
    const { route, run } = api();
    const answer = await run(route('post', '/emails/batch'), { body: [good('a@example.com'), good('not an address')] });
    expect(answer).toMatchObject({
      status: 422,
      body: { name: 'validation_error', message: expect.stringMatching(/^The email at index 1: Invalid `to` field/) },
    });
    expect(batch).not.toHaveBeenCalled();
  });

  it('refuses attachments in a batch, as Resend does', async () => {
    const { route, run } = api();
    const answer = await run(route('post', '/emails/batch'), { body: [{ ...good('a@example.com'), attachments: [] }] });
    expect(answer).toMatchObject({ status: 422, body: { message: expect.stringContaining('Attachments are not supported in a batch') } });
  });

  it('answers a valid strict batch with the ids alone, in order', async () => {
    const { route, run } = api();
    const answer = await run(route('post', '/emails/batch'), { body: [good('a@example.com'), good('b@example.com')] });
    expect(answer).toEqual({ status: 200, body: { data: [{ id: `msg_${'0'.repeat(32)}` }, { id: `msg_${'0'.repeat(31)}1` }] } });
  });

  it('sends a permissive batch’s good emails and lists the bad ones by their index, the core’s refusals with them', async () => {
    const { route, run } = api();
    const answer = await run(route('post', '/emails/batch'), {
      body: [good('not an address'), good('a@example.com'), good('refused@example.com')],
      headers: { 'x-batch-validation': 'permissive' },
    });
    expect(batch.mock.calls[0]![2]).toHaveLength(2);
    expect(answer).toEqual({
      status: 200,
      body: {
        data: [{ id: `msg_${'0'.repeat(32)}` }],
        errors: [
          { index: 0, message: expect.stringContaining('Invalid `to` field') },
          { index: 2, message: 'A send may not set From' },
        ],
      },
    });
  });

  it('refuses a strict batch whole for what only the core refuses (a send rule), asking the core to send all or nothing', async () => {
    const { route, run } = api();
    const answer = await run(route('post', '/emails/batch'), { body: [good('a@example.com'), good('refused@example.com')] });
    expect(answer).toMatchObject({ status: 422, body: { message: expect.stringContaining('The email at index 1') } });
    expect(batch.mock.calls[0]![3]).toEqual({ allOrNothing: true });
  });

  it('refuses an x-batch-validation it does not know', async () => {
    const { route, run } = api();
    const answer = await run(route('post', '/emails/batch'), {
      body: [good('a@example.com')],
      headers: { 'x-batch-validation': 'lenient' },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: { name: 'validation_error', message: expect.stringContaining('x-batch-validation') },
    });
  });
});

describe("the Resend API's cancel and change of time", () => {
  it('waits for a message accepted a moment ago to be recorded, then cancels it', async () => {
    const read = jest.fn().mockResolvedValue(message('scheduled'));
    const recorded = jest.fn().mockResolvedValueOnce(null).mockResolvedValue(message('scheduled'));
    const cancel = jest.fn().mockResolvedValue(message('canceled'));
    const { route, run } = api({ reads: { read, recorded, content: jest.fn(), cancel } });
    expect(await run(route('post', '/emails/:emailId/cancel'), { params: { emailId: ID } })).toEqual({
      status: 200,
      body: { object: 'email', id: ID },
    });
    expect(recorded).toHaveBeenCalledTimes(2);
    expect(cancel).toHaveBeenCalledWith(PROJECT, ID);
  });

  it('answers 409 when the message stays unrecorded, and 404 for an id that is no message', async () => {
    const read = jest.fn().mockResolvedValue(message('accepted'));
    const recorded = jest.fn().mockResolvedValue(null);
    const { route, run } = api({ reads: { read, recorded, content: jest.fn(), cancel: jest.fn() } });
    expect(await run(route('post', '/emails/:emailId/cancel'), { params: { emailId: ID } })).toMatchObject({ status: 409 });
    expect(
      await run(route('post', '/emails/:emailId/cancel'), { params: { emailId: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' } }),
    ).toMatchObject({
      status: 404,
      body: { name: 'not_found' },
    });
  });

  it('moves a scheduled email to the time scheduled_at names, and refuses a body naming another email or a time out of range', async () => {
    const reschedule = jest.fn().mockResolvedValue(message('scheduled'));
    const read = jest.fn().mockResolvedValue(message('scheduled'));
    const { route, run } = api({ reschedule, reads: { read, recorded: read, content: jest.fn(), cancel: jest.fn() } });
    const patch = route('patch', '/emails/:emailId');
    const at = new Date(Date.now() + 3_600_000).toISOString();
    expect(await run(patch, { params: { emailId: ID }, body: { id: ID, scheduled_at: at } })).toEqual({
      status: 200,
      body: { object: 'email', id: ID },
    });
    expect(reschedule).toHaveBeenCalledWith(PROJECT, ID, at);
    expect(await run(patch, { params: { emailId: ID }, body: { id: 'msg_other', scheduled_at: at } })).toMatchObject({ status: 400 });
    const past = new Date(Date.now() - 3_600_000).toISOString();
    expect(await run(patch, { params: { emailId: ID }, body: { scheduled_at: past } })).toMatchObject({
      status: 422,
      body: { message: expect.stringMatching(/^Invalid `scheduled_at` field: is in the past/) },
    });
    expect(reschedule).toHaveBeenCalledTimes(1);
  });
});

describe("the Resend API's OpenAPI document", () => {
  it('is a valid OpenAPI 3.1 document with every route, its answers and errors in Resend’s shape', async () => {
    const document = compatibleApiDocument(resendApi(api().deps), '0.1.0') as { paths: Record<string, Record<string, unknown>> };
    await SwaggerParser.validate(structuredClone(document) as unknown as OpenAPI.Document);
    expect(Object.keys(document.paths).sort()).toEqual(['/emails', '/emails/batch', '/emails/{emailId}', '/emails/{emailId}/cancel']);
    expect(Object.keys(document.paths['/emails/{emailId}']!).sort()).toEqual(['get', 'patch']);
  });
});
