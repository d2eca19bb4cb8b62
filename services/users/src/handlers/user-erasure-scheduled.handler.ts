import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { UserErasure } from '../domain/erasure-participant';

/** `user.erasure_scheduled`: the profile shows the erasure queued. */
export const userErasureScheduledHandler = (erasure: UserErasure) =>
  defineHandler({ topic: Topics.ErasureEvents, type: 'user.erasure_scheduled', handle: (event) => erasure.schedule(event) });
