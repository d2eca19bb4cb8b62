import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { MailerErasure } from '../domain/erasure-participant';

/** `user.erasure_scheduled`: a person queued for erasure gets no mail at all from the request on. */
export const userErasureScheduledHandler = (erasure: MailerErasure) =>
  defineHandler({ topic: Topics.ErasureEvents, type: 'user.erasure_scheduled', handle: (data) => erasure.suppress(data) });
