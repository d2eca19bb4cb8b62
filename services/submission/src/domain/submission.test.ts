import { PassThrough } from 'node:stream';
import { createLogger } from '@postbus/logger';
import type { Gateway, GatewayAnswer, PreparedSend, ReadSubmission } from './ports';
import { Submission } from './submission';

const PROJECT = '0123456789abcdef01234567';
const KEY = 'pb_full_secret-key-material';
const origin = { clientAddress: '192.0.2.7' };
const accepted = (n: number): GatewayAnswer => ({
  status: 200,
  body: { status: 'accepted', request_id: `req_${n}`, message_id: `msg_${n}` },
});

function setUp(read: ReadSubmission, answers: GatewayAnswer[], whoami: GatewayAnswer = { status: 401, body: null }) {
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
  const sent: PreparedSend[] = [];
  const gateway: Gateway = {
    whoami: () => Promise.resolve(whoami),
    send: (_credentials, send) => {
      sent.push(send);
      return Promise.resolve(answers.shift()!);
    },
  };
  const submission = new Submission(gateway, { read: () => Promise.resolve(read) }, createLogger({ service: 'test', stream }));
  return { submission, sent, lines };
}
const sends = (n: number): ReadSubmission => ({
  sends: Array.from({ length: n }, (_, i) => ({ body: `{"n":${i}}`, idempotencyKey: `k:${i + 1}` })),
});
const credentials = { projectId: PROJECT, apiKey: KEY };

describe('a submitted message through the gateway', () => {
  it('is 250 once every send of it was accepted, naming each message id', async () => {
    const { submission, sent } = setUp(sends(2), [accepted(1), accepted(2)]);
    expect(await submission.submit(Buffer.from('x'), { rcptTo: ['a@x.org', 'b@x.org'] }, credentials, origin)).toEqual({
      code: 250,
      message: '2.0.0 msg_1 msg_2 queued',
    });
    expect(sent.map((s) => s.idempotencyKey)).toEqual(['k:1', 'k:2']);
  });

  it('stops at the first send the gateway does not accept, and answers as that one', async () => {
    const { submission, sent } = setUp(sends(3), [accepted(1), { status: 503, body: null }, accepted(3)]);
    const answer = await submission.submit(Buffer.from('x'), { rcptTo: ['a@x.org'] }, credentials, origin);
    expect(answer.code).toBe(451);
    expect(sent).toHaveLength(2);
  });

  it('answers a message the reader refused without calling the gateway', async () => {
    const { submission, sent } = setUp({ refusal: { code: 550, message: '5.6.0 Malformed MIME' } }, []);
    expect(await submission.submit(Buffer.from('x'), { rcptTo: ['a@x.org'] }, credentials, origin)).toEqual({
      code: 550,
      message: '5.6.0 Malformed MIME',
    });
    expect(sent).toEqual([]);
  });

  it('never logs the API key, nor a user name that is not a project id', async () => {
    const { submission, lines } = setUp(sends(1), [accepted(1)]);
    expect(await submission.login(KEY, KEY, origin)).toMatchObject({ refusal: { code: 535 } });
    expect(await submission.login(PROJECT, 'pb_full_wrong', origin)).toMatchObject({ refusal: { code: 535 } });
    expect(await submission.login(`${PROJECT}:x`, KEY, origin)).toMatchObject({ refusal: { code: 535 } });
    await submission.submit(Buffer.from('x'), { rcptTo: ['a@x.org'] }, credentials, origin);
    expect(lines.join('')).not.toContain('secret-key-material');
    expect(lines.join('')).toContain('(not a project id)');
  });
});
