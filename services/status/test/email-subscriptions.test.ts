import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { startSmtpSink, waitFor, type SmtpSink } from '@postbus/testing';
import { statusPublishing, type Publishing } from '../src/start/publishing';
import { activeMaintenance, buildSnapshot, FakeStatusSource, openIncident, PREVIEW_NOW } from '../preview/scenarios';
import { InMemorySubscriberStore } from '../preview/in-memory-subscriber-store';

/** Email subscriptions through a real SMTP server (the repo's sink): double opt-in, then notifications, then unsubscribe. */
describe('email subscribers', () => {
  let sink: SmtpSink;
  let app: Server;
  let appUrl: string;
  let router: Publishing;
  const source = new FakeStatusSource(buildSnapshot({ history: true }));
  const subscribers = new InMemorySubscriberStore();
  const address = `ada.${Date.now()}@example.com`;

  beforeAll(async () => {
    sink = await startSmtpSink();
    const server = express();
    app = http.createServer(server);
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    router = statusPublishing(source, {
      baseUrl: appUrl,
      subscribers,
      tokenSecret: 'a-test-secret-of-enough-length',
      smtpUrl: sink.smtpUrl,
      mailFrom: 'status@postbus.example',
    });
    server.use(router);
  });

  afterAll(async () => {
    await router.stop();
    await new Promise((r) => app.close(r));
    await sink.process.stop();
  });

  const mailsTo = async () => (await sink.client.search(`to:${address}`)).messages;
  const linkIn = (text: string, path: string) => {
    const match = new RegExp(`${appUrl.replace(/[.]/g, '\\.')}${path}\\?token=[A-Za-z0-9_.%-]+`).exec(text);
    if (!match) throw new Error(`no ${path} link in: ${text}`);
    return match[0];
  };

  it('sends nothing but the confirmation before the address is confirmed, then incident and maintenance mails with an unsubscribe link', async () => {
    const form = await fetch(`${appUrl}/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `email=${encodeURIComponent(address)}`,
    });
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('Check your mail');
    const [confirmation] = await waitFor(
      async () => {
        const mails = await mailsTo();
        return mails.length > 0 ? mails : undefined;
      },
      { what: 'the confirmation mail' },
    );
    expect(confirmation!.Subject).toBe('Confirm your subscription to Postbus status');

    // Subscribing again at once sends no second confirmation (the form cannot flood a mailbox).
    const twice = await fetch(`${appUrl}/api/v2/subscribers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: address.toUpperCase() }),
    });
    expect(twice.status).toBe(202);

    // Before confirming: an incident is posted, and no mail goes to the address.
    const incident = openIncident(PREVIEW_NOW);
    source.emit({ kind: 'incident', incident, update: incident.updates[1]! });
    await router.idle();
    expect((await mailsTo()).map((m) => m.Subject)).toEqual(['Confirm your subscription to Postbus status']);

    // The link shows a button (a mail scanner's GET confirms nothing); the button's POST confirms.
    const confirmUrl = linkIn((await sink.client.get(confirmation!.ID)).Text, '/subscriptions/confirm');
    const page = await fetch(confirmUrl);
    expect(await page.text()).toContain('<button type="submit">Confirm</button>');
    expect(await subscribers.listConfirmed()).toEqual([]);
    const confirmed = await fetch(confirmUrl, { method: 'POST' });
    expect(await confirmed.text()).toContain('Subscribed');
    expect(await subscribers.listConfirmed()).toHaveLength(1);

    source.emit({ kind: 'incident', incident, update: incident.updates[0]! });
    const maintenance = activeMaintenance(PREVIEW_NOW);
    source.emit({ kind: 'maintenance', maintenance, update: maintenance.updates[0]! });
    // A component flap alone is not mailed.
    source.emit({ kind: 'component', component: source.current.components[0]!, previous: 'degraded_performance' });
    await router.idle();
    const mails = await waitFor(
      async () => {
        const found = await mailsTo();
        return found.length >= 3 ? found : undefined;
      },
      { what: 'the notification mails' },
    );
    expect(mails.map((m) => m.Subject).sort()).toEqual([
      'Confirm your subscription to Postbus status',
      '[Postbus] Incident: Email sending is down — identified',
      '[Postbus] Maintenance: Database upgrade — in progress',
    ]);
    const notification = mails.find((m) => m.Subject.startsWith('[Postbus] Incident'))!;
    const full = await sink.client.get(notification.ID);
    expect(full.Text).toContain('The outbound relay refuses connections');
    const unsubscribeUrl = linkIn(full.Text, '/subscriptions/unsubscribe');
    const headers = await sink.client.headers(notification.ID);
    expect(headers['List-Unsubscribe']?.[0]).toContain(unsubscribeUrl);
    expect(headers['List-Unsubscribe-Post']).toEqual(['List-Unsubscribe=One-Click']);

    // One-click unsubscribe; the next incident is not mailed.
    expect(
      (
        await fetch(unsubscribeUrl, {
          method: 'POST',
          body: 'List-Unsubscribe=One-Click',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
      ).status,
    ).toBe(200);
    source.emit({
      kind: 'incident',
      incident: { ...incident, status: 'resolved' },
      update: { ...incident.updates[0]!, id: 'later', status: 'resolved' },
    });
    await router.idle();
    expect(await mailsTo()).toHaveLength(3);
  });

  it('refuses an address that is not one, and a forged confirmation token', async () => {
    const bad = await fetch(`${appUrl}/api/v2/subscribers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'not an address' }),
    });
    expect(bad.status).toBe(400);
    const forged = await fetch(`${appUrl}/subscriptions/confirm?token=eyJwIjoiY29uZmlybSIsInMiOiJ4In0.forged`, { method: 'POST' });
    expect(forged.status).toBe(400);
  });
});
