import { acceptedReply, loginOutcome, messageIdOf, refusalOf } from './replies';

const problem = (status: number, type: string, detail: string, errors?: Array<{ pointer: string; message: string }>) => ({
  status,
  body: { type: `/problems/${type}`, title: 'x', status, detail, ...(errors ? { errors } : {}) },
});
const credentials = { projectId: '0123456789abcdef01234567', apiKey: 'pb_full_x' };

describe('the SMTP replies to the gateway’s answers', () => {
  it('a queued message is 250 naming its message id; several, all of them while they fit on the line', () => {
    expect(acceptedReply(['msg_1'])).toEqual({ code: 250, message: '2.0.0 msg_1 queued' });
    expect(acceptedReply(['msg_1', 'msg_2'])).toEqual({ code: 250, message: '2.0.0 msg_1 msg_2 queued' });
    const many = Array.from({ length: 50 }, (_, i) => `msg_${'x'.repeat(20)}${i}`);
    expect(acceptedReply(many).message).toBe(`2.0.0 ${many[0]} queued, and 49 more messages`);
    expect(messageIdOf({ status: 200, body: { status: 'accepted', request_id: 'req_1', message_id: 'msg_1' } })).toBe('msg_1');
  });

  it('a From outside the project’s verified domain is 550 5.7.1, naming the domain', () => {
    const reply = refusalOf(
      problem(422, 'from-email-not-on-sender-domain', 'from must be an address at mail.shop.example, the project’s sender domain.', [
        { pointer: '/from', message: 'not on mail.shop.example' },
      ]),
    );
    expect(reply.code).toBe(550);
    expect(reply.message).toMatch(/^5\.7\.1 from must be an address at mail\.shop\.example/);
    expect(reply.message).toContain('(/from: not on mail.shop.example)');
    expect(refusalOf(problem(422, 'sender-domain-unverified', 'The sender domain is not verified.')).code).toBe(550);
  });

  it('content the gateway refuses is 554 5.6.0 naming the problem and its first field', () => {
    expect(
      refusalOf(
        problem(422, 'validation', 'The request body is invalid.', [
          { pointer: '/tags/0', message: 'must match pattern' },
          { pointer: '/subject', message: 'too long' },
        ]),
      ),
    ).toEqual({ code: 554, message: '5.6.0 The request body is invalid. (/tags/0: must match pattern)' });
    expect(refusalOf(problem(400, 'bad-request', 'Bad JSON'))).toEqual({ code: 554, message: '5.6.0 Bad JSON' });
  });

  it('a rate limit is 451 4.7.1 with its wait; a body too large 552 5.3.4', () => {
    expect(
      refusalOf({ ...problem(429, 'rate-limited', 'This client may send 10 messages a second; retry after 1 s.'), retryAfter: 1 }),
    ).toEqual({
      code: 451,
      message: '4.7.1 This client may send 10 messages a second; retry after 1 s.',
    });
    expect(refusalOf({ status: 429, body: null, retryAfter: 3 })).toEqual({
      code: 451,
      message: '4.7.1 Rate limit reached; retry after 3 s',
    });
    expect(refusalOf(problem(413, 'too-large', 'The attachments pass 10 MB.')).code).toBe(552);
  });

  it('an unreachable gateway, a timeout or a 5xx is 451 4.3.0: nothing was accepted', () => {
    for (const answer of [
      { status: 0, body: null, error: 'ECONNREFUSED' },
      problem(503, 'unavailable', 'Kafka'),
      { status: 502, body: null },
    ]) {
      const reply = refusalOf(answer);
      expect(reply.code).toBe(451);
      expect(reply.message).toMatch(/^4\.3\.0 .*nothing was accepted/);
    }
  });

  it('a gateway that refuses the service’s own token (INTERNAL_API_SECRET differs) is 451 at DATA and 454 at login: the client is not at fault', () => {
    const refused = problem(401, 'unauthorized', 'The X-Postbus-Submission token is not valid for this service.');
    expect(refusalOf(refused).code).toBe(451);
    expect(loginOutcome(refused, credentials)).toMatchObject({ refusal: { code: 454 } });
  });

  it('an idempotent send still in flight is 451 (try again); a revoked key 554 5.7.8; a project not the key’s 550 5.7.1', () => {
    expect(refusalOf(problem(409, 'idempotency-in-flight', 'still being processed')).code).toBe(451);
    expect(refusalOf(problem(401, 'unauthorized', 'bad key')).message).toMatch(/^5\.7\.8 /);
    expect(refusalOf(problem(404, 'not-found', 'No such project.'))).toEqual({ code: 550, message: '5.7.1 No such project.' });
  });

  it('puts nothing on a reply line that would break it, and keeps it short', () => {
    const reply = refusalOf(problem(422, 'validation', `line one\r\n250 forged\t${'x'.repeat(1000)}`));
    expect(reply.message).not.toMatch(/[\r\n\t]/);
    expect(reply.message.length).toBeLessThanOrEqual(406);
  });
});

describe('the SMTP replies to a login', () => {
  const whoami = (body: Record<string, unknown>) => ({ status: 200, body: { client_id: 'cl_1', key_id: 'key_1', ...body } });

  it('takes the project id and a key of scope full, sdk or test', () => {
    for (const scope of ['full', 'sdk', 'test'])
      expect(loginOutcome(whoami({ scope, project_id: credentials.projectId }), credentials)).toEqual({ credentials });
  });

  it('takes a key bound to a project with any user name, and then names its project', () => {
    const anyName = { projectId: 'apikey', apiKey: 'pb_sdk_x' };
    expect(loginOutcome(whoami({ scope: 'sdk', project_id: credentials.projectId }), anyName)).toEqual({
      credentials: { projectId: credentials.projectId, apiKey: 'pb_sdk_x' },
    });
    // A key of the whole client names no project: the user name must.
    expect(loginOutcome(whoami({ scope: 'sdk', project_id: null }), anyName)).toMatchObject({ refusal: { code: 535 } });
  });

  it('refuses with 535 5.7.8 wrong credentials, another project’s answer, or another scope', () => {
    const invalid = { refusal: { code: 535, message: '5.7.8 Authentication credentials invalid' } };
    expect(loginOutcome({ status: 401, body: null }, credentials)).toEqual(invalid);
    expect(loginOutcome(whoami({ scope: 'full', project_id: 'ffffffffffffffffffffffff' }), credentials)).toEqual(invalid);
    expect(loginOutcome(whoami({ scope: 'read', project_id: credentials.projectId }), credentials)).toEqual(invalid);
  });

  it('answers a lockout with 454 4.7.0 and its wait, and a gateway that cannot say with 454 4.7.0', () => {
    expect(loginOutcome({ status: 429, body: null, retryAfter: 42 }, credentials)).toEqual({
      refusal: { code: 454, message: '4.7.0 Too many failed logins from this address; retry after 42 s' },
    });
    expect(loginOutcome({ status: 0, body: null, error: 'timeout' }, credentials)).toMatchObject({ refusal: { code: 454 } });
  });
});
