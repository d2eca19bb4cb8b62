import { createTransport } from 'nodemailer';
import { call, sleep, startSmtpSink, waitFor, type SmtpSink } from '@postbus/testing';

/** The sink as other tests use it: a separate process, fed by nodemailer, read through its Mailpit API. */
describe('smtp-sink', () => {
  let sink: SmtpSink;
  let transport: ReturnType<typeof createTransport>;

  const send = (fields: Record<string, unknown> = {}) =>
    transport.sendMail({ from: 'Ada Lovelace <ada@example.com>', to: 'bob@example.org', subject: 'Hello', text: 'Hello Bob', ...fields });
  /** The SMTP error of a send the sink must refuse. */
  const refusal = async (fields: Record<string, unknown> = {}) => {
    const error = await send(fields).then(
      () => undefined,
      (e: unknown) => e as { responseCode?: number; command?: string },
    );
    if (!error) throw new Error('the sink accepted a message it should have refused');
    return error;
  };

  beforeAll(async () => {
    sink = await startSmtpSink();
    transport = createTransport({ host: '127.0.0.1', port: sink.smtpPort, secure: false, ignoreTLS: true });
  });

  afterAll(async () => {
    transport?.close();
    await sink?.process.stop();
  });

  beforeEach(async () => {
    await sink.client.clearFault();
    await sink.client.clear();
  });

  it('when a message arrives, then it is listed, read, searched and deleted with Mailpit’s shapes', async () => {
    const info = await send({
      to: 'Bob <bob@example.org>, carol@example.net',
      cc: 'dan@example.com',
      bcc: 'eve@example.com',
      replyTo: 'help@example.com',
      subject: 'Grüße from the sink — a subject long enough to be folded over several encoded words',
      text: 'Hello Bob,\n\nyour   order shipped.',
      html: '<p>Hello <b>Bob</b></p>',
      attachments: [{ filename: 'invoice.txt', content: 'total: 42' }],
      headers: { 'List-Unsubscribe': '<https://example.com/u/1>' },
    });

    const summary = await sink.client.waitForMessageId(info.messageId);
    expect(summary).toMatchObject({
      MessageID: info.messageId.replace(/[<>]/g, ''),
      Read: false,
      From: { Name: 'Ada Lovelace', Address: 'ada@example.com' },
      To: [
        { Name: 'Bob', Address: 'bob@example.org' },
        { Name: '', Address: 'carol@example.net' },
      ],
      Cc: [{ Name: '', Address: 'dan@example.com' }],
      Bcc: [{ Name: '', Address: 'eve@example.com' }],
      ReplyTo: [{ Name: '', Address: 'help@example.com' }],
      Subject: 'Grüße from the sink — a subject long enough to be folded over several encoded words',
      Tags: [],
      Attachments: 1,
      Snippet: 'Hello Bob, your order shipped.',
    });
    expect(Date.parse(summary.Created)).toBeGreaterThan(Date.now() - 60_000);

    const list = await sink.client.list();
    expect(list).toMatchObject({ total: 1, unread: 1, count: 1, messages_count: 1, start: 0, tags: [] });
    expect(list.messages[0]!.ID).toBe(summary.ID);

    const message = await sink.client.get(summary.ID);
    expect(message).toMatchObject({
      ID: summary.ID,
      ReturnPath: 'ada@example.com',
      Text: 'Hello Bob,\n\nyour   order shipped.',
      HTML: '<p>Hello <b>Bob</b></p>',
      Size: summary.Size,
      Inline: [],
      Attachments: [{ FileName: 'invoice.txt', ContentType: 'text/plain', Size: 9 }],
      ListUnsubscribe: { Header: '<https://example.com/u/1>', Links: ['https://example.com/u/1'] },
    });
    expect(message.Attachments[0]!.Checksums.SHA256).toMatch(/^[0-9a-f]{64}$/);
    expect((await sink.client.get('latest')).ID).toBe(summary.ID);
    expect((await sink.client.list()).unread).toBe(0);

    const headers = await sink.client.headers(summary.ID);
    expect(headers['Message-Id']).toEqual([info.messageId]);
    expect(headers['From']).toEqual(['Ada Lovelace <ada@example.com>']);
    expect(headers['Subject']![0]).toMatch(/^=\?UTF-8\?/);
    expect(Object.keys(headers)).toEqual([...Object.keys(headers)].sort());

    const raw = await sink.client.raw(summary.ID);
    expect(raw).toContain(`Message-ID: ${info.messageId}`);
    expect(Buffer.byteLength(raw)).toBe(summary.Size);

    const found = async (query: string) => (await sink.client.search(query)).messages.map((m) => m.ID);
    expect(await found(`message-id:${info.messageId}`)).toEqual([summary.ID]);
    expect(await found('grüße')).toEqual([summary.ID]);
    expect(await found('to:carol@example.net')).toEqual([summary.ID]);
    expect(await found('from:ada subject:"from the sink"')).toEqual([summary.ID]);
    expect(await found('-from:ada')).toEqual([]);
    expect(await found('message-id:nothing-like-it@example.com')).toEqual([]);

    const other = await send({ subject: 'Second' });
    const second = await sink.client.waitForMessageId(other.messageId);
    expect((await sink.client.list()).messages.map((m) => m.ID)).toEqual([second.ID, summary.ID]);
    const deleted = await call(sink.httpUrl, 'DELETE', '/api/v1/messages', { json: { IDs: [summary.ID] } });
    expect(deleted.status).toBe(200);
    expect((await sink.client.list()).messages.map((m) => m.ID)).toEqual([second.ID]);
    await sink.client.clear();
    expect(await sink.client.count()).toBe(0);
  });

  it('when the message is sent raw, then the raw endpoint answers the same bytes', async () => {
    const raw = [
      'From: ada@example.com',
      'To: bob@example.org',
      'Subject: raw',
      'Message-ID: <raw-1@example.com>',
      '',
      '.a line that had to be dot-stuffed',
      'ünïcödé body',
      '',
    ].join('\r\n');
    await transport.sendMail({ envelope: { from: 'ada@example.com', to: ['bob@example.org'] }, raw });
    const summary = await sink.client.waitForMessageId('raw-1@example.com');
    expect(await sink.client.raw(summary.ID)).toBe(raw);
  });

  it('when a message id is unknown, then the API answers 404 without internals', async () => {
    for (const path of ['/api/v1/message/nope', '/api/v1/message/nope/raw', '/api/v1/message/nope/headers', '/api/v1/message/latest']) {
      const res = await call(sink.httpUrl, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.text).not.toMatch(/\bat \S+ \(/);
    }
  });

  it('when a 451 fault is set for two messages, then two sends are refused with 451 and the third is stored', async () => {
    await sink.client.setFault({ code: 451, count: 2, message: 'try later' });
    const first = await refusal({ to: 'bob@example.org, carol@example.net' });
    expect(first.responseCode).toBe(451);
    expect((await refusal()).responseCode).toBe(451);
    const third = await send();
    await sink.client.waitForMessageId(third.messageId);
    expect(await sink.client.count()).toBe(1);
    expect((await call(sink.httpUrl, 'GET', '/api/sink/fault')).body).toEqual({ fault: null });
  });

  it('when a 550 fault is set for a while, then sends are refused until it expires', async () => {
    await sink.client.setFault({ code: 550, forMs: 400 });
    expect((await call(sink.httpUrl, 'GET', '/api/sink/fault')).body.fault).toMatchObject({ code: 550, stage: 'rcpt', remaining: null });
    expect((await refusal()).responseCode).toBe(550);
    expect((await refusal()).responseCode).toBe(550);
    await sleep(450);
    const info = await send();
    await sink.client.waitForMessageId(info.messageId);
    expect(await sink.client.count()).toBe(1);
  });

  it('when a fault is set at the data stage, then the message is refused after DATA and not stored', async () => {
    await sink.client.setFault({ code: 554, stage: 'data', count: 1, message: 'content rejected' });
    const error = await refusal();
    expect(error.responseCode).toBe(554);
    expect(error.command).toMatch(/DATA|\./);
    const info = await send();
    await sink.client.waitForMessageId(info.messageId);
    expect(await sink.client.count()).toBe(1);
  });

  it('when a fault is cleared, then messages are accepted again', async () => {
    await sink.client.setFault({ code: 421 });
    expect((await refusal()).responseCode).toBe(421);
    await sink.client.clearFault();
    await sink.client.waitForMessageId((await send()).messageId);
  });

  it('when a fault request is invalid, then it is refused with 400 naming the fields', async () => {
    const res = await call(sink.httpUrl, 'PUT', '/api/sink/fault', { json: { code: 250, count: -1, stage: 'helo' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code.*count.*stage/);
  });

  it('when 2,000 mails arrive over a pool of connections, then every one is stored (the rate is logged)', async () => {
    const total = 2_000;
    const pool = createTransport({
      pool: true,
      maxConnections: 16,
      maxMessages: Infinity,
      host: '127.0.0.1',
      port: sink.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    try {
      const startedAt = performance.now();
      await Promise.all(
        Array.from({ length: total }, (_, i) =>
          pool.sendMail({ from: 'load@example.com', to: `user-${i}@example.org`, subject: `Load ${i}`, text: 'x'.repeat(2_000) }),
        ),
      );
      const seconds = (performance.now() - startedAt) / 1000;
      console.log(`smtp-sink: ${total} mails in ${seconds.toFixed(2)} s = ${Math.round(total / seconds)} mails/s (16 pooled connections)`);
      await waitFor(async () => (await sink.client.count()) === total, { what: 'every mail to be stored' });
    } finally {
      pool.close();
    }
  });
});
