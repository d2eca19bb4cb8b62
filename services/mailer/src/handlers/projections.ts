import { defineHandler, erasureParticipant, type Handler } from '@postbus/bus';
import { Topics, userOrderingKey, type CatalogKind, type MessageType } from '@postbus/contracts';
import type { Publisher } from '@postbus/bus';
import type { MailerErasure } from '../erasure';
import type { CatalogProjection } from '../model/catalog';
import type { MessageStore } from '../model/messages';
import type { Suppressions } from '../model/suppressions';
import type { Timeline } from '../timeline';

/** The catalog topic into this service's projection of it. */
export function catalogHandlers(catalog: CatalogProjection): Handler[] {
  const entity = <T extends 'catalog.project' | 'catalog.domain' | 'catalog.template' | 'catalog.email'>(type: T, kind: CatalogKind) =>
    defineHandler({
      topic: Topics.Catalog,
      type,
      handle: (data) => catalog.apply(kind, data.id, data.revision, data, false),
    });
  return [
    entity('catalog.project', 'project'),
    entity('catalog.domain', 'domain'),
    entity('catalog.template', 'template'),
    entity('catalog.email', 'email'),
    defineHandler({
      topic: Topics.Catalog,
      type: 'catalog.deleted',
      handle: (data) => catalog.apply(data.kind, data.id, data.revision, null, true),
    }),
  ] as Handler[];
}

/** Users who unsubscribed get no more mail (send_to_unsubscribed emails aside). */
export function userEventHandlers(suppressions: Suppressions): Handler[] {
  return [
    defineHandler({
      topic: Topics.UserEvents,
      type: 'user.unsubscribed',
      handle: (data) => suppressions.add(data.projectId, data.email, 'unsubscribed', new Date(data.unsubscribedAt)),
    }),
  ] as Handler[];
}

/** Users queued for erasure get no mail at all; when the erasure runs, what the mailer holds about them goes. */
export function erasureHandlers(erasure: MailerErasure, publisher: Publisher): Handler[] {
  return [
    defineHandler({ topic: Topics.ErasureEvents, type: 'user.erasure_scheduled', handle: (data) => erasure.suppress(data) }),
    erasureParticipant('mailer', publisher, erasure.erase),
  ] as Handler[];
}

/**
 * The erase as the gateway put it among the person's email commands: consumed with the triggers, so
 * the suppression is stored before any trigger accepted after the erase is handled.
 */
export function erasureRequestHandler(erasure: MailerErasure): Handler<'email.erasure_requested'> {
  return defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.erasure_requested',
    handle: (data) => erasure.suppress(data),
  });
}

export interface TrackingDeps {
  store: MessageStore;
  timeline: Timeline;
  suppressions: Suppressions;
  publisher: Publisher;
}

/**
 * Opens, clicks and one-click unsubscribes join the message's timeline. An unsubscribe also
 * suppresses the address here at once and asks the users service (the owner of subscription
 * state) to unsubscribe the user.
 */
export function trackingHandlers({ store, timeline, suppressions, publisher }: TrackingDeps): Handler[] {
  const engagement = (type: MessageType & `tracking.${string}`, event: 'opened' | 'clicked' | 'unsubscribed') =>
    defineHandler({
      topic: Topics.TrackingEvents,
      type: type as 'tracking.opened',
      async handle(data, ctx) {
        const message = await store.message(data.projectId, data.messageId);
        if (!message) return; // a token of a message since erased, or of another installation
        const at = new Date(data.at);
        if (event === 'unsubscribed') {
          await suppressions.add(message.projectId, message.email, 'unsubscribed', at);
          await publisher.publish(
            Topics.UserCommands,
            'user.unsubscribe',
            userOrderingKey(message.projectId, { email: message.email }),
            { projectId: message.projectId, user: { email: message.email }, reason: 'one-click unsubscribe', acceptedAt: data.at },
            { id: `${ctx.id}:unsubscribe` },
          );
        }
        await timeline.recordEngagement(message, event, at, data.url);
      },
    });
  return [
    engagement('tracking.opened', 'opened'),
    engagement('tracking.clicked', 'clicked'),
    engagement('tracking.unsubscribed', 'unsubscribed'),
  ] as Handler[];
}
