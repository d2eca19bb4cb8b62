import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { MailerErasure } from '../domain/erasure-participant';

/**
 * `email.erasure_requested`: the erase as the gateway put it among the person's email commands,
 * consumed with the triggers, so the suppression is stored before any trigger accepted after the
 * erase is handled.
 */
export const emailErasureRequestedHandler = (erasure: MailerErasure) =>
  defineHandler({
    topic: Topics.EmailCommands,
    type: 'email.erasure_requested',
    handle: (data) => erasure.suppress(data),
  });
