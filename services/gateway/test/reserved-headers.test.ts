import { call } from '@postbus/testing';
import { withGatewayAndProject, type TestClient, type TestGateway } from './helpers';

/** Issue 45.8: a send may not set the headers that say who sent the message, who checked it, or where bounces and receipts go. */
describe('a send with a reserved header', () => {
  let gw: TestGateway;
  let acme: TestClient;
  let projectId: string;

  withGatewayAndProject((started) => ({ gw, acme, projectId } = started));

  const user = { email: 'ann@example.com' };

  it.each([
    ['Sender', 'x@y'],
    ['Resent-From', 'ceo@bank.example'],
    ['ARC-Seal', 'i=1; a=rsa-sha256; cv=none; d=bank.example; s=x; b=AAAA'],
  ])('with %s is refused with a 422 problem naming /headers/<name>, before anything is looked up', async (name, value) => {
    const res = await call(gw.url, 'POST', `/v1/projects/${projectId}/emails/welcome/send`, {
      auth: acme.auth,
      json: { user, headers: { 'X-Order-Id': '4711', [name]: value } },
    });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(res.body).toMatchObject({ type: '/problems/reserved-header', status: 422 });
    expect(res.body.errors).toEqual([{ pointer: `/headers/${name}`, message: 'is a reserved header' }]);
  });

  it('in a batch rejects that item alone, naming /messages/<i>/headers/<name>', async () => {
    const res = await call(gw.url, 'POST', `/v1/projects/${projectId}/emails/batch`, {
      auth: acme.auth,
      json: { messages: [{ email_key: 'welcome', user, headers: { 'arc-message-signature': 'i=1' } }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toMatchObject({
      status: 'rejected',
      error: { status: 422, type: '/problems/reserved-header', errors: [{ pointer: '/messages/0/headers/arc-message-signature' }] },
    });
  });
});
